// The inbox's and the board's pure parts: the order of the waiting calls, moving through
// them, and which sessions each board filter shows. Everything here is computed from what
// Go sent; nothing is re-derived from rows.

import type { Activity, InboxApproval, SessionSummary } from '../api/types';

/** Where a session sits on the board (Go: desktop.ActivityState). */
export type BoardState = Activity['state'];

/** The board's filters, in order: every session, then one per state. */
export const BOARD_FILTERS: { id: BoardState | 'all'; label: string }[] = [
  { id: 'all', label: 'All' },
  { id: 'needs_you', label: 'Needs you' },
  { id: 'working', label: 'Working' },
  { id: 'done', label: 'Done' },
  { id: 'failed', label: 'Failed' },
  { id: 'idle', label: 'Idle' },
];

export type BoardFilter = (typeof BOARD_FILTERS)[number]['id'];

/** A waiting call's key: call ids repeat across sessions, never within one. */
export function cardKey(a: Pick<InboxApproval, 'session_id' | 'call_id'>): string {
  return `${a.session_id}:${a.call_id}`;
}

/** The waiting calls, oldest first (the one that has waited longest leads). */
export function byAge(approvals: InboxApproval[]): InboxApproval[] {
  return [...approvals].sort((a, b) => a.requested_at.localeCompare(b.requested_at) || cardKey(a).localeCompare(cardKey(b)));
}

/**
 * The card the selection lands on after moving by (j: +1, k: -1) from current, kept in
 * range; the first card when current is gone (answered meanwhile) or none.
 */
export function moveSelection(keys: string[], current: string | null, by: number): string | null {
  if (keys.length === 0) return null;
  const at = current === null ? -1 : keys.indexOf(current);
  if (at < 0) return keys[0];
  return keys[Math.min(keys.length - 1, Math.max(0, at + by))];
}

/**
 * The selection after the cards changed: the same card while it waits, else the one that
 * took its place (the next, or the last when it was the last).
 */
export function keepSelection(before: string[], after: string[], current: string | null): string | null {
  if (current !== null && after.includes(current)) return current;
  if (after.length === 0) return null;
  if (current === null) return after[0];
  const at = before.indexOf(current);
  const later = before.slice(Math.max(0, at)).find((k) => after.includes(k));
  return later ?? after[after.length - 1];
}

/** A session's state: what Go said, idle when it said nothing (a session made just now). */
export function stateOf(activity: Record<string, Activity>, id: string): BoardState {
  return activity[id]?.state ?? 'idle';
}

/** How many listed sessions each filter shows. */
export function boardCounts(sessions: SessionSummary[], activity: Record<string, Activity>): Record<BoardFilter, number> {
  const out = Object.fromEntries(BOARD_FILTERS.map((f) => [f.id, 0])) as Record<BoardFilter, number>;
  for (const s of sessions) {
    out.all++;
    out[stateOf(activity, s.id)]++;
  }
  return out;
}

/** The sessions a filter shows. */
export function filterSessions(sessions: SessionSummary[], activity: Record<string, Activity>, filter: BoardFilter): SessionSummary[] {
  return filter === 'all' ? sessions : sessions.filter((s) => stateOf(activity, s.id) === filter);
}

/** The window's title: the count of waiting calls, when any. */
export function windowTitle(waiting: number): string {
  return waiting > 0 ? `Loopdesk (${waiting} waiting)` : 'Loopdesk';
}
