import { useState, type KeyboardEvent } from 'react';
import type { QueuedMessage } from '../api/events';
import type { ImageInput } from '../api/types';
import { AttachedImages, IMAGE_TYPES, filesOf, readImages, type Attached } from './Images';

interface Props {
  running: boolean;
  disabled: boolean;
  /** Messages sent during the run, waiting for its next tool boundary. */
  queued?: QueuedMessage[];
  /** images: attached with Attach image, a paste or a drop (sent only when no run goes on). */
  onSend: (text: string, images?: ImageInput[]) => Promise<boolean>;
  /** The model takes no images: the attached ones are kept but not sent (a note says so). */
  textOnly?: boolean;
  onStop: () => void;
  onRemoveQueued?: (id: string) => void;
}

/**
 * The message box: Enter sends, Shift+Enter adds a line. While a run goes on it stays usable:
 * Send queues the message (Go delivers it at the run's next tool boundary), shown above the
 * box, removable until delivered; Stop still stops.
 */
export function MessageBox({ running, disabled, queued = [], onSend, onStop, onRemoveQueued, textOnly = false }: Props) {
  const [text, setText] = useState('');
  const [images, setImages] = useState<Attached[]>([]);
  const [refused, setRefused] = useState('');

  const attach = async (files: FileList | File[]) => {
    const got = await readImages(files);
    setImages((cur) => [...cur, ...got.images]);
    setRefused(got.refused.length ? `Not an image Loopdesk takes (PNG, JPEG, WebP, GIF): ${got.refused.join(', ')}` : '');
  };

  const submit = async () => {
    const t = text.trim();
    if ((!t && images.length === 0) || disabled) return;
    const sent = images;
    // Keep the text until Go has stored (or queued) it: a failed send loses nothing. Clear only
    // what was sent: text typed while the send was on its way stays in the box.
    const ok = sent.length > 0 ? await onSend(t, sent.map(({ name, data }) => ({ name, data }))) : await onSend(t);
    if (ok) {
      setText((cur) => (cur.trim() === t ? '' : cur));
      setImages((cur) => cur.filter((im) => !sent.includes(im)));
    }
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
              {onRemoveQueued && (
                <button type="button" className="small" aria-label={`Remove queued message: ${q.text}`} onClick={() => onRemoveQueued(q.id)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <AttachedImages images={images} textOnly={textOnly} onRemove={(id) => setImages((cur) => cur.filter((im) => im.id !== id))} />
      {refused && (
        <p className="note" role="alert">
          {refused}
        </p>
      )}
      <form
        className="message-box"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
        onDragOver={(e) => e.dataTransfer.types.includes('Files') && e.preventDefault()}
        onDrop={(e) => {
          const files = filesOf(e);
          if (files.length === 0) return;
          e.preventDefault();
          void attach(files);
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
          onPaste={(e) => {
            const files = filesOf(e);
            if (files.length === 0) return; // text pastes as usual
            e.preventDefault();
            void attach(files);
          }}
        />
        <span className="message-buttons">
          <label className={`button small attach${disabled || running ? ' disabled' : ''}`} title="PNG, JPEG, WebP or GIF; or paste or drop one">
            Attach image
            <input
              type="file"
              accept={IMAGE_TYPES.join(',')}
              multiple
              hidden
              disabled={disabled || running}
              onChange={(e) => {
                if (e.target.files) void attach(e.target.files);
                e.target.value = ''; // the same file can be attached again
              }}
            />
          </label>
          <button type="submit" disabled={disabled || (text.trim() === '' && images.length === 0)} title={running ? 'Queue for the next step' : undefined}>
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
