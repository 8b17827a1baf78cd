import type { ModelVision } from '../api/types';

interface Props {
  rows: ModelVision[];
  onChange: (rows: ModelVision[]) => void;
  providers: string[];
  /** What "Add vision setting" starts from: the provider and model new sessions use. */
  provider: string;
  model: string;
}

const replace = <T,>(xs: T[], i: number, x: T) => xs.map((y, j) => (j === i ? x : y));

/**
 * Per provider and model: is it sent images? Auto takes the default from the model's name
 * (text-only families such as gpt-3.5 or deepseek-chat get none); On and Off are the person's
 * word. A text-only model gets no image, and the message box says why.
 */
export function VisionSettings({ rows, onChange, providers, provider, model }: Props) {
  return (
    <>
      <h2>Images (vision)</h2>
      <p className="hint">Auto decides from the model's name. Choose Off for a model that refuses images, On for one whose name Loopdesk does not know sees them.</p>
      <table className="grid" aria-label="Vision">
        <thead>
          <tr>
            <th>Provider</th>
            <th>Model</th>
            <th>Sees images</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((v, i) => (
            <tr key={i}>
              <td>
                <select aria-label={`Vision provider ${i + 1}`} value={v.provider || 'default'} onChange={(e) => onChange(replace(rows, i, { ...v, provider: e.target.value }))}>
                  {[...new Set([...providers, v.provider || 'default'])].map((p) => (
                    <option key={p} value={p}>
                      {p}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <input aria-label={`Vision model ${i + 1}`} value={v.model} onChange={(e) => onChange(replace(rows, i, { ...v, model: e.target.value }))} />
              </td>
              <td>
                <select aria-label={`Vision ${i + 1}`} value={v.vision} onChange={(e) => onChange(replace(rows, i, { ...v, vision: e.target.value as ModelVision['vision'] }))}>
                  <option value="auto">Auto (from the name)</option>
                  <option value="on">On</option>
                  <option value="off">Off</option>
                </select>
              </td>
              <td>
                <button type="button" className="small" aria-label={`Remove vision setting ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" onClick={() => onChange([...rows, { provider: provider || 'default', model, vision: 'off' }])}>
          Add vision setting
        </button>
      </div>
    </>
  );
}
