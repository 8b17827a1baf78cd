import { useState, type KeyboardEvent } from 'react';
import type { QueuedMessage } from '../api/events';

interface Props {
  running: boolean;
  disabled: boolean;
  /** Messages sent during the run, waiting for its next tool boundary. */
  queued?: QueuedMessage[];
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
  onRemoveQueued?: (id: string) => void;
  /** Sends a message left queued (no run going: after a Stop, a bound or a restart). */
  onSendQueued?: (id: string) => void;
}

/**
 * The message box: Enter sends, Shift+Enter adds a line. While a run goes on it stays usable:
 * Send queues the message (Go delivers it at the run's next tool boundary), shown above the
 * box, removable until delivered; Stop still stops, and leaves what is queued queued. With no
 * run going, a message left queued (by a Stop, a bound, a crash or a restart) can be sent now
 * (it starts a run; the rest follow in order) or removed.
 */
export function MessageBox({ running, disabled, queued = [], onSend, onStop, onRemoveQueued, onSendQueued }: Props) {
  const [text, setText] = useState('');

  const submit = async () => {
    const t = text.trim();
    if (!t || disabled) return;
    // Keep the text until Go has stored (or queued) it: a failed send loses nothing. Clear only
    // what was sent: text typed while the send was on its way stays in the box.
    if (await onSend(t)) setText((cur) => (cur.trim() === t ? '' : cur));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  const placeholder = disabled
    ? 'Configure an endpoint in Settings first'
    : running
      ? 'Queue a message: the agent reads it after its current step (Enter)'
      : 'Message the agent (Enter to send, Shift+Enter for a new line)';
  return (
    <div className="message-area">
      {queued.length > 0 && (
        <ul className="queued" aria-label="Queued messages">
          {queued.map((q) => (
            <li key={q.id} className="queued-item">
              <span className="queued-tag">queued</span>
              <span className="queued-text">{q.text}</span>
              {!running && onSendQueued && (
                <button type="button" className="small" disabled={disabled} aria-label={`Send now: ${q.text}`} onClick={() => onSendQueued(q.id)}>
                  Send now
                </button>
              )}
              {onRemoveQueued && (
                <button type="button" className="small" aria-label={`Remove queued message: ${q.text}`} onClick={() => onRemoveQueued(q.id)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <form
        className="message-box"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <textarea
          aria-label="Message"
          placeholder={placeholder}
          value={text}
          rows={3}
          autoFocus
          disabled={disabled}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <span className="message-buttons">
          <button type="submit" disabled={disabled || text.trim() === ''} title={running ? 'Queue for the next step' : undefined}>
            {running ? 'Queue' : 'Send'}
          </button>
          {running && (
            <button type="button" className="stop" onClick={onStop}>
              Stop
            </button>
          )}
        </span>
      </form>
    </div>
  );
}
