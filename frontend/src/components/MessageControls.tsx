import { useState, type KeyboardEvent, type ReactNode } from 'react';
import { api } from '../api/backend';
import type { Versions } from '../state/versions';
import type { ImageRef } from '../api/types';
import { RowImages } from './Images';

/**
 * What the conversation's message controls do (issue 20); App wires them to Go. Every edit or
 * regeneration is a fork: the original is never overwritten.
 */
export interface ConversationControls {
  /** Forks before the message at seq and sends text there; true when the fork's run started. */
  edit: (seq: number, text: string) => Promise<boolean>;
  /** Runs again, in a fork, the run that made the reply at seq. */
  regenerate: (seq: number) => void;
  /** Opens another version (a sibling session) at the same row. */
  showVersion: (sessionID: string, seq: number) => void;
}

/** A button that copies text; it says "Copied" for a moment so the person knows it worked. */
export function CopyButton({ label, text, children = 'Copy' }: { label: string; text: () => string; children?: ReactNode }) {
  const [done, setDone] = useState<'' | 'Copied' | 'Copy failed'>('');
  return (
    <button
      type="button"
      className="small copy"
      aria-label={label}
      title={label}
      onClick={async () => {
        setDone((await api.copyText(text())) ? 'Copied' : 'Copy failed');
        setTimeout(() => setDone(''), 1500);
      }}
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
  const send = async () => {
    if (!controls || draft === null || !draft.trim() || busy) return;
    setBusy(true);
    const ok = await controls.edit(seq, draft.trim());
    setBusy(false);
    if (ok) setDraft(null);
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
          <span className="row">
            <button type="submit" className="primary" disabled={busy || !draft.trim()}>
              Send edit
            </button>
            <button type="button" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </span>
        </form>
      )}
      {draft === null && (
        <div className="msg-actions">
          {versions && controls && <VersionSwitcher versions={versions} seq={seq} onShow={controls.showVersion} />}
          {controls && (
            <button type="button" className="small" aria-label="Edit message" onClick={() => setDraft(text)}>
              Edit
            </button>
          )}
          <CopyButton label="Copy message" text={() => text} />
        </div>
      )}
    </article>
  );
}

/** Under a reply: its versions, Regenerate (final replies only) and Copy message. */
export function ReplyActions({ seq, text, final, versions, controls }: { seq: number; text: string; final: boolean; versions?: Versions; controls?: ConversationControls }) {
  return (
    <div className="msg-actions">
      {versions && controls && <VersionSwitcher versions={versions} seq={seq} onShow={controls.showVersion} />}
      {final && controls && (
        <button type="button" className="small" aria-label="Regenerate" title="Run again from the same message, in a new version" onClick={() => controls.regenerate(seq)}>
          Regenerate
        </button>
      )}
      {text && <CopyButton label="Copy message" text={() => text} />}
    </div>
  );
}
