import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { Hunk } from '../api/types';
import { errorMessage } from '../api/types';
import { useForkFolder } from '../hooks/useForkFolder';
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
  const [hunks, setHunks] = useState<Hunk[] | null>(null);
  const [all, setAll] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);

  const reload = useCallback(async () => {
    try {
      setHunks(await api.hunks(sessionID));
    } catch (e) {
      setMessage({ text: errorMessage(e), bad: true });
    }
  }, [sessionID]);
  useEffect(() => {
    void reload();
  }, [reload, version]);

  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    try {
      setMessage({ text: await what(), bad: false });
    } catch (e) {
      setMessage({ text: errorMessage(e), bad: true });
    } finally {
      setBusy(false);
      void reload();
    }
  };
  const keep = (h: Hunk) =>
    act(async () => {
      await api.keepHunk(sessionID, h.seq, h.path, h.hunk);
      return `Kept hunk ${h.hunk} of ${h.path}.`;
    });
  const revert = (h: Hunk) =>
    act(async () => {
      const r = await api.revertHunk(sessionID, h.seq, h.path, h.hunk);
      return `Reverted hunk ${h.hunk} of ${h.path} (now lines ${r.from_line}–${r.to_line}); the model is told on row #${r.note_seq}.`;
    });

  const unreviewed = (hunks ?? []).filter((h) => h.state === 'unreviewed');
  const shown = all ? (hunks ?? []) : unreviewed;
  return (
    <section className="changes-panel" aria-label="Changes">
      <ForkBar sessionID={sessionID} busy={busy} act={act} onOpenSession={onOpenSession} />
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
function ForkBar({ sessionID, busy, act, onOpenSession }: {
  sessionID: string;
  busy: boolean;
  act: (what: () => Promise<string>) => Promise<void>;
  onOpenSession: (id: string) => void;
}) {
  const ff = useForkFolder(sessionID, true);
  const [parent, setParent] = useState('');
  if (!ff) return null;
  const apply = () =>
    act(async () => {
      const a = await api.applyToParent(sessionID);
      setParent(a.parent_id);
      return `Applied ${(a.paths ?? []).join(', ')} to the parent's folder, as hunks to review there (row #${a.seq}).`;
    });
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
        <button type="button" className="small" disabled={busy} onClick={() => void apply()}>
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
