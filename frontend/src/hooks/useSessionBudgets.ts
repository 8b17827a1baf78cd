import { useEffect, useState } from 'react';
import { api } from '../api/backend';
import { errorMessage, type SessionBudgets as Own } from '../api/types';

export const SESSION_BUDGET_FIELDS: { key: keyof Own; label: string; step: string }[] = [
  { key: 'max_turns', label: 'Max turns', step: '1' },
  { key: 'max_tool_calls', label: 'Max tool calls', step: '1' },
  { key: 'max_tokens', label: 'Max tokens', step: '1' },
  { key: 'max_cost_usd', label: 'Max cost (USD)', step: '0.01' },
  { key: 'timeout_seconds', label: 'Time limit (seconds)', step: '1' },
];

/** The fields as typed: "" is the saved default. */
export type BudgetDraft = Record<keyof Own, string>;

const toDraft = (b: Own): BudgetDraft =>
  Object.fromEntries(SESSION_BUDGET_FIELDS.map((f) => [f.key, b[f.key] === null || b[f.key] === undefined ? '' : String(b[f.key])])) as BudgetDraft;

/** The draft as budgets: an empty field is null (the saved default); a bad number is reported. */
function parse(d: BudgetDraft): Own | string {
  const out = {} as Own;
  for (const f of SESSION_BUDGET_FIELDS) {
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
 * The session's own budgets as a draft of typed fields (null until Go answered), edited field
 * by field and saved as a whole; note says "Saved.", a bad number, or Go's refusal.
 */
export function useSessionBudgets(sessionID: string) {
  const [draft, setDraft] = useState<BudgetDraft | null>(null);
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
  const setField = (key: keyof Own, value: string) => {
    setNote('');
    setDraft((d) => d && { ...d, [key]: value });
  };
  const save = async () => {
    if (!draft) return;
    const b = parse(draft);
    if (typeof b === 'string') return setNote(b);
    try {
      setDraft(toDraft(await api.setSessionBudgets(sessionID, b)));
      setNote('Saved.');
    } catch (e) {
      setNote(errorMessage(e));
    }
  };
  return { draft, note, setField, save };
}
