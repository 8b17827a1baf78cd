import './memory.css';
import { useState } from 'react';
import type { MemoryFigure, MemoryProposal, MemoryView } from '../api/types';
import { formatTokens } from '../lib/format';
import { useMemories } from '../hooks/useMemories';

interface Props {
  sessionID: string | null;
  /** Opens the session a memory came from at the row that proposed it. */
  onShowSource?: (sessionID: string, seq: number) => void;
  /** Settings → Memory offers every folder's memories; a folder's panel shows its own. */
  everyFolderChoice?: boolean;
}

/**
 * The Memory view (docs/memory.md): the memories later runs carry, each with where it came
 * from — a session's row (Show source opens it there), the person, or an imported file — and
 * the controls to add, edit and remove them, and to accept or reject what an import proposed.
 */
export function MemorySettings({ sessionID, onShowSource, everyFolderChoice = false }: Props) {
  const [every, setEvery] = useState(!sessionID);
  const m = useMemories(sessionID, every || !sessionID);
  return (
    <>
      <h2>Memory</h2>
      <p className="note">
        What later runs carry, as Loopdesk&apos;s note after the instruction files: this folder&apos;s project memories and your personal ones. Nothing becomes a
        memory unless you approved it; an edit applies from the next run, and what earlier runs carried stays as it was.
      </p>
      {m.error && (
        <p role="alert" className="bad">
          {m.error}
        </p>
      )}
      {everyFolderChoice && sessionID && (
        <label className="row">
          <input type="checkbox" checked={every} onChange={(e) => setEvery(e.target.checked)} /> Show every folder&apos;s memories
        </label>
      )}
      <AddMemory busy={m.busy} folder={Boolean(sessionID)} onAdd={m.add} />
      {m.memories.length === 0 ? (
        <p className="muted">No memories{every ? '' : ' for this folder'}.</p>
      ) : (
        <ul className="memory-list" aria-label="Memories">
          {m.memories.map((v) => (
            <MemoryItem key={v.id} memory={v} busy={m.busy} showFolder={every} onEdit={m.edit} onRemove={m.remove} onShowSource={onShowSource} />
          ))}
        </ul>
      )}
      {m.proposals.length > 0 && <Proposals proposals={m.proposals} busy={m.busy} onAnswer={(id, accept) => void m.answer(id, accept)} />}
    </>
  );
}

function AddMemory({ busy, folder, onAdd }: { busy: boolean; folder: boolean; onAdd: (scope: string, text: string) => Promise<boolean> }) {
  const [text, setText] = useState('');
  const [scope, setScope] = useState(folder ? 'project' : 'personal');
  return (
    <form
      className="memory-add"
      onSubmit={(e) => {
        e.preventDefault();
        void onAdd(scope, text).then((ok) => ok && setText(''));
      }}
    >
      <textarea aria-label="New memory" rows={2} value={text} placeholder="Something later runs should know" onChange={(e) => setText(e.target.value)} />
      <div className="row">
        <select aria-label="Where the new memory applies" value={scope} onChange={(e) => setScope(e.target.value)}>
          {folder && <option value="project">This folder</option>}
          <option value="personal">Every folder (personal)</option>
        </select>
        <button type="submit" disabled={busy || !text.trim()}>
          Add memory
        </button>
      </div>
    </form>
  );
}

interface ItemProps {
  memory: MemoryView;
  busy: boolean;
  showFolder: boolean;
  onEdit: (id: string, text: string) => Promise<boolean>;
  onRemove: (id: string) => Promise<boolean>;
  onShowSource?: (sessionID: string, seq: number) => void;
}

function MemoryItem({ memory: v, busy, showFolder, onEdit, onRemove, onShowSource }: ItemProps) {
  const [editing, setEditing] = useState<string | null>(null);
  const short = v.text.length > 40 ? `${v.text.slice(0, 40)}…` : v.text;
  return (
    <li className="memory" data-memory-id={v.id}>
      {editing === null ? (
        <p className="memory-text">{v.text}</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void onEdit(v.id, editing).then((ok) => ok && setEditing(null));
          }}
        >
          <textarea aria-label={`Text of memory ${short}`} rows={3} value={editing} onChange={(e) => setEditing(e.target.value)} />
          <div className="row">
            <button type="submit" className="primary" disabled={busy || !editing.trim()}>
              Save memory
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <div className="memory-meta muted">
        <span>{v.scope === 'personal' ? 'Every folder' : showFolder ? v.workspace : 'This folder'}</span> · <span>{v.from}</span>
        {v.source && (
          <>
            {' '}
            · from “{v.source_title || 'a deleted session'}”, row {v.source.seq}
          </>
        )}
      </div>
      <div className="row">
        {v.source && v.source_title && onShowSource && (
          <button type="button" aria-label={`Show source of memory ${short}`} onClick={() => onShowSource(v.source!.session_id, v.source!.seq)}>
            Show source
          </button>
        )}
        {editing === null && (
          <button type="button" aria-label={`Edit memory ${short}`} disabled={busy} onClick={() => setEditing(v.text)}>
            Edit
          </button>
        )}
        <button type="button" aria-label={`Remove memory ${short}`} disabled={busy} onClick={() => void onRemove(v.id)}>
          Remove
        </button>
      </div>
    </li>
  );
}

function Proposals({ proposals, busy, onAnswer }: { proposals: MemoryProposal[]; busy: boolean; onAnswer: (id: string, accept: boolean) => void }) {
  return (
    <section aria-label="Proposed memories">
      <h3>Proposed by an import</h3>
      <p className="note">Entries read from a MEMORY.md or an AGENTS.md. None is a memory until you accept it.</p>
      <ul className="memory-list">
        {proposals.map((p) => {
          const short = p.text.length > 40 ? `${p.text.slice(0, 40)}…` : p.text;
          return (
            <li key={p.id} className="memory proposal">
              <p className="memory-text">{p.text}</p>
              <div className="memory-meta muted">
                {p.workspace} · from {p.origin}
              </div>
              <div className="row">
                <button type="button" aria-label={`Accept proposed memory ${short}`} disabled={busy} onClick={() => onAnswer(p.id, true)}>
                  Accept
                </button>
                <button type="button" aria-label={`Reject proposed memory ${short}`} disabled={busy} onClick={() => onAnswer(p.id, false)}>
                  Reject
                </button>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** Beside AGENTS.md: how many memories the folder's runs carry and about how many tokens (Go's figures). */
export function MemoryCount({ figure }: { figure?: MemoryFigure | null }) {
  if (!figure || figure.count === 0) return null;
  return (
    <span className="muted" title="The memories this folder's runs carry (the side panel's Memory tab lists them)">
      memories: {figure.count} · {formatTokens(figure.tokens)} tokens{figure.warning && ` (${figure.warning})`}
    </span>
  );
}
