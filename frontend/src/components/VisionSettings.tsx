import type { ModelVision } from '../api/types';
import { EditableTable, type Column } from './EditableTable';

interface Props {
  rows: ModelVision[];
  onChange: (rows: ModelVision[]) => void;
  providers: string[];
  /** What "Add vision setting" starts from: the provider and model new sessions use. */
  provider: string;
  model: string;
}

const columns = (providers: string[]): Column<ModelVision>[] => [
  {
    header: 'Provider',
    cell: (v, set, i) => (
      <select aria-label={`Vision provider ${i + 1}`} value={v.provider || 'default'} onChange={(e) => set({ ...v, provider: e.target.value })}>
        {[...new Set([...providers, v.provider || 'default'])].map((p) => (
          <option key={p} value={p}>
            {p}
          </option>
        ))}
      </select>
    ),
  },
  { header: 'Model', cell: (v, set, i) => <input aria-label={`Vision model ${i + 1}`} value={v.model} onChange={(e) => set({ ...v, model: e.target.value })} /> },
  {
    header: 'Sees images',
    cell: (v, set, i) => (
      <select aria-label={`Vision ${i + 1}`} value={v.vision} onChange={(e) => set({ ...v, vision: e.target.value as ModelVision['vision'] })}>
        <option value="auto">Auto (from the name)</option>
        <option value="on">On</option>
        <option value="off">Off</option>
      </select>
    ),
  },
];

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
      <EditableTable
        label="Vision"
        columns={columns(providers)}
        rows={rows}
        onChange={onChange}
        newRow={() => ({ provider: provider || 'default', model, vision: 'off' })}
        addLabel="Add vision setting"
        removeLabel={(i) => `Remove vision setting ${i + 1}`}
      />
    </>
  );
}
