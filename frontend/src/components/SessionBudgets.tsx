import type { Budgets } from '../api/types';
import { SESSION_BUDGET_FIELDS as FIELDS, useSessionBudgets } from '../hooks/useSessionBudgets';
import { submitted } from '../lib/forms';

/**
 * The session's own budgets, in its header: each field empty takes the saved default
 * (shown as the placeholder). Saved with the session, they bound its next run in the window
 * and `loopdesk run --session` (a flag there still wins).
 */
export function SessionBudgets({ sessionID, defaults }: { sessionID: string; defaults?: Budgets }) {
  const { draft, note, setField, save } = useSessionBudgets(sessionID);
  if (!draft) return null;
  const custom = FIELDS.some((f) => draft[f.key] !== '');
  return (
    <details className="session-budgets">
      <summary>Budgets: {custom ? 'this session’s own' : 'the saved defaults'}</summary>
      <form
        className="row"
        aria-label="Session budgets"
        noValidate
        onSubmit={submitted(save)}
      >
        {FIELDS.map((f) => (
          <label key={f.key}>
            {f.label}
            <input
              type="number"
              min="0"
              step={f.step}
              value={draft[f.key]}
              placeholder={defaults ? String(defaults[f.key]) : 'default'}
              onChange={(e) => setField(f.key, e.target.value)}
            />
          </label>
        ))}
        <button type="submit">Save budgets</button>
        {note && (
          <span role="status" className="note">
            {note}
          </span>
        )}
      </form>
    </details>
  );
}
