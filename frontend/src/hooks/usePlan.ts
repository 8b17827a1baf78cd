import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../api/backend';
import type { PinnedPlan, Plan, Row } from '../api/types';
import { errorMessage } from '../api/types';

/** Whether a row sets the plan: an update_plan call or the person's edit (store.LatestPlan). */
export function setsPlan(r: Row): boolean {
  if (r.kind === 'assistant') return (r.payload?.tool_calls ?? []).some((c) => c.name === 'update_plan');
  return r.kind === 'note' && r.payload?.source === 'plan_edit';
}

/**
 * The session's pinned plan. Go reads it from the rows (store.LatestPlan); it is asked for
 * when the session opens and again when a row arrives that sets one.
 */
export function usePlan(sessionId: string | null, rows: Row[]) {
  const [plan, setPlan] = useState<PinnedPlan | null>(null);
  const [error, setError] = useState('');
  // The highest seq looked at, and of which session: right after a switch the rows are still
  // the previous session's, and its seqs must not hide the new session's first rows.
  const seen = useRef<{ id: string | null; seq: number }>({ id: null, seq: 0 });
  // Only the latest read is shown: an earlier one (the read on open, another session's) may
  // answer after it.
  const asked = useRef(0);
  const load = useCallback(async (id: string) => {
    const n = ++asked.current;
    try {
      const p = await api.plan(id);
      if (n === asked.current) setPlan(p);
      setError('');
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => {
    setPlan(null);
    seen.current = { id: sessionId, seq: 0 };
    if (sessionId) void load(sessionId);
  }, [sessionId, load]);
  useEffect(() => {
    if (!sessionId) return;
    const mine = rows.filter((r) => r.session_id === sessionId);
    const fresh = mine.filter((r) => r.seq > seen.current.seq);
    if (fresh.length === 0) return;
    seen.current = { id: sessionId, seq: Math.max(seen.current.seq, ...fresh.map((r) => r.seq)) };
    if (fresh.some(setsPlan)) void load(sessionId);
  }, [sessionId, rows, load]);
  const edit = useCallback(
    async (p: Plan): Promise<boolean> => {
      if (!sessionId) return false;
      try {
        setPlan(await api.editPlan(sessionId, p));
        setError('');
        return true;
      } catch (e) {
        setError(errorMessage(e));
        return false;
      }
    },
    [sessionId],
  );
  return { plan, error, edit };
}
