import { useEffect, useReducer } from 'react';
import { api, type WireEvent } from '../api/backend';

/** What the window knows of one child session, live, by the task call that started it. */
export interface ChildActivity {
  sessionId: string;
  status: 'running' | string; // a stop reason once finished
  /** What it is doing now, in a few words. */
  step: string;
  toolCalls: number;
  tokens: number;
  cost: number;
  /** Its calls waiting for the person. */
  pending: { call_id: string; name: string; arguments: unknown }[];
}

export type Children = Record<string, ChildActivity>;

const fresh = (sessionId: string): ChildActivity => ({ sessionId, status: 'running', step: 'starting', toolCalls: 0, tokens: 0, cost: 0, pending: [] });

/** The pure step: a child's event (one carrying parent_call_id) updates its call's entry. */
export function childStep(state: Children, ev: WireEvent): Children {
  const call = ev.parent_call_id as string | undefined;
  if (!call) return state;
  const cur = state[call] ?? fresh(ev.session_id);
  let next: ChildActivity = cur;
  switch (ev.type) {
    case 'run_started':
      next = { ...fresh(ev.session_id), step: 'thinking' };
      break;
    case 'tool_started':
      next = { ...cur, step: `running ${String(ev.name)}`, toolCalls: cur.toolCalls + 1 };
      break;
    case 'tool_finished':
    case 'text_delta':
      next = { ...cur, step: 'thinking' };
      break;
    case 'approval_requested':
      next = {
        ...cur,
        step: `waiting for your approval of ${String(ev.name)}`,
        pending: [...cur.pending.filter((p) => p.call_id !== ev.call_id), { call_id: String(ev.call_id), name: String(ev.name), arguments: ev.arguments }],
      };
      break;
    case 'approval_decided':
      next = { ...cur, pending: cur.pending.filter((p) => p.call_id !== ev.call_id) };
      break;
    case 'budget':
      next = { ...cur, tokens: Number(ev.tokens ?? 0), cost: Number(ev.cost_usd ?? 0) };
      break;
    case 'run_finished':
      next = { ...cur, status: String(ev.status), step: String(ev.status), pending: [] };
      break;
    default:
      return state;
  }
  return { ...state, [call]: next };
}

type Action = { ev: WireEvent } | { reset: true };

/** The children of the open session, from their events (parent_session_id). */
export function useChildren(sessionId: string | null): Children {
  const [state, dispatch] = useReducer((s: Children, a: Action) => ('reset' in a ? {} : childStep(s, a.ev)), {});
  useEffect(() => {
    dispatch({ reset: true });
    if (!sessionId) return;
    return api.onEvent((ev) => {
      if (ev.parent_session_id === sessionId) dispatch({ ev });
    });
  }, [sessionId]);
  return state;
}
