import { useMemo, useState, type ReactNode, type UIEvent } from 'react';
import type { Hit, SessionSummary } from '../api/types';
import { formatTime, splitSnippet } from '../lib/format';
import { groupByProject, shownOrder, type Grouped } from '../state/organise';
import type { ListPaging } from '../hooks/useSessions';
import type { ListOrganise } from './Organise';

interface Props {
  sessions: SessionSummary[];
  selected: string | null;
  query: string;
  onQuery: (q: string) => void;
  hits: Hit[];
  searching: boolean;
  searchError: string;
  onSelect: (id: string) => void;
  onOpenHit: (hit: Hit) => void;
  onNew: () => void;
  /** Import a session export through the file picker. */
  onImport?: () => void;
  onSettings: () => void;
  /** Under the search field (the Inbox button and the board's filters). */
  filter?: ReactNode;
  /** Under a session's title (its current step while it runs). */
  detail?: (s: SessionSummary) => ReactNode;
  /** Projects, multi-select and drag (Organise.tsx); the bar over the list, the archived under it. */
  organise?: ListOrganise;
  organiseBar?: ReactNode;
  archived?: ReactNode;
  /** The list is read a page at a time: the rest comes as the person scrolls (useSessions). */
  paging?: ListPaging;
}

interface Node {
  session: SessionSummary;
  forks: Node[];
}

const GROUPS = ['Today', 'Yesterday', 'Previous 7 days', 'Previous 30 days', 'Older'] as const;

function groupOf(iso: string, now: Date): (typeof GROUPS)[number] {
  const d = new Date(iso);
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const t = d.getTime();
  if (Number.isNaN(t) || t >= startOfToday) return 'Today';
  const day = 24 * 60 * 60 * 1000;
  if (t >= startOfToday - day) return 'Yesterday';
  if (t >= startOfToday - 7 * day) return 'Previous 7 days';
  if (t >= startOfToday - 30 * day) return 'Previous 30 days';
  return 'Older';
}

/**
 * Sessions as a forest: forks and task children under their parent, in the order of the
 * parent's rows they hang under (a fork's row, a child's task call row), oldest first at one
 * row; roots newest first.
 */
export function lineage(sessions: SessionSummary[]): Node[] {
  const byID = new Map(sessions.map((s) => [s.id, { session: s, forks: [] as Node[] }]));
  const roots: Node[] = [];
  for (const n of byID.values()) {
    const parent = n.session.parent_id ? byID.get(n.session.parent_id) : undefined;
    if (parent) parent.forks.push(n);
    else roots.push(n);
  }
  const newest = (a: Node, b: Node) => b.session.updated_at.localeCompare(a.session.updated_at);
  const byRow = (a: Node, b: Node) => a.session.fork_seq - b.session.fork_seq || a.session.created_at.localeCompare(b.session.created_at);
  for (const n of byID.values()) n.forks.sort(byRow);
  return roots.sort(newest);
}

/**
 * The sessions column: New session, full-text search with highlighted
 * snippets, and every session grouped by recency with forks under their parent.
 */
export function SessionBrowser(props: Props) {
  const { sessions, selected, query, onQuery, hits, searching, searchError, onSelect, onOpenHit, onNew, onImport, onSettings, filter, detail, organise } = props;
  const groups = useMemo(() => {
    const now = new Date();
    return groupByProject(lineage(sessions), (iso) => groupOf(iso, now), GROUPS);
  }, [sessions]);
  const order = useMemo(() => shownOrder(groups), [groups]);
  const row: RowProps = { selected, onSelect, detail, organise, order };

  return (
    <nav className="sessions" aria-label="Sessions">
      <div className="sessions-head">
        <span className="brand">Loopdesk</span>
        <button type="button" onClick={onNew} aria-label="New session" title="New session">
          + New
        </button>
        {onImport && (
          <button type="button" className="small" onClick={onImport} aria-label="Import session" title="Import a session export (.jsonl)">
            Import
          </button>
        )}
      </div>
      <div className="search">
        <input type="search" aria-label="Search sessions" placeholder="Search sessions" value={query} onChange={(e) => onQuery(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && query !== '' && (e.preventDefault(), onQuery(''))} />
      </div>
      {filter}
      {props.organiseBar}
      {query.trim() ? (
        <section className="hits" aria-label="Search results" aria-busy={searching}>
          {searchError && (
            <p role="alert" className="bad">
              {searchError}
            </p>
          )}
          {!searching && !searchError && hits.length === 0 && <p className="empty">No matches.</p>}
          <ul>
            {hits.map((h) => (
              <li key={`${h.session_id}:${h.seq}`}>
                <button type="button" className="hit" onClick={() => onOpenHit(h)}>
                  <span className="hit-head">
                    <span className="session-title">{h.session_title || 'Untitled'}</span>
                    <span className="muted">
                      #{h.seq} {h.kind}
                    </span>
                  </span>
                  <span className="snippet">
                    {splitSnippet(h.snippet).map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : (
        <SessionGroups groups={groups} row={row} paging={props.paging} empty={sessions.length === 0}>
          {props.archived}
        </SessionGroups>
      )}
      <button type="button" className="settings-link" onClick={onSettings}>
        Settings
      </button>
    </nav>
  );
}

/** Within this many pixels of the list's end, scrolling reads the next page of sessions. */
const NEAR_END = 400;
/** Above this many lines (sessions and group headings) the list renders only those in view. */
const WINDOW_FROM = 200;
/** The height of a line the window assumes, and how many lines it renders beyond the view. */
const LINE_PX = 33;
const MARGIN_LINES = 20;

/** One line of the list: a group's heading (no node) or a session at its depth under its root. */
interface Line {
  g: Grouped<Node>;
  node?: Node;
  depth: number;
}

function linesOf(groups: Grouped<Node>[]): Line[] {
  const out: Line[] = [];
  const walk = (g: Grouped<Node>, n: Node, depth: number) => {
    out.push({ g, node: n, depth });
    n.forks.forEach((f) => walk(g, f, depth + 1));
  };
  for (const g of groups) {
    out.push({ g, depth: 0 });
    g.nodes.forEach((n) => walk(g, n, 0));
  }
  return out;
}

/** The lines in view and a margin, as [from, to), when the list is long enough to window. */
function shownRange(lines: number, view: { top: number; height: number }): [number, number] {
  if (lines <= WINDOW_FROM) return [0, lines];
  const from = Math.max(0, Math.floor(view.top / LINE_PX) - MARGIN_LINES);
  return [from, Math.min(lines, Math.ceil((view.top + view.height) / LINE_PX) + MARGIN_LINES)];
}

/**
 * The groups of the sessions read so far (projects with their counts, then by recency), and
 * the next page read as the person scrolls near the end or asks for it. A long list renders
 * only the lines in view and a margin (forks indented under their parent rather than nested),
 * with the rest's height kept by spacers.
 */
function SessionGroups({ groups, row, paging, empty, children }: { groups: Grouped<Node>[]; row: RowProps; paging?: ListPaging; empty: boolean; children?: ReactNode }) {
  const [view, setView] = useState({ top: 0, height: 800 });
  const lines = useMemo(() => linesOf(groups), [groups]);
  const [from, to] = shownRange(lines.length, view);
  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    const el = e.currentTarget;
    setView({ top: el.scrollTop, height: el.clientHeight || 800 });
    if (paging && paging.more > 0 && el.scrollTop + el.clientHeight >= el.scrollHeight - NEAR_END) paging.loadMore();
  };
  // Consecutive shown lines of one group go in one section.
  const parts: Line[][] = [];
  for (const l of lines.slice(from, to)) {
    const last = parts[parts.length - 1];
    if (last && last[0].g === l.g) last.push(l);
    else parts.push([l]);
  }
  const windowed = lines.length > WINDOW_FROM;
  return (
    // No scroll anchoring: with the window's spacers it would move the view as lines come and
    // go, and each move near the end would read another page.
    <div className="session-groups" onScroll={onScroll} style={{ overflowAnchor: 'none' }}>
      {from > 0 && <div style={{ height: from * LINE_PX }} aria-hidden="true" />}
      {parts.map((part) => (
        <GroupPart key={`${part[0].g.key}:${part[0].node?.session.id ?? ''}`} part={part} row={row} counts={paging?.projects} windowed={windowed} />
      ))}
      {to < lines.length && <div style={{ height: (lines.length - to) * LINE_PX }} aria-hidden="true" />}
      {empty && <p className="empty">No sessions yet.</p>}
      {paging && paging.more > 0 && (
        <button type="button" className="small more-sessions" onClick={paging.loadMore}>
          Show more sessions ({paging.more} more)
        </button>
      )}
      {children}
    </div>
  );
}

/** The shown lines of one group: its heading (with the project's count) when shown, and its sessions. */
function GroupPart({ part, row, counts, windowed }: { part: Line[]; row: RowProps; counts?: ListPaging['projects']; windowed: boolean }) {
  const { organise } = row;
  const g = part[0].g;
  const count = g.project === null ? undefined : counts?.find((p) => p.project === g.project)?.sessions;
  return (
    <section
      aria-label={g.project === null ? g.name : `Project ${g.name}`}
      className={g.project === null ? undefined : 'project'}
      onDragOver={organise && ((e) => e.preventDefault())}
      onDrop={organise && ((e) => organise.drop(e, g.project ?? ''))}
    >
      {!part[0].node && count !== undefined && (
        <span className="muted group-count" style={{ float: 'right', marginRight: 8 }} title={`${count} sessions in ${g.name}`}>
          {count}
        </span>
      )}
      {!part[0].node && <h2>{g.name}</h2>}
      <ul>
        {part.flatMap((l) =>
          !l.node ? [] : windowed ? [<SessionNode key={l.node.session.id} node={{ ...l.node, forks: [] }} depth={l.depth} {...row} />] : l.depth === 0 ? [<SessionNode key={l.node.session.id} node={l.node} depth={0} {...row} />] : [],
        )}
      </ul>
    </section>
  );
}

interface RowProps {
  selected: string | null;
  onSelect: (id: string) => void;
  detail?: Props['detail'];
  organise?: ListOrganise;
  /** The shown sessions in order, for a Shift-click range. */
  order: string[];
}

function SessionNode({ node, depth, ...row }: RowProps & { node: Node; depth: number }) {
  const { selected, onSelect, detail, organise } = row;
  const s = node.session;
  const current = s.id === selected;
  const picked = organise?.selected.has(s.id) ?? false;
  return (
    <li>
      <button
        type="button"
        className={`session${current ? ' current' : ''}${picked ? ' picked' : ''}`}
        aria-current={current ? 'page' : undefined}
        aria-pressed={organise ? picked : undefined}
        style={{ paddingLeft: 8 + depth * 14 }}
        draggable={Boolean(organise)}
        onDragStart={organise && ((e) => organise.dragStart(e, s.id))}
        onClick={(e) => (organise ? organise.click(e, s.id, row.order) : onSelect(s.id))}
      >
        <span className="session-title">
          {depth > 0 && <span className="fork-mark" aria-hidden="true">↳ </span>}
          {s.title || 'Untitled'}
        </span>
        {s.running && <span className="running-dot" title="Running" aria-label="running" />}
        <span className="session-time" title={s.parent_call_id ? `Started by the task call ${s.parent_call_id}${s.fork_seq > 0 ? ` in row ${s.fork_seq}` : ''} of its parent` : undefined}>
          {s.parent_call_id ? (s.fork_seq > 0 ? `task @#${s.fork_seq}` : 'child (task)') : s.parent_id ? `fork @#${s.fork_seq}` : formatTime(s.updated_at)}
        </span>
        {detail?.(s)}
      </button>
      {node.forks.length > 0 && (
        <ul className="forks" aria-label={`Forks of ${s.title || 'Untitled'}`}>
          {node.forks.map((f) => (
            <SessionNode key={f.session.id} node={f} depth={depth + 1} {...row} />
          ))}
        </ul>
      )}
    </li>
  );
}
