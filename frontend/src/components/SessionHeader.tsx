import { useState, type ReactNode } from 'react';
import type { SessionSummary } from '../api/types';
import { useModalFocus } from '../hooks/useModalFocus';
import { SessionModel } from './SessionModel';

interface Props {
  session: SessionSummary | undefined;
  parentTitle: string | undefined;
  /** The saved default, for a session that has no model of its own yet. */
  provider: string;
  model: string;
  /** Sets the provider and model of the session's next run; the error text or "". */
  onSetModel: (provider: string, model: string) => Promise<string>;
  onRename: (title: string) => Promise<boolean>;
  onDelete: () => Promise<boolean>;
  /** A fork with files: its folder, which deleting keeps unless the person removes it too. */
  forkFolder?: string;
  onDeleteWithFolder?: () => Promise<boolean>;
  onExport: () => Promise<string | null>;
  /** Export → Markdown: a readable transcript; the path written, or null. */
  onExportMarkdown?: () => Promise<string | null>;
  onOpenParent: () => void;
  /** The session's sandbox control (SandboxControl). */
  sandbox?: ReactNode;
  /** Its project and size on disk (Organise.tsx's SessionPlace). */
  place?: ReactNode;
}

/** The open session's title and its actions: rename, export, delete (confirmed). */
export function SessionHeader({
  session,
  parentTitle,
  provider,
  model,
  onSetModel,
  onRename,
  onDelete,
  onExport,
  onExportMarkdown,
  onOpenParent,
  sandbox,
  place,
  forkFolder,
  onDeleteWithFolder,
}: Props) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [note, setNote] = useState('');
  // Both exports say where the file went (nothing when the person cancelled the save dialog).
  const exportWith = (save: () => Promise<string | null>) => async () => {
    const path = await save();
    setNote(path ? `Exported to ${path}` : '');
  };

  if (!session) return <NewHeader provider={provider} model={model} />;
  return (
    <header className="main-head">
      <div className="head-line">
        {editing ? (
          <RenameForm initial={session.title} onRename={onRename} onDone={() => setEditing(false)} />
        ) : (
          <h1 title={session.title}>{session.title || 'Untitled'}</h1>
        )}
        <span className="head-actions">
          {!editing && (
            <button
              type="button"
              className="small"
              onClick={() => setEditing(true)}
            >
              Rename
            </button>
          )}
          <button type="button" className="small" onClick={exportWith(onExport)}>
            Export
          </button>
          {onExportMarkdown && (
            <button
              type="button"
              className="small"
              aria-label="Export as Markdown"
              title="Export → Markdown: a readable transcript"
              onClick={exportWith(onExportMarkdown)}
            >
              Markdown
            </button>
          )}
          <button type="button" className="small danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        </span>
      </div>
      {/* A line of its own: the lineage link never competes with the title or the buttons for room. */}
      <div className="head-sub">
        {session.parent_id && <ParentLink session={session} parentTitle={parentTitle} onOpen={onOpenParent} />}
        {/* Keyed by the stored choice: after a change elsewhere (the CLI) the header shows the new one. */}
        <SessionModel
          key={`${session.provider}/${session.model}`}
          provider={session.model ? session.provider || 'default' : provider}
          model={session.model || model}
          onSet={onSetModel}
        />
        {sandbox}
        {place}
        {note && (
          <span role="status" className="ok note-inline">
            {note}
          </span>
        )}
      </div>
      {confirming && (
        <ConfirmDelete
          title={session.title}
          forkFolder={forkFolder}
          onDelete={onDelete}
          onDeleteWithFolder={onDeleteWithFolder}
          onClose={() => setConfirming(false)}
        />
      )}
    </header>
  );
}

/** No session yet: the model the first message will use. */
function NewHeader({ provider, model }: { provider: string; model: string }) {
  return (
    <header className="main-head">
      <div className="head-line">
        <h1>New conversation</h1>
      </div>
      <div className="head-sub">
        <span className="model">
          {provider} · {model}
        </span>
      </div>
    </header>
  );
}

function RenameForm({ initial, onRename, onDone }: { initial: string; onRename: (title: string) => Promise<boolean>; onDone: () => void }) {
  const [title, setTitle] = useState(initial);
  return (
    <form
      className="row rename"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await onRename(title.trim())) onDone();
      }}
    >
      <input aria-label="Session title" value={title} autoFocus onChange={(e) => setTitle(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && (e.preventDefault(), onDone())} />
      <button type="submit" className="primary" disabled={!title.trim()}>
        Save title
      </button>
      <button type="button" onClick={onDone}>
        Cancel
      </button>
    </form>
  );
}

/** "↳ forked from …" or "↳ child of …": opens the parent at the row the session branched at. */
function ParentLink({ session, parentTitle, onOpen }: { session: SessionSummary; parentTitle: string | undefined; onOpen: () => void }) {
  return (
    <button type="button" className="linklike fork-of" onClick={onOpen} title={`Open ${parentTitle ?? 'the parent session'} at row ${session.fork_seq}`}>
      {session.parent_call_id ? (
        <>
          ↳ child of <span className="fork-parent">{parentTitle ?? 'a deleted session'}</span> (task call{session.fork_seq > 0 ? ` at #${session.fork_seq}` : ''})
        </>
      ) : (
        <>
          ↳ forked from <span className="fork-parent">{parentTitle ?? 'a deleted session'}</span> at #{session.fork_seq}
        </>
      )}
    </button>
  );
}

interface ConfirmProps {
  title: string;
  forkFolder?: string;
  onDelete: () => Promise<boolean>;
  onDeleteWithFolder?: () => Promise<boolean>;
  onClose: () => void;
}

/** "Delete session?": delete, delete with the fork's folder, or cancel. */
function ConfirmDelete({ title, forkFolder, onDelete, onDeleteWithFolder, onClose }: ConfirmProps) {
  // The dialog closes first: the session it names is going away.
  const closeThen = (remove: () => Promise<boolean>) => async () => {
    onClose();
    await remove();
  };
  const dialog = useModalFocus<HTMLDivElement>();
  return (
    <div ref={dialog} className="confirm" role="alertdialog" aria-label="Delete session?" aria-modal="true">
      <p>
        Delete “{title || 'Untitled'}” and all its rows? This cannot be undone.
      </p>
      {forkFolder && (
        <p>
          Its folder <code>{forkFolder}</code> goes too (with its git worktree and branch) unless it holds work neither committed nor brought back; remove it
          anyway with the second button.
        </p>
      )}
      <div className="row">
        <button type="button" className="danger" onClick={closeThen(onDelete)}>
          Delete permanently
        </button>
        {forkFolder && onDeleteWithFolder && (
          <button type="button" className="danger" onClick={closeThen(onDeleteWithFolder)}>
            Delete and remove its folder
          </button>
        )}
        <button type="button" autoFocus onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}
