// The session list's organising, as pure functions: groups by project, then by recency;
// multi-select with Shift (a range) and Ctrl or ⌘ (one more or one less); what a delete said.
import type { Deleted, SessionSummary } from '../api/types';
import { formatSize } from '../lib/format';

export interface Grouped<N> {
  key: string;
  name: string;
  /** The project of a project's group; null for a recency group (sessions in no project). */
  project: string | null;
  nodes: N[];
}

/**
 * Each project's sessions in a group of their own, the most recently active project first,
 * then the sessions in no project by recency (recency names a session's group, order sorts
 * them). nodes come newest first and keep that order inside a group.
 */
export function groupByProject<N extends { session: SessionSummary }>(nodes: N[], recency: (iso: string) => string, order: readonly string[]): Grouped<N>[] {
  const projects = new Map<string, N[]>();
  const times = new Map<string, N[]>();
  for (const n of nodes) {
    const p = n.session.project ?? '';
    const [m, key] = p ? [projects, p] : [times, recency(n.session.updated_at)];
    const list = m.get(key);
    if (list) list.push(n);
    else m.set(key, [n]);
  }
  return [
    ...[...projects].map(([p, ns]) => ({ key: `project:${p}`, name: p, project: p, nodes: ns })),
    ...order.filter((g) => times.has(g)).map((g) => ({ key: g, name: g, project: null, nodes: times.get(g)! })),
  ];
}

/** The sessions in the order the list shows them, forks after their parent. */
export function shownOrder<N extends { session: SessionSummary; forks: N[] }>(groups: Grouped<N>[]): string[] {
  const out: string[] = [];
  const walk = (n: N) => {
    out.push(n.session.id);
    n.forks.forEach(walk);
  };
  groups.forEach((g) => g.nodes.forEach(walk));
  return out;
}

export interface Selection {
  ids: string[];
  /** Where a Shift-click range starts: the last session clicked. */
  anchor: string | null;
}

export const noSelection: Selection = { ids: [], anchor: null };

/**
 * A Ctrl-click (toggle) adds or takes out one session, starting from the open one; a
 * Shift-click (range) selects every shown session from the anchor to it.
 */
export function clickSelect(sel: Selection, id: string, how: 'toggle' | 'range', order: string[], open: string | null): Selection {
  if (how === 'toggle') {
    const base = sel.ids.length === 0 && open && open !== id ? [open] : sel.ids;
    return { ids: base.includes(id) ? base.filter((x) => x !== id) : [...base, id], anchor: id };
  }
  const anchor = sel.anchor ?? open ?? id;
  const a = order.indexOf(anchor);
  const b = order.indexOf(id);
  if (a < 0 || b < 0) return { ids: [id], anchor: id };
  return { ids: order.slice(Math.min(a, b), Math.max(a, b) + 1), anchor };
}

/** What deleting took and kept, in words: "Deleted 2 sessions: 40 rows, 1.2 MiB. …" */
export function describeDeleted(ds: Deleted[]): string {
  if (ds.length === 0) return '';
  const rows = ds.reduce((n, d) => n + d.rows, 0);
  const bytes = ds.reduce((n, d) => n + d.bytes, 0);
  const parts = [`Deleted ${ds.length === 1 ? '1 session' : `${ds.length} sessions`}: ${rows} row${rows === 1 ? '' : 's'}, ${formatSize(bytes)}.`];
  for (const d of ds) {
    if (d.removed_folder) parts.push(`Removed its folder ${d.removed_folder}${d.branch ? ` and branch ${d.branch}` : ''}.`);
    if (d.kept_folder) parts.push(`Kept the folder ${d.kept_folder}: ${d.kept_reason}.`);
  }
  return parts.join(' ');
}
