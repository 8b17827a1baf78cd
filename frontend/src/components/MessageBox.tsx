import { useEffect, useId, useRef, useState, type Dispatch, type KeyboardEvent, type ReactNode, type SetStateAction } from 'react';
import type { QueuedMessage } from '../api/types';
import type { ImageInput, PaletteEntry } from '../api/types';
import { useDiskRoom } from '../hooks/useDiskRoom';
import { matchEntries, paletteQuery, parseCommand } from '../lib/palette';
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
  /** Sends a message left queued (no run going: after a Stop, a bound or a restart). */
  onSendQueued?: (id: string) => void;
  /** Loads the "/" palette (command templates and skills of the session's folder). */
  loadPalette?: () => Promise<PaletteEntry[]>;
  /** Sends "/name args" as a command: Go expands it and records it on the row. */
  onCommand?: (name: string, args: string) => Promise<boolean>;
  /** "Run in a new session" (Ctrl+Shift+Enter): the text starts a run in a new session beside this one. */
  onSendNew?: (text: string) => Promise<boolean>;
}

/**
 * The message box: Enter sends, Shift+Enter adds a line. While a run goes on it stays usable:
 * Send queues the message (Go delivers it at the run's next tool boundary), shown above the
 * box, removable until delivered; Stop still stops, and leaves what is queued queued. With no
 * run going, a message left queued (by a Stop, a bound, a crash or a restart) can be sent now
 * (it starts a run; the rest follow in order) or removed.
 */
export function MessageBox({ running, disabled, queued = [], onSend, onStop, onRemoveQueued, onSendQueued, loadPalette, onCommand, onSendNew, textOnly = false }: Props) {
  const [text, setText] = useState('');
  const palette = usePalette(text, loadPalette);
  const [images, setImages] = useState<Attached[]>([]);
  const [refused, setRefused] = useState('');
  const room = useDiskRoom(running);

  const attach = async (files: FileList | File[]) => {
    const got = await readImages(files);
    setImages((cur) => [...cur, ...got.images]);
    setRefused(got.refused.length ? `Not an image Loopdesk takes (PNG, JPEG, WebP, GIF): ${got.refused.join(', ')}` : '');
  };

  const submit = async () => {
    const t = text.trim();
    if ((!t && images.length === 0) || disabled) return;
    const sent = images;
    const cmd = onCommand && sent.length === 0 ? parseCommand(t, palette.entries) : null;
    // Keep the text until Go has stored (or queued) it: a failed send loses nothing. Clear only
    // what was sent: text typed while the send was on its way stays in the box.
    const ok =
      cmd && onCommand
        ? await onCommand(cmd.name, cmd.args)
        : sent.length > 0
          ? await onSend(t, sent.map(({ name, data }) => ({ name, data })))
          : await onSend(t);
    if (ok) {
      setText((cur) => (cur.trim() === t ? '' : cur));
      setImages((cur) => cur.filter((im) => !sent.includes(im)));
    }
  };

  const sendNew = useSendNew(text, setText, disabled, onSendNew);

  const choose = (e: PaletteEntry) => {
    if (e.error === '') setText(`/${e.name} `);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (palette.open && palette.onKey(e, choose)) return;
    if (sendNew.onKey(e)) return;
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
      <QueuedList queued={queued} running={running} disabled={disabled} onSendQueued={onSendQueued} onRemoveQueued={onRemoveQueued} />
      {palette.open && <CommandPalette id={palette.id} matches={palette.matches} active={palette.active} loaded={palette.loaded} onChoose={choose} />}
      <AttachedImages images={images} textOnly={textOnly} onRemove={(id) => setImages((cur) => cur.filter((im) => im.id !== id))} />
      <BoxNotes refused={refused} room={room} />
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
          aria-controls={palette.open ? palette.id : undefined}
          aria-activedescendant={palette.open && palette.matches[palette.active] ? `${palette.id}-${palette.active}` : undefined}
        />
        <SendButtons running={running} disabled={disabled} empty={text.trim() === '' && images.length === 0} onAttach={(f) => void attach(f)} onStop={onStop}>
          {onSendNew && <SendMenu enabled={sendNew.can} onSendNew={() => void sendNew.send()} />}
        </SendButtons>
      </form>
    </div>
  );
}

/** What stands in the way of the next send: files that are not images, a disk short of room. */
function BoxNotes({ refused, room }: { refused: string; room: ReturnType<typeof useDiskRoom> }) {
  return (
    <>
      {refused && (
        <p className="note" role="alert">
          {refused}
        </p>
      )}
      {room?.message && (
        <p className="note disk-room" role={room.full ? 'alert' : 'status'}>
          {room.message}
        </p>
      )}
    </>
  );
}

/** Messages waiting for the run's next tool boundary (or, with no run going, to be sent now). */
function QueuedList({ queued, running, disabled, onSendQueued, onRemoveQueued }: Pick<Props, 'running' | 'disabled' | 'onSendQueued' | 'onRemoveQueued'> & { queued: QueuedMessage[] }) {
  if (queued.length === 0) return null;
  return (
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
  );
}

/**
 * Attach image: a real button (in the Tab order, announced as a button) that opens the file
 * chooser of a hidden file input; the input keeps the name the tests and drops use.
 */
function AttachButton({ disabled, onAttach }: { disabled: boolean; onAttach: (files: FileList) => void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="small attach" disabled={disabled} title="PNG, JPEG, WebP or GIF; or paste or drop one" onClick={() => input.current?.click()}>
        Attach image
      </button>
      <input
        ref={input}
        type="file"
        aria-label="Attach image"
        accept={IMAGE_TYPES.join(',')}
        multiple
        hidden
        disabled={disabled}
        onChange={(e) => {
          if (e.target.files) onAttach(e.target.files);
          e.target.value = ''; // the same file can be attached again
        }}
      />
    </>
  );
}

/** Attach image, Send (Queue while a run goes on), then children (more ways to send), and Stop. */
function SendButtons({ running, disabled, empty, onAttach, onStop, children }: { running: boolean; disabled: boolean; empty: boolean; onAttach: (files: FileList) => void; onStop: () => void; children?: ReactNode }) {
  return (
    <span className="message-buttons">
      <AttachButton disabled={disabled || running} onAttach={onAttach} />
      <button type="submit" disabled={disabled || empty} title={running ? 'Queue for the next step' : undefined}>
        {running ? 'Queue' : 'Send'}
      </button>
      {children}
      {running && (
        <button type="button" className="stop" onClick={onStop}>
          Stop
        </button>
      )}
    </span>
  );
}

/**
 * "Run in a new session": whether it can go now, sending it (Go took it: the text is cleared,
 * unless more was typed meanwhile) and Ctrl+Shift+Enter. A new session takes the text only:
 * attached images stay in the box for this session.
 */
function useSendNew(text: string, setText: Dispatch<SetStateAction<string>>, disabled: boolean, onSendNew?: (text: string) => Promise<boolean>) {
  const can = onSendNew !== undefined && !disabled && text.trim() !== '';
  const send = async () => {
    const t = text.trim();
    if (can && onSendNew && (await onSendNew(t))) setText((cur) => (cur.trim() === t ? '' : cur));
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!onSendNew || e.key !== 'Enter' || !e.shiftKey || !(e.ctrlKey || e.metaKey)) return false;
    e.preventDefault();
    void send();
    return true;
  };
  return { can, send, onKey };
}

/** More ways to send: a menu button whose one item starts the message in a new session. */
function SendMenu({ enabled, onSendNew }: { enabled: boolean; onSendNew: () => void }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const item = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (open) item.current?.focus();
  }, [open]);
  return (
    <span
      className="send-menu"
      onBlur={(e) => !e.currentTarget.contains(e.relatedTarget as Node | null) && setOpen(false)}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.stopPropagation();
          setOpen(false);
        }
      }}
    >
      <button type="button" className="small" aria-label="More ways to send" title="More ways to send" aria-haspopup="menu" aria-expanded={open} aria-controls={open ? id : undefined} onClick={() => setOpen((o) => !o)}>
        ▾
      </button>
      {open && (
        <div className="menu" role="menu" id={id}>
          <button
            type="button"
            role="menuitem"
            ref={item}
            aria-disabled={!enabled}
            title={enabled ? undefined : 'Type a message first'}
            onClick={() => {
              if (!enabled) return;
              setOpen(false);
              onSendNew();
            }}
          >
            Run in a new session <kbd>Ctrl+Shift+Enter</kbd>
          </button>
        </div>
      )}
    </span>
  );
}

/**
 * The palette's state: entries loaded from Go each time "/" opens it (load must be stable),
 * the matches of what follows it, and the active one (arrows move, Enter or Tab choose,
 * Escape closes).
 */
function usePalette(text: string, load?: () => Promise<PaletteEntry[]>) {
  const id = useId();
  const [entries, setEntries] = useState<PaletteEntry[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [active, setActive] = useState(0);
  const [closedAt, setClosedAt] = useState<string | null>(null);
  const query = load ? paletteQuery(text) : null;
  const opening = query !== null;
  useEffect(() => {
    if (!opening || !load) return;
    let live = true;
    setLoaded(false);
    load().then(
      (es) => {
        if (!live) return;
        setEntries(es);
        setLoaded(true);
      },
      () => live && setLoaded(true),
    );
    return () => {
      live = false;
    };
  }, [opening, load]);
  const matches = query === null ? [] : matchEntries(entries, query);
  const open = query !== null && closedAt !== text;
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>, choose: (p: PaletteEntry) => void): boolean => {
    const n = matches.length;
    if (e.key === 'Escape') {
      setClosedAt(text);
    } else if (e.key === 'ArrowDown' && n > 0) {
      setActive((a) => (a + 1) % n);
    } else if (e.key === 'ArrowUp' && n > 0) {
      setActive((a) => (a - 1 + n) % n);
    } else if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && n > 0) {
      choose(matches[Math.min(active, n - 1)]);
      setActive(0);
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  };
  return { id, open, entries, matches, active: Math.min(active, Math.max(0, matches.length - 1)), loaded, onKey };
}

function CommandPalette({ id, matches, active, loaded, onChoose }: { id: string; matches: PaletteEntry[]; active: number; loaded: boolean; onChoose: (e: PaletteEntry) => void }) {
  return (
    <ul className="command-palette" id={id} role="listbox" aria-label="Commands and skills">
      {loaded && matches.length === 0 && <li className="muted">No command or skill matches.</li>}
      {matches.map((e, i) => (
        <li
          key={e.path}
          id={`${id}-${i}`}
          role="option"
          aria-selected={i === active}
          aria-disabled={e.error !== ''}
          className={`palette-item${i === active ? ' active' : ''}${e.error ? ' invalid' : ''}`}
          onMouseDown={(ev) => {
            ev.preventDefault(); // keep the focus in the message box
            onChoose(e);
          }}
        >
          <span className="palette-name">/{e.name}</span>
          {e.argument_hint && <span className="palette-hint"> {e.argument_hint}</span>}
          <span className="palette-kind"> {e.kind}</span>
          <span className="palette-description"> {e.error ? `cannot be used: ${e.error}` : e.description}</span>
        </li>
      ))}
    </ul>
  );
}
