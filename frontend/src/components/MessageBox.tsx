import { useState, type KeyboardEvent } from 'react';

interface Props {
  running: boolean;
  disabled: boolean;
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
}

/** The message box: Enter sends, Shift+Enter adds a line. */
export function MessageBox({ running, disabled, onSend, onStop }: Props) {
  const [text, setText] = useState('');

  const submit = async () => {
    const t = text.trim();
    if (!t || running || disabled) return;
    // Keep the text until Go has stored it: a failed send loses nothing.
    if (await onSend(t)) setText('');
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <form
      className="message-box"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <textarea
        aria-label="Message"
        placeholder={disabled ? 'Configure an endpoint in Settings first' : 'Message the agent (Enter to send, Shift+Enter for a new line)'}
        value={text}
        rows={3}
        autoFocus
        disabled={disabled}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      {running ? (
        <button type="button" className="stop" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" disabled={disabled || text.trim() === ''}>
          Send
        </button>
      )}
    </form>
  );
}
