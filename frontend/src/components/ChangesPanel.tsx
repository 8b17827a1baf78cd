import { useState } from 'react';
import { useForkFolder } from '../hooks/useForkFolder';
import { useHunkReview } from '../hooks/useHunkReview';
import { formatSize } from '../lib/format';
import { useCheckpoints } from './CheckpointContext';

interface Props {
  sessionID: string;
  /** Changes when the session's rows or files change: the hunks are fetched again. */
  version: string;
  /** Shows the parent session after "Apply to parent folder". */
  onOpenSession: (id: string) => void;
}

/**
 * The Changes tab: every hunk the agent's changes made, unreviewed first (the review list of
 * the whole session), each with Keep, Revert hunk and Revert file; for a fork with files,
 * where it works and "Apply to parent folder".
 */
export function ChangesPanel({ sessionID, version, onOpenSession }: Props) {
  const { restore } = useCheckpoints();
  const [all, setAll] = useState(false);
  const { hunks, busy, message, parent, keep, revert, applyToParent } = useHunkReview(sessionID, version);

  const unreviewed = (hunks ?? []).filter((h) => h.state === 'unreviewed');
  const shown = all ? (hunks ?? []) : unreviewed;
  return (
    <section className="changes-panel" aria-label="Changes">
      <ForkBar sessionID={sessionID} busy={busy} parent={parent} onApply={() => void applyToParent()} onOpenSession={onOpenSession} />
      <header className="row">
        <strong>
          {unreviewed.length} unreviewed hunk{unreviewed.length === 1 ? '' : 's'}
        </strong>
        <label className="small">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Show reviewed
        </label>
      </header>
      {message && (
        <p role={message.bad ? 'alert' : 'status'} className={message.bad ? 'bad' : 'muted'}>
          {message.text}
        </p>
      )}
      {hunks === null && <p className="muted">Loading…</p>}
      {hunks !== null && shown.length === 0 && (
        <p className="muted">{hunks.length === 0 ? 'The agent changed no text file yet.' : 'Every hunk is reviewed.'}</p>
      )}
      <ul className="hunks">
        {shown.map((h) => (
          <li key={`${h.seq}:${h.path}:${h.hunk}`} aria-label={`Hunk ${h.hunk} of ${h.path} at row ${h.seq}`} className={`hunk ${h.state}`}>
            <div className="row">
              <code>{h.path}</code>
              <span className="muted">
                row #{h.seq} · hunk {h.hunk} · lines {h.new_start}–{h.new_start + Math.max(h.new_lines, 1) - 1}
              </span>
              {h.state !== 'unreviewed' && <span className={`state ${h.state}`}>{h.state}</span>}
            </div>
            <PatchView patch={h.patch} />
            {h.state === 'unreviewed' && (
              <div className="row">
                <button type="button" className="small" disabled={busy} onClick={() => void keep(h)}>
                  Keep
                </button>
                <button type="button" className="small" disabled={busy} onClick={() => void revert(h)}>
                  Revert hunk
                </button>
                <button type="button" className="small" disabled={busy} onClick={() => restore(h.seq, h.path)}>
                  Revert file
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A unified-diff hunk, its added and removed lines marked. */
export function PatchView({ patch }: { patch: string }) {
  const lines = patch.replace(/\n$/, '').split('\n');
  return (
    <pre className="patch">
      {lines.map((l, i) => (
        <span key={i} className={l.startsWith('@@') ? 'at' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : ''}>
          {l}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** Where a fork with files works, and bringing its changes into the parent's folder. */
function ForkBar({ sessionID, busy, parent, onApply, onOpenSession }: {
  sessionID: string;
  busy: boolean;
  /** The parent session once the fork's changes were applied there. */
  parent: string;
  onApply: () => void;
  onOpenSession: (id: string) => void;
}) {
  const ff = useForkFolder(sessionID, true);
  if (!ff) return null;
  return (
    <div className="fork-bar" aria-label="Fork folder">
      <p>
        Works in <code>{ff.folder}</code>
        {ff.branch && (
          <>
            {' '}on branch <code>{ff.branch}</code>
          </>
        )}{' '}
        <span className="muted">· {formatSize(ff.bytes)}</span>
      </p>
      <div className="row">
        <button type="button" className="small" disabled={busy} onClick={onApply}>
          Apply to parent folder
        </button>
        {parent && (
          <button type="button" className="small" onClick={() => onOpenSession(parent)}>
            Review in the parent session
          </button>
        )}
      </div>
    </div>
  );
}
