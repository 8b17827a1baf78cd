import { useEffect, useState } from 'react';
import { api } from '../api/backend';
import { errorMessage, type Budgets, type SessionBudgets as Own } from '../api/types';

const FIELDS: { key: keyof Own; label: string; step: string }[] = [
  { key: 'max_turns', label: 'Max turns', step: '1' },
  { key: 'max_tool_calls', label: 'Max tool calls', step: '1' },
  { key: 'max_tokens', label: 'Max tokens', step: '1' },
  { key: 'max_cost_usd', label: 'Max cost (USD)', step: '0.01' },
  { key: 'timeout_seconds', label: 'Time limit (seconds)', step: '1' },
];

type Draft = Record<keyof Own, string>;

const toDraft = (b: Own): Draft =>
  Object.fromEntries(FIELDS.map((f) => [f.key, b[f.key] === null || b[f.key] === undefined ? '' : String(b[f.key])])) as Draft;

/** The draft as budgets: an empty field is null (the saved default); a bad number is reported. */
function parse(d: Draft): Own | string {
  const out = {} as Own;
  for (const f of FIELDS) {
    const v = d[f.key].trim();
    if (v === '') {
      out[f.key] = null;
      continue;
    }
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) return `${f.label} must be a number of at least 0 (0: no limit).`;
    out[f.key] = n;
  }
  return out;
}

/**
 * The session's own budgets, in its header: each field empty takes the saved default
 * (shown as the placeholder). Saved with the session, they bound its next run in the window
 * and `loopdesk run --session` (a flag there still wins).
 */
export function SessionBudgets({ sessionID, defaults }: { sessionID: string; defaults?: Budgets }) {
  const [draft, setDraft] = useState<Draft | null>(null);
  const [note, setNote] = useState('');
  useEffect(() => {
    let live = true;
    api
      .sessionBudgets(sessionID)
      .then((b) => live && setDraft(toDraft(b)))
      .catch((e) => live && setNote(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [sessionID]);
  if (!draft) return null;
  const custom = FIELDS.some((f) => draft[f.key] !== '');
  const save = async () => {
    const b = parse(draft);
    if (typeof b === 'string') return setNote(b);
    try {
      setDraft(toDraft(await api.setSessionBudgets(sessionID, b)));
      setNote('Saved.');
    } catch (e) {
      setNote(errorMessage(e));
    }
  };
  return (
    <details className="session-budgets">
      <summary>Budgets: {custom ? 'this session’s own' : 'the saved defaults'}</summary>
      <form
        className="row"
        aria-label="Session budgets"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
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
              onChange={(e) => {
                setNote('');
                setDraft({ ...draft, [f.key]: e.target.value });
              }}
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
