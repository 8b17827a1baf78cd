import type { SessionSummary } from '../api/types';

/**
 * What "Run in a new session" did: the session it started (running in the list; Open goes
 * there), or why it could not start. The person stays where they are until they choose.
 */
export function StartedNote({ started, error, onOpen, onDismiss }: { started: SessionSummary | null; error: string; onOpen: (id: string) => void; onDismiss: () => void }) {
  if (!started && !error) return null;
  return (
    <p className={`started-note${error ? ' bad' : ''}`} role={error ? 'alert' : 'status'}>
      {error ? (
        <span>Could not start a new session: {error}</span>
      ) : (
        started && (
          <>
            <span>
              Started in a new session: <strong>{started.title}</strong>
            </span>
            <button type="button" className="small" onClick={() => onOpen(started.id)}>
              Open
            </button>
          </>
        )
      )}
      <button type="button" className="small" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </p>
  );
}
