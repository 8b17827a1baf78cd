import { formatSize } from '../lib/format';
import { useOrphans } from '../hooks/useForkFolder';

/** At start: fork folders whose session is gone, with their sizes, offered for removal. */
export function OrphanNotice() {
  const { orphans, error, remove, dismiss } = useOrphans();
  if (orphans.length === 0) return null;
  const total = orphans.reduce((n, o) => n + o.bytes, 0);
  return (
    <div className="banner orphans" role="region" aria-label="Fork folders without a session">
      <p>
        <strong>
          {orphans.length} fork folder{orphans.length === 1 ? '' : 's'} whose session is gone ({formatSize(total)})
        </strong>
      </p>
      <ul>
        {orphans.map((o) => (
          <li key={o.fork_id}>
            <code>{o.folder}</code> <span className="muted">{formatSize(o.bytes)}{o.branch ? ` · branch ${o.branch}` : ''}</span>{' '}
            <button type="button" className="small" onClick={() => void remove([o.fork_id])}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      {error && <p className="bad">{error}</p>}
      <div className="row">
        <button type="button" className="small danger" onClick={() => void remove(orphans.map((o) => o.fork_id))}>
          Remove all
        </button>
        <button type="button" className="small" onClick={dismiss}>
          Keep them
        </button>
      </div>
    </div>
  );
}
