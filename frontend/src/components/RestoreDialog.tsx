import type { RestorePlan } from '../api/types';
import { useRestore } from '../hooks/useCheckpoints';
import { useModalFocus } from '../hooks/useModalFocus';
import { undoText } from '../state/checkpoints';
import { CancelButton } from './CancelButton';

interface Props {
  sessionID: string;
  /** Restore to before this row. */
  seq: number;
  /** Only this path ("" for every file). */
  path: string;
  onClose: () => void;
  onRestored: (plan: RestorePlan) => void;
}

/**
 * "Restore files to before this row": Go's preview first (RestorePreview) — the files it will
 * change, files changed outside since (each with a choice to overwrite it), other sessions'
 * changes it would undo, files it cannot bring back — then Restore. A conflicting file left
 * unchecked is kept: the other files are then restored one by one, each its own restore row.
 */
export function RestoreDialog({ sessionID, seq, path, onClose, onRestored }: Props) {
  const { plan, error, busy, overwrite, restored, conflicts, kept, toggle, run } = useRestore(sessionID, seq, path, onRestored);
  const dialog = useModalFocus<HTMLDivElement>();

  const title = path ? `Restore ${path} to before row #${seq}` : `Restore files to before row #${seq}`;
  const nothing = plan !== null && restored.length === 0;
  return (
    <div className="modal-backdrop" onKeyDown={(e) => e.key === 'Escape' && onClose()}>
      <div ref={dialog} className="modal restore-dialog" role="dialog" aria-modal="true" aria-label="Restore files">
        <h2>{title}</h2>
        {!plan && !error && <p className="muted">Working out what would change…</p>}
        {nothing && <p>Nothing to restore: no file {path ? `at ${path} ` : ''}was changed at or after this row.</p>}
        {restored.length > 0 && (
          <>
            <p>
              {restored.length} file{restored.length === 1 ? '' : 's'} will be restored:
            </p>
            <ul className="restore-list" aria-label="Files to restore">
              {restored.map((r) => (
                <li key={r.path}>
                  <code>{r.path}</code> <span className="muted">— {undoText(r.change)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
        {conflicts.length > 0 && (
          <section className="conflicts" aria-label="Changed since">
            <h3>Changed since the session recorded them</h3>
            <p className="muted">Check a file to overwrite its current content; an unchecked file is kept as it is.</p>
            {conflicts.map((c) => (
              <label key={c.path} className="check">
                <input type="checkbox" checked={overwrite.has(c.path)} onChange={() => toggle(c.path)} aria-label={`Overwrite ${c.path}`} />
                <code>{c.path}</code> <span className="bad">changed by {c.by === 'outside' ? 'someone outside this session (you, another program)' : c.by}</span>
              </label>
            ))}
          </section>
        )}
        {kept.length > 0 && kept.length < restored.length && (
          <p className="muted" role="status">
            Kept as they are now: {kept.join(', ')}. The other files are restored one by one.
          </p>
        )}
        {(plan?.others ?? []).length > 0 && (
          <section aria-label="Other sessions' changes">
            <h3>Other sessions' changes this undoes</h3>
            <ul>
              {(plan?.others ?? []).map((o) => (
                <li key={`${o.session_id}:${o.seq}:${o.path}`}>
                  <code>{o.path}</code> <span className="muted">— session {o.session_id}, row #{o.seq}</span>
                </li>
              ))}
            </ul>
          </section>
        )}
        {(plan?.unrestorable ?? []).length > 0 && (
          <p className="muted">
            Cannot be brought back (content over 10 MiB was never kept): {(plan?.unrestorable ?? []).join(', ')}
          </p>
        )}
        {error && (
          <p role="alert" className="bad">
            {error}
          </p>
        )}
        <div className="row">
          <button type="button" className="primary" disabled={busy || !plan || nothing || kept.length === restored.length} onClick={() => void run()}>
            Restore
          </button>
          <CancelButton onCancel={onClose} autoFocus />
        </div>
      </div>
    </div>
  );
}
