import { useEffect, useState } from 'react';
import type { Change } from '../api/types';
import type { FileDiff, RestorePayload } from '../api/types';
import { errorMessage } from '../api/types';
import { formatSize } from '../lib/format';
import { changesOfPath, undoText } from '../state/checkpoints';
import { useCheckpoints, useRowChanges } from './CheckpointContext';
import { DiffView } from './LazyDiffView';

/**
 * The files row seq changed (created, modified, deleted, mode) — for shell commands as for
 * file tools — each with its diff on demand, and the restore actions.
 */
export function FileChanges({ seq }: { seq: number }) {
  const changes = useRowChanges(seq);
  const { restore } = useCheckpoints();
  const [open, setOpen] = useState<string | null>(null);
  if (!changes || changes.length === 0) return null;
  return (
    <section className="file-changes" aria-label={`Files changed by row ${seq}`}>
      <header className="row">
        <strong>
          {changes.length} file{changes.length === 1 ? '' : 's'} changed
        </strong>
        <button type="button" className="small" onClick={() => restore(seq)}>
          Restore files to before this row
        </button>
      </header>
      <ul>
        {changes.map((c) => (
          <li key={c.path}>
            <button
              type="button"
              className="link"
              aria-expanded={open === c.path}
              title={`Diff of ${c.path}`}
              onClick={() => setOpen(open === c.path ? null : c.path)}
            >
              <span className={`change ${c.change}`}>{c.change}</span> {c.path}
            </button>
            {c.change !== 'deleted' && <span className="muted"> {formatSize(c.size)}</span>}
            {open === c.path && <Diff seq={seq} change={c} />}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Diff({ seq, change }: { seq: number; change: Change }) {
  const { fileDiff, restore } = useCheckpoints();
  const [d, setD] = useState<FileDiff | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    fileDiff(seq, change.path).then(
      (v) => live && setD(v),
      (e) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [fileDiff, seq, change.path]);
  return (
    <div className="file-diff">
      {error && <p className="bad">{error}</p>}
      {!d && !error && <p className="muted">Loading the diff…</p>}
      {d && (
        <>
          {d.note && <p className="muted">{d.note}</p>}
          {change.change === 'mode' ? <p className="muted">Only the file's mode changed.</p> : <DiffView label={`Diff of ${change.path} at row ${seq}`} before={d.before} after={d.after} />}
        </>
      )}
      <button type="button" className="small" onClick={() => restore(seq, change.path)}>
        Restore this file to before this row
      </button>
    </div>
  );
}

/** A restore row, readably: what went back to before which row. */
export function RestoreRow({ seq, payload, className = '' }: { seq: number; payload: RestorePayload; className?: string }) {
  const restored = payload.restored ?? [];
  return (
    <article className={`msg restore${className}`} aria-label="Restore" data-seq={seq}>
      <p>
        <strong>
          Restored {payload.path ? payload.path : `${restored.length} file${restored.length === 1 ? '' : 's'}`} to before row #{payload.to_seq}
        </strong>
      </p>
      {restored.length > 0 && (
        <ul>
          {restored.map((r) => (
            <li key={r.path}>
              <code>{r.path}</code> <span className="muted">— {undoText(r.change)}</span>
            </li>
          ))}
        </ul>
      )}
      {(payload.overridden ?? []).length > 0 && <p className="muted">Overwritten although changed outside: {(payload.overridden ?? []).join(', ')}</p>}
      {(payload.skipped ?? []).length > 0 && <p className="muted">Could not be brought back: {(payload.skipped ?? []).join(', ')}</p>}
      <p className="muted">The model is told of this restore, as Loopdesk's note, at its next request.</p>
      <FileChanges seq={seq} />
    </article>
  );
}

/** The rows that changed a file, for the workspace tab's preview. */
export function FileHistory({ path, onShowRow }: { path: string; onShowRow: (seq: number) => void }) {
  const { changes } = useCheckpoints();
  const rows = changesOfPath(changes, path);
  if (rows.length === 0) return null;
  return (
    <section className="file-history" aria-label={`Rows that changed ${path}`}>
      <strong>Changed by</strong>{' '}
      {rows.map((r, i) => (
        <span key={`${r.seq}:${i}`}>
          {i > 0 && ', '}
          <button type="button" className="link" onClick={() => onShowRow(r.seq)}>
            row #{r.seq}
          </button>{' '}
          <span className="muted">
            ({r.change}
            {r.by === 'outside' ? ', edited outside the agent' : r.by === 'person' ? ', by you' : ''})
          </span>
        </span>
      ))}
    </section>
  );
}
