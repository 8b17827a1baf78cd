import type { EffectiveRow } from '../api/types';
import { useEffectiveSettings } from '../hooks/useEffectiveSettings';
import { ListTable } from './ListTable';

const FROM: Record<string, string> = { default: 'default', saved: 'saved here', env: 'environment', flag: 'flag' };

/** A value as the table shows it: the key only as found or not, lists and objects as JSON. */
function shown(r: EffectiveRow): string {
  const v = r.value;
  if (r.setting === 'api_key') return v ? 'found' : 'none';
  if (v === null || v === undefined || v === '') return '(none)';
  if (v === 0 && /^max_/.test(r.setting)) return 'no limit';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/**
 * "In effect": the values the next run uses and where each comes from — the same rows as
 * `loopdesk settings` for the same database and environment (an environment variable beats
 * what is saved here). `version` changes after a save so the rows are read again.
 */
export function EffectiveSettings({ version }: { version: unknown }) {
  const view = useEffectiveSettings(version);
  return (
    <details className="effective-settings">
      <summary>In effect: what the next run uses, and from where</summary>
      {view.error ? (
        <p role="alert" className="bad">
          {view.error}
        </p>
      ) : (
        <ListTable label="Settings in effect" columns={['Setting', 'Value', 'From']}>
          {(view.rows ?? []).map((r) => (
            <tr key={r.setting}>
              <td>{r.setting}</td>
              <td className="value">{shown(r)}</td>
              <td className="muted">
                {FROM[r.source] ?? r.source}
                {r.detail ? ` (${r.detail})` : ''}
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </details>
  );
}
