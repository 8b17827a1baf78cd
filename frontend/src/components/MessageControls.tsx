import { useState, type KeyboardEvent, type ReactNode } from 'react';
import { useCopy } from '../hooks/useSystem';
import type { Versions } from '../state/versions';
import type { AbandonedFiles, ImageRef } from '../api/types';
import { useBranchFiles } from '../hooks/useBranchFiles';
import { RowImages } from './Images';
import { CancelButton } from './CancelButton';

/**
 * What the conversation's message controls do; App wires them to Go. Every edit or
 * regeneration is a fork: the original is never overwritten.
 */
export interface ConversationControls {
  /**
   * Forks before the message at seq and sends text there; true when the fork's run started.
   * restoreFiles: the files the later rows changed go back first.
   */
  edit: (seq: number, text: string, restoreFiles: boolean) => Promise<boolean>;
  /** Runs again, in a fork, the run that made the reply at seq; true when it started. */
  regenerate: (seq: number, restoreFiles: boolean) => Promise<boolean>;
  /** What an edit of the message at seq would abandon in the folder (null: nothing known). */
  editFiles: (seq: number) => Promise<AbandonedFiles | null>;
  /** What regenerating the reply at seq would abandon in the folder. */
  regenerateFiles: (seq: number) => Promise<AbandonedFiles | null>;
  /** Opens another version (a sibling session) at the same row. */
  showVersion: (sessionID: string, seq: number) => void;
}

/** A button that copies text; it says "Copied" for a moment so the person knows it worked. */
export function CopyButton({ label, text, children = 'Copy' }: { label: string; text: () => string; children?: ReactNode }) {
  const { done, copy } = useCopy();
  return (
    <button
      type="button"
      className="small copy"
      aria-label={label}
      title={label}
      onClick={() => void copy(text())}
    >
      {done || children}
    </button>
  );
}

/** "Previous version", "2 / 3", "Next version": moves between sibling sessions in place. */
export function VersionSwitcher({ versions, seq, onShow }: { versions: Versions; seq: number; onShow: ConversationControls['showVersion'] }) {
  const { sessions, index } = versions;
  return (
    <span className="versions" role="group" aria-label="Versions">
      <button type="button" className="small" aria-label="Previous version" disabled={index <= 0} onClick={() => onShow(sessions[index - 1], seq)}>
        ‹
      </button>
      <span className="version-label">
        {index + 1} / {sessions.length}
      </span>
      <button
        type="button"
        className="small"
        aria-label="Next version"
        disabled={index >= sessions.length - 1}
        onClick={() => onShow(sessions[index + 1], seq)}
      >
        ›
      </button>
    </span>
  );
}

/**
 * "Also restore files to before this message" and the files it is about. Ticked, the files
 * go back (a file changed since by someone else makes the restore refuse, and is named);
 * unticked, they stay and the model is told which.
 */
export function RestoreFilesChoice({ files, restore, onChange }: { files: AbandonedFiles | null; restore: boolean; onChange: (restore: boolean) => void }) {
  const changed = files?.changed ?? [];
  if (!files?.offer || changed.length === 0) return null;
  const conflicts = files.conflicts ?? [];
  return (
    <div className="restore-files">
      <label>
        <input type="checkbox" checked={restore} onChange={(e) => onChange(e.target.checked)} />
        Also restore files to before this message
      </label>
      <p className="hint">
        {restore ? 'Goes back: ' : 'Kept as they are, and the model is told: '}
        {changed.map((c) => `${c.path} (${c.change})`).join(', ')}
      </p>
      {restore && conflicts.length > 0 && (
        <p className="hint bad">
          Changed since by someone else, so the restore will refuse: {conflicts.map((c) => `${c.path} (by ${c.by})`).join(', ')}. Untick to keep the files.
        </p>
      )}
    </div>
  );
}

interface UserProps {
  seq: number;
  text: string;
  /** The slash command or skill the text was expanded from. */
  command?: string;
  images?: ImageRef[];
  /** Images a provider refused (left out of the context): the reason, by hash. */
  excluded?: Record<string, string>;
  className: string;
  versions?: Versions;
  controls?: ConversationControls;
}

/** One of the person's messages, with Edit message (in place), Copy message and its versions. */
export function UserMessage({ seq, text, command, images, excluded, className, versions, controls }: UserProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const branch = useBranchFiles();
  const send = async () => {
    if (!controls || draft === null || !draft.trim() || busy) return;
    setBusy(true);
    const ok = await controls.edit(seq, draft.trim(), branch.restore);
    setBusy(false);
    if (ok) setDraft(null);
  };
  const startEdit = () => {
    setDraft(text);
    if (controls) void branch.fetch(() => controls.editFiles(seq));
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    } else if (e.key === 'Escape') {
      e.stopPropagation(); // Esc closes the editor, and stops no run
      setDraft(null);
    }
  };
  return (
    <article className={`msg user${className}`} aria-label="You" data-seq={seq}>
      {command && <p className="from-command muted">{command}</p>}
      {images && images.length > 0 && <RowImages images={images} excluded={excluded} />}
      {draft === null ? (
        text && <p className="plain">{text}</p>
      ) : (
        <form
          className="edit-message"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <textarea aria-label="Edit message text" value={draft} rows={3} autoFocus onChange={(e) => setDraft(e.target.value)} onKeyDown={onKeyDown} />
          <p className="hint">Sending forks the session before this message; the original stays as it is.</p>
          <RestoreFilesChoice files={branch.files} restore={branch.restore} onChange={branch.setRestore} />
          <span className="row">
            <button type="submit" className="primary" disabled={busy || !draft.trim()}>
              Send edit
            </button>
            <CancelButton onCancel={() => setDraft(null)} />
          </span>
        </form>
      )}
      {draft === null && (
        <div className="msg-actions">
          {versions && controls && <VersionSwitcher versions={versions} seq={seq} onShow={controls.showVersion} />}
          {controls && (
            <button type="button" className="small" aria-label="Edit message" onClick={startEdit}>
              Edit
            </button>
          )}
          <CopyButton label="Copy message" text={() => text} />
        </div>
      )}
    </article>
  );
}

/**
 * Under a reply: its versions, Regenerate (final replies only) and Copy message. Regenerate
 * asks first only when the run it replaces changed files: the dialog offers to restore them.
 */
export function ReplyActions({ seq, text, final, versions, controls }: { seq: number; text: string; final: boolean; versions?: Versions; controls?: ConversationControls }) {
  const branch = useBranchFiles();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const regenerate = async (restore: boolean) => {
    setBusy(true);
    const ok = await controls!.regenerate(seq, restore);
    setBusy(false);
    if (ok) {
      setAsking(false);
      branch.clear();
    }
  };
  const start = async () => {
    if (!controls || busy) return;
    const files = await branch.fetch(() => controls.regenerateFiles(seq));
    if (files?.offer) setAsking(true);
    else void regenerate(false);
  };
  if (asking && controls) {
    return (
      <div
        className="regenerate-dialog"
        role="dialog"
        aria-label="Regenerate reply"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation(); // Esc closes the dialog, and stops no run
            setAsking(false);
          }
        }}
      >
        <p className="hint">Runs again from the same message, in a new version; this one stays as it is.</p>
        <RestoreFilesChoice files={branch.files} restore={branch.restore} onChange={branch.setRestore} />
        <span className="row">
          <button type="button" className="primary" disabled={busy} autoFocus onClick={() => void regenerate(branch.restore)}>
            Regenerate
          </button>
          <CancelButton onCancel={() => setAsking(false)} />
        </span>
      </div>
    );
  }
  return (
    <div className="msg-actions">
      {versions && controls && <VersionSwitcher versions={versions} seq={seq} onShow={controls.showVersion} />}
      {final && controls && (
        <button type="button" className="small" aria-label="Regenerate" title="Run again from the same message, in a new version" disabled={busy} onClick={() => void start()}>
          Regenerate
        </button>
      )}
      {text && <CopyButton label="Copy message" text={() => text} />}
    </div>
  );
}
