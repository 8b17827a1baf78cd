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
  const seen = useRef(0); // the highest seq looked at
  const load = useCallback(async (id: string) => {
    try {
      setPlan(await api.plan(id));
      setError('');
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => {
    setPlan(null);
    seen.current = 0;
    if (sessionId) void load(sessionId);
  }, [sessionId, load]);
  useEffect(() => {
    if (!sessionId) return;
    const fresh = rows.filter((r) => r.seq > seen.current);
    if (rows.length > 0) seen.current = Math.max(seen.current, rows[rows.length - 1].seq);
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
