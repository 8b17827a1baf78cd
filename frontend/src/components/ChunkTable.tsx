import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject, type UIEvent } from 'react';
import { CHUNK_KINDS, type ChunkKind, type Row, type Session } from '../api/types';
import { formatTime, formatTokens, summarize } from '../lib/format';
import { useCheckpoints } from './CheckpointContext';
import type { Focus } from './Conversation';
import { FileChanges } from './FileChanges';
import { useSessionChunks } from '../hooks/useSessionChunks';

export const ROW_HEIGHT = 28;
const OVERSCAN = 10;
/** How long the table's view rests before the rows in it are read. */
const READ_AFTER_MS = 40;
/** Used until the scroller has been measured (and in tests, where layout is 0). */
const FALLBACK_HEIGHT = 480;

interface Props {
  /** The rows the conversation holds (fresh; the rest are read a page at a time). */
  rows: Row[];
  /** The session, its first seq and the highest seq it has: every row between is a row of the table. */
  sessionID?: string | null;
  firstSeq?: number;
  lastSeq?: number;
  /** Select and scroll to this row; a new object asks again. */
  focus?: Focus | null;
  onFork: (seq: number) => void;
  /** "Compact up to here" (absent while a run goes on). */
  onCompact?: (seq: number) => void;
  /** "Undo compaction" on a summary row in effect (absent while a run goes on). */
  onUndoCompaction?: (seq: number) => void;
  onShowInConversation?: (seq: number) => void;
  /** The child sessions this session's task calls started (linked from the rows of their calls). */
  childSessions?: Session[];
  /** This session itself when it is a task's child, with its parent's title: a link back to the call's row. */
  parentOf?: { session: Session; parentTitle: string | undefined };
  onOpenSession?: (id: string, seq?: number) => void;
}

/**
 * The child sessions a row started: an assistant row by the task calls it holds (the child
 * hangs under that row), a task call's result row by its call id (the latest child of that id
 * started before the result; call ids may repeat across runs).
 */
export function childrenOfRow(row: Row, kids: Session[]): Session[] {
  if (row.kind === 'assistant') {
    const ids = new Set((row.payload.tool_calls ?? []).map((c) => c.id));
    return kids.filter((k) => k.fork_seq === row.seq || (k.fork_seq === 0 && ids.has(k.parent_call_id ?? '')));
  }
  if (row.kind !== 'tool_result') return [];
  const id = row.payload.call_id;
  const mine = kids.filter((k) => k.parent_call_id === id && k.fork_seq < row.seq);
  return mine.length ? [mine.reduce((a, b) => (b.fork_seq > a.fork_seq ? b : a))] : [];
}

/**
 * Every row of the session, virtualized and paged: only the rows in view (plus a few) are in
 * the DOM, and only their pages are read from Go, so 100,000 rows scroll like 100. Filter by
 * kind; a click shows the row's full payload; every row can be forked from.
 */
export function ChunkTable(props: Props) {
  const { rows, focus, onFork, onCompact, onUndoCompaction, onShowInConversation, childSessions = [], parentOf, onOpenSession } = props;
  const { sessionID = rows[0]?.session_id ?? null, firstSeq = rows[0]?.seq ?? 0, lastSeq = rows.at(-1)?.seq ?? 0 } = props;
  const undone = useMemo(() => undoneSummaries(rows), [rows]);
  const [kind, setKind] = useState<ChunkKind | ''>('');
  const [selected, setSelected] = useState<number | null>(null);
  const body = useRef<HTMLDivElement>(null);
  const { scrollTop, setScrollTop, onScroll } = useScrollTop(body);
  const table = useSessionChunks({ sessionID, held: rows, firstSeq, lastSeq, kind });

  const height = useHeight(body);

  const focused = useRef<Focus | null>(null);
  // The row a focus request asked for, kept centred until the person scrolls or picks a row:
  // selecting it opens the detail below the table, which shrinks the table (again when the
  // row's file changes arrive), so a position computed before that would leave it out of view.
  const [target, setTarget] = useState<number | null>(null);
  useEffect(() => {
    // Once per request, and only once the rows are that session's.
    if (!focus || focused.current === focus || sessionID !== focus.sessionID || table.loadingKind) return;
    focused.current = focus;
    setSelected(focus.seq);
    setTarget(focus.seq);
    if (kind && table.indexOf(focus.seq) < 0) setKind('');
  }, [focus, sessionID, table, kind]);

  useLayoutEffect(() => {
    const el = body.current;
    const i = target === null ? -1 : table.indexOf(target);
    if (!el || i < 0) return;
    // Read the height the table has now, with the detail laid out; height (the state) only
    // triggers this again when it changes.
    const h = el.clientHeight || height;
    const top = Math.max(0, i * ROW_HEIGHT - (h - ROW_HEIGHT) / 2);
    el.scrollTop = top;
    setScrollTop(el.scrollTop || top);
  }, [target, table, height]);

  const letGo = () => setTarget(null);
  const select = (seq: number | null) => {
    setTarget(null);
    setSelected(seq);
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(table.count, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  const visible = useVisible(table, first, last, selected);
  const detail = selected === null ? undefined : table.rowAt(selected);

  return (
    <div className="chunk-table">
      <Toolbar kind={kind} onKind={setKind} count={table.count} parentOf={parentOf} onOpenSession={onOpenSession} />
      <div role="table" aria-label="Chunk table" aria-rowcount={table.count + 1} className="table">
        <TableHead />
        <div
          role="rowgroup"
          className="tbody"
          ref={body}
          onWheel={letGo}
          onPointerDown={letGo}
          onKeyDown={letGo}
          onScroll={onScroll}
        >
          <div style={{ height: table.count * ROW_HEIGHT, position: 'relative' }}>
            {visible.map(({ seq, row: r }, i) =>
              !r ? (
                <PendingRow key={seq} seq={seq} index={first + i} />
              ) : (
              <ChunkRow
                key={r.seq}
                row={r}
                index={first + i}
                selected={r.seq === selected}
                onSelect={select}
                onFork={onFork}
                kids={childSessions.length ? childrenOfRow(r, childSessions) : NO_KIDS}
                onOpenSession={onOpenSession}
              />
              ),
            )}
          </div>
        </div>
      </div>
      {detail && (
        <RowDetail
          detail={detail}
          undone={undone}
          childSessions={childSessions}
          onClose={() => select(null)}
          onFork={onFork}
          onCompact={onCompact}
          onUndoCompaction={onUndoCompaction}
          onShowInConversation={onShowInConversation}
          onOpenSession={onOpenSession}
        />
      )}
    </div>
  );
}

/**
 * The rows of table indexes first..last (a row not read yet is undefined), asking for the
 * pages they are on, and for the selected row's.
 */
function useVisible(table: ReturnType<typeof useSessionChunks>, first: number, last: number, selected: number | null) {
  const { seqAt, rowAt, want } = table;
  useEffect(() => {
    // Once the view rests a moment: a fling over 100,000 rows reads the pages it stops on, not
    // every page it passes.
    const t = setTimeout(() => {
      // Seq by seq: filtered by kind, the rows in view may lie far apart.
      for (let i = first; i < last; i++) want(seqAt(i), seqAt(i));
      if (selected !== null) want(selected, selected);
    }, READ_AFTER_MS);
    return () => clearTimeout(t);
  }, [want, seqAt, first, last, selected]);
  return useMemo(() => {
    const out: { seq: number; row: Row | undefined }[] = [];
    for (let i = first; i < last; i++) out.push({ seq: seqAt(i), row: rowAt(seqAt(i)) });
    return out;
  }, [seqAt, rowAt, first, last]);
}

/** A row whose page is being read: its place and its seq. */
function PendingRow({ seq, index }: { seq: number; index: number }) {
  return (
    <div role="row" aria-rowindex={index + 2} aria-busy="true" className="tr pending" style={{ position: 'absolute', top: index * ROW_HEIGHT, height: ROW_HEIGHT, left: 0, right: 0 }}>
      <span role="cell" className="c-seq">{seq}</span>
      <span role="cell" className="c-sum muted">…</span>
    </div>
  );
}

/** Follows the scroller's height (FALLBACK_HEIGHT until it is laid out). */
function useHeight(body: RefObject<HTMLDivElement | null>): number {
  const [height, setHeight] = useState(FALLBACK_HEIGHT);
  useLayoutEffect(() => {
    const el = body.current;
    if (!el) return;
    const measure = () => setHeight(el.clientHeight || FALLBACK_HEIGHT);
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [body]);
  return height;
}

/** The scroller's position, read at most once per animation frame. */
function useScrollTop(body: RefObject<HTMLDivElement | null>) {
  const [scrollTop, setScrollTop] = useState(0);
  const frame = useRef<number | null>(null);
  useEffect(() => () => {
    if (frame.current !== null) cancelAnimationFrame(frame.current);
  }, []);
  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    const top = e.currentTarget.scrollTop;
    if (frame.current === null) {
      frame.current = requestAnimationFrame(() => {
        frame.current = null;
        setScrollTop(body.current?.scrollTop ?? top);
      });
    }
  };
  return { scrollTop, setScrollTop, onScroll };
}

interface ToolbarProps {
  kind: ChunkKind | '';
  onKind: (k: ChunkKind | '') => void;
  count: number;
  parentOf: Props['parentOf'];
  onOpenSession: Props['onOpenSession'];
}

/** The kind filter, the number of rows shown, and a task child's link to its call. */
function Toolbar({ kind, onKind, count, parentOf, onOpenSession }: ToolbarProps) {
  return (
    <div className="row toolbar">
      <label>
        Kind{' '}
        <select aria-label="Filter by kind" value={kind} onChange={(e) => onKind(e.target.value as ChunkKind | '')}>
          <option value="">All kinds</option>
          {CHUNK_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <span className="muted">
        {count.toLocaleString()} row{count === 1 ? '' : 's'}
      </span>
      {parentOf && onOpenSession && parentOf.session.parent_call_id && (
        <button
          type="button"
          className="small linklike"
          onClick={() => onOpenSession(parentOf.session.parent_id, parentOf.session.fork_seq || undefined)}
          title="Open the parent session at the row of the task call that started this one"
        >
          Started by task call {parentOf.session.parent_call_id}
          {parentOf.session.fork_seq > 0 ? ` (row #${parentOf.session.fork_seq})` : ''} of {parentOf.parentTitle ?? 'a deleted session'}
        </button>
      )}
    </div>
  );
}

function TableHead() {
  return (
    <div role="rowgroup" className="thead">
      <div role="row" aria-rowindex={1} className="tr">
        <span role="columnheader" className="c-seq">seq</span>
        <span role="columnheader" className="c-kind">kind</span>
        <span role="columnheader" className="c-sum">summary</span>
        <span role="columnheader" className="c-tok" title="tokens (estimate)">tok</span>
        <span role="columnheader" className="c-time">time</span>
        <span role="columnheader" className="c-run">run</span>
        <span role="columnheader" className="c-act">
          <span className="sr-only">actions</span>
        </span>
      </div>
    </div>
  );
}

interface DetailProps extends Pick<Props, 'onFork' | 'onCompact' | 'onUndoCompaction' | 'onShowInConversation' | 'onOpenSession'> {
  detail: Row;
  /** The summaries a later row undid: no "Undo compaction" on them. */
  undone: Set<number>;
  childSessions: Session[];
  onClose: () => void;
}

/** The selected row below the table: its actions, its child sessions, its files and its payload. */
function RowDetail({ detail, undone, childSessions, onClose, onFork, onCompact, onUndoCompaction, onShowInConversation, onOpenSession }: DetailProps) {
  return (
    <section className="chunk-detail" aria-label={`Row ${detail.seq}`}>
      <header className="row">
        <strong>
          #{detail.seq} {detail.kind}
        </strong>
        <span className="muted">{detail.run_id && `run ${detail.run_id}`}</span>
        {onShowInConversation && (
          <button type="button" onClick={() => onShowInConversation(detail.seq)}>
            Show in conversation
          </button>
        )}
        {onCompact && detail.kind !== 'summary' && (
          <button type="button" title={`Summarise the rows up to ${detail.seq}; they stay stored`} onClick={() => onCompact(detail.seq)}>
            Compact up to here
          </button>
        )}
        {onUndoCompaction && detail.kind === 'summary' && !undone.has(detail.seq) && !detail.payload.undoes && (
          <button type="button" onClick={() => onUndoCompaction(detail.seq)}>
            Undo compaction
          </button>
        )}
        <button type="button" aria-label="Close row" onClick={onClose}>
          ×
        </button>
      </header>
      {onOpenSession &&
        childrenOfRow(detail, childSessions).map((k) => (
          <div key={k.id} className="row row-actions">
            <button type="button" className="small" onClick={() => onOpenSession(k.id)}>
              Open child session “{k.title || 'Untitled'}”
            </button>
            <span className="muted">started by task call {k.parent_call_id}</span>
          </div>
        ))}
      <RowActions seq={detail.seq} onFork={onFork} />
      <FileChanges seq={detail.seq} />
      <pre aria-label="Payload">{JSON.stringify(detail.payload, null, 2)}</pre>
    </section>
  );
}

const NO_KIDS: Session[] = [];

const ChunkRow = memo(function ChunkRow({
  row,
  index,
  selected,
  onSelect,
  onFork,
  kids,
  onOpenSession,
}: {
  row: Row;
  index: number;
  selected: boolean;
  onSelect: (seq: number) => void;
  onFork: (seq: number) => void;
  kids: Session[];
  onOpenSession?: (id: string) => void;
}) {
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-seq={row.seq}
      className={`tr kind-${row.kind}${selected ? ' selected' : ''}`}
      style={{ position: 'absolute', top: index * ROW_HEIGHT, height: ROW_HEIGHT, left: 0, right: 0 }}
      onClick={() => onSelect(row.seq)}
    >
      <span role="cell" className="c-seq">{row.seq}</span>
      <span role="cell" className="c-kind">{row.kind}</span>
      <span role="cell" className="c-sum" title={summarize(row, 400)}>
        <RowBadges row={row} />
        {onOpenSession &&
          kids.map((k) => (
            <button
              key={k.id}
              type="button"
              className="badge child"
              aria-label={`Open child session ${k.title || 'Untitled'}`}
              title={`Child session started by task call ${k.parent_call_id}`}
              onClick={(e) => {
                e.stopPropagation();
                onOpenSession(k.id);
              }}
            >
              ↳ {k.title || 'child'}
            </button>
          ))}
        {summarize(row)}
      </span>
      <span role="cell" className="c-tok">{row.tokens ? formatTokens(row.tokens) : ''}</span>
      <span role="cell" className="c-time">{formatTime(row.created_at)}</span>
      <span role="cell" className="c-run" title={row.run_id}>{row.run_id.slice(0, 6)}</span>
      <span role="cell" className="c-act">
        <button
          type="button"
          className="small"
          title={`Fork a new session from row ${row.seq}`}
          onClick={(e) => {
            e.stopPropagation();
            onFork(row.seq);
          }}
        >
          Fork from here
        </button>
      </span>
    </div>
  );
});

/** The seqs of summary rows a later row undid. */
export function undoneSummaries(rows: Row[]): Set<number> {
  const out = new Set<number>();
  for (const r of rows) {
    const u = r.kind === 'summary' ? r.payload.undoes : 0;
    if (u) out.add(u);
  }
  return out;
}

/** Which MCP server a row's call went to, and how many files the row changed. */
function RowBadges({ row }: { row: Row }) {
  const { changes, serverOf } = useCheckpoints();
  const n = changes[row.seq]?.length ?? 0;
  const names =
    row.kind === 'tool_result'
      ? [row.payload.name]
      : row.kind === 'assistant'
        ? (row.payload.tool_calls ?? []).map((c) => c.name)
        : [];
  const servers = [...new Set(names.map(serverOf).filter((s): s is string => Boolean(s)))];
  return (
    <>
      {servers.map((s) => (
        <span key={s} className="badge server" title={`MCP server ${s}`}>
          {s}
        </span>
      ))}
      {n > 0 && (
        <span className="badge files" title={(changes[row.seq] ?? []).map((c) => `${c.change} ${c.path}`).join('\n')}>
          {n} file{n === 1 ? '' : 's'}
        </span>
      )}
    </>
  );
}

/** What any row offers beyond the plain fork: restoring the folder, a fork with its own folder. */
function RowActions({ seq, onFork }: { seq: number; onFork: (seq: number) => void }) {
  const { sessionID, restore, forkWithFiles } = useCheckpoints();
  if (!sessionID) return null;
  return (
    <div className="row row-actions">
      <button type="button" className="small" onClick={() => restore(seq)}>
        Restore files to before this row
      </button>
      <button type="button" className="small" onClick={() => onFork(seq)}>
        Fork from here
      </button>
      <button type="button" className="small" onClick={() => forkWithFiles(seq)}>
        Fork with its own copy of the folder
      </button>
    </div>
  );
}
