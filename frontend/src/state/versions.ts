// Where the version switchers go. An edit or a regeneration is a fork: the
// versions of a row are sibling sessions sharing the rows before it (Go's Sessions.Branches).
// These pure functions place each branch on the row it is a version of.
import type { Branch, Row } from '../api/types';

/** The version switcher of one row: which session this is of how many. */
export interface Versions {
  sessions: string[];
  index: number;
}

/**
 * Where each run's branch point is: the seq of the message that started it (a regeneration
 * keeps that message and forks right after it), or the row before the run when it started
 * with no message of its own (a retry, or a regeneration's own run).
 */
export function runStarts(rows: Row[]): Map<string, number> {
  const at = new Map<string, number>();
  for (const r of rows) {
    if (!r.run_id || at.has(r.run_id)) continue;
    at.set(r.run_id, r.kind === 'user' ? r.seq : r.seq - 1);
  }
  return at;
}

/** A final reply: the model's answer with no tool call, the row Regenerate is offered on. */
export function isFinalReply(r: Row): boolean {
  if (r.kind !== 'assistant') return false;
  const p = r.payload;
  return (p.tool_calls ?? []).length === 0 && Boolean(p.text);
}

/**
 * The switcher each row shows, by seq: the person's message at seq n shows the versions
 * forked at n-1 (edits); a final reply shows the versions forked at its run's start
 * (regenerations). A row with one version shows none.
 */
export function placeVersions(rows: Row[], branches: Branch[]): Map<number, Versions> {
  const out = new Map<number, Versions>();
  if (branches.length === 0) return out;
  const byAt = new Map(branches.filter((b) => (b.sessions ?? []).length > 1).map((b) => [b.at, b]));
  const starts = runStarts(rows);
  const placed = new Set<number>();
  for (const r of rows) {
    let at: number | undefined;
    if (r.kind === 'user') at = r.seq - 1;
    else if (isFinalReply(r)) at = starts.get(r.run_id);
    const b = at === undefined ? undefined : byAt.get(at);
    // One switcher per branch: on the first row it fits (a run with two final replies keeps it on the first).
    if (!b || placed.has(b.at)) continue;
    placed.add(b.at);
    out.set(r.seq, { sessions: b.sessions ?? [], index: b.index });
  }
  return out;
}
