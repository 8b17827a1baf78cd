import type { Session } from '../api/types';

interface Props {
  sessions: Session[];
  selected: string | null;
  onSelect: (id: string) => void;
  onNew: () => void;
  onSettings: () => void;
}

/** The sessions column: every session, newest first. */
export function SessionList({ sessions, selected, onSelect, onNew, onSettings }: Props) {
  return (
    <nav className="sessions" aria-label="Sessions">
      <div className="sessions-head">
        <span className="brand">Loopdesk</span>
        <button type="button" onClick={onNew} aria-label="New session" title="New session">
          + New
        </button>
      </div>
      <ul>
        {sessions.map((s) => (
          <li key={s.id}>
            <button
              type="button"
              className={s.id === selected ? 'session current' : 'session'}
              aria-current={s.id === selected ? 'page' : undefined}
              onClick={() => onSelect(s.id)}
            >
              <span className="session-title">{s.title || 'Untitled'}</span>
              <span className="session-time">{formatTime(s.updated_at)}</span>
            </button>
          </li>
        ))}
        {sessions.length === 0 && <li className="empty">No sessions yet.</li>}
      </ul>
      <button type="button" className="settings-link" onClick={onSettings}>
        Settings
      </button>
    </nav>
  );
}

function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const today = new Date();
  if (d.toDateString() === today.toDateString()) {
    return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  }
  return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}
