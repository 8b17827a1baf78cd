import { useEffect, useReducer } from 'react';
import { api, type WireEvent } from '../api/backend';
import type { ChildView } from '../api/types';

/** What the window knows of one child session, by the task call that started it. */
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
  /** The child's latest event applied (or read from the journal): an older read never replaces it. */
  seq?: number;
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
      next = { ...cur, step: `running ${String(ev.name)}` };
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
      // The run's own counts (its children's included), as the journal holds them: a card
      // rebuilt from the journal and one fed by events agree.
      next = { ...cur, toolCalls: Number(ev.tool_calls ?? cur.toolCalls), tokens: Number(ev.tokens ?? 0), cost: Number(ev.cost_usd ?? 0) };
      break;
    case 'run_finished':
      next = { ...cur, status: String(ev.status), step: String(ev.status), pending: [] };
      break;
    default:
      return state;
  }
  if (typeof ev.seq === 'number' && ev.seq > (next.seq ?? 0)) next = { ...next, seq: ev.seq };
  return { ...state, [call]: next };
}

/** A child as Go read it from the journal. */
export function fromView(v: ChildView): ChildActivity {
  const pending = (v.pending ?? []).map((p) => ({ call_id: p.call_id, name: p.name, arguments: p.arguments }));
  return { sessionId: v.session_id, status: v.status || 'running', step: v.step || 'starting', toolCalls: v.tool_calls, tokens: v.tokens, cost: v.cost, pending, seq: v.seq };
}

/**
 * Reconciles with Go's read: each child it lists replaces the page's entry unless the page
 * has applied a later event of that child (the read reflects every event up to its seq, so
 * it is then older than what the page shows). The page's entry for the same call but another
 * child session (a task call id repeated in a later run) gives way to the newer read only.
 */
export function childSeed(state: Children, views: ChildView[]): Children {
  let next = state;
  for (const v of views) {
    const cur = next[v.parent_call_id];
    if (cur && cur.sessionId === v.session_id && (cur.seq ?? 0) > v.seq) continue;
    next = { ...next, [v.parent_call_id]: fromView(v) };
  }
  return next;
}

type Action = { ev: WireEvent } | { reset: true } | { seed: ChildView[] };

function reduce(s: Children, a: Action): Children {
  if ('reset' in a) return {};
  if ('seed' in a) return childSeed(s, a.seed);
  return childStep(s, a.ev);
}

/**
 * The children of the open session: read from the journal when the session opens (so a
 * reloaded page shows a child that is running or done), then followed by their events
 * (parent_session_id).
 */
export function useChildren(sessionId: string | null): Children {
  const [state, dispatch] = useReducer(reduce, {});
  useEffect(() => {
    dispatch({ reset: true });
    if (!sessionId) return;
    let live = true;
    const read = () =>
      api.children(sessionId).then(
        (views) => live && dispatch({ seed: views ?? [] }),
        () => {}, // a card without the journal's view still follows live events; the next read may work
      );
    const off = api.onEvent((ev) => {
      if (ev.parent_session_id === sessionId) dispatch({ ev });
      // The parent's run ended: every child it started has ended and is stored; read them
      // again, so a child event the page missed cannot leave a card behind.
      else if (ev.session_id === sessionId && ev.type === 'run_finished') void read();
    });
    // Subscribed first: an event after the read is applied, one before it is in the read.
    void read();
    return () => {
      live = false;
      off();
    };
  }, [sessionId]);
  return state;
}
