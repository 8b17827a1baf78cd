import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { RunFinishedPayload } from '../api/events';
import type {
  ApprovalPayload,
  AssistantPayload,
  Chunk,
  Pending,
  SummaryPayload,
  ToolResultPayload,
  UserPayload,
} from '../api/types';
import type { Phase, RunningTool, Streamed, StreamedStore } from '../hooks/useSession';
import { STOP_TEXT } from '../lib/format';
import { Markdown } from './Markdown';
import { StreamingMarkdown } from './StreamingMarkdown';
import { ToolCard, type CardActions } from './ToolCard';

interface Props {
  rows: Chunk[];
  /** Text streaming in (read by the streaming reply only). */
  streamed: StreamedStore;
  /** The part of the streamed text already stored as rows (not shown again). */
  cut: Streamed;
  /** Streamed shell output per call id. */
  outputs: Record<string, string>;
  phase: Phase;
  pending: Pending[];
  running: Record<string, RunningTool>;
  outcome: RunFinishedPayload | null;
  error: string;
  /** Scroll to and highlight this row (a search hit, a touched file); a new object asks again. */
  focus?: Focus | null;
  actions: CardActions;
}

/** How many rows are rendered at first; older ones come on request. */
export const PAGE = 200;

type Indexed<T> = { seq: number; payload: T };

/** A row to show: of which session (rows of the previous one may still be on screen) and which seq. */
export interface Focus {
  sessionID: string;
  seq: number;
}

/**
 * The conversation: stored rows (tool results and approvals folded into the
 * card of their call), the reply streaming in, pending approvals, and how the
 * run ended. Only the last rows are rendered until the person asks for more.
 */
export function Conversation({ rows, streamed, cut, outputs, phase, pending, running, outcome, error, focus, actions }: Props) {
  const [limit, setLimit] = useState(PAGE);
  const scroller = useRef<HTMLElement>(null);
  const stick = useRef(true);
  const scrolledTo = useRef<Focus | null>(null);
  const focusSeq = focus?.seq ?? null;

  // A row to focus that is not rendered yet widens the window to include it.
  useEffect(() => {
    if (focusSeq == null || rows[0]?.session_id !== focus?.sessionID) return;
    const i = rows.findIndex((r) => r.seq === focusSeq);
    if (i >= 0 && i < rows.length - limit) setLimit(rows.length - i + 20);
  }, [focusSeq, focus?.sessionID, rows, limit]);

  const start = Math.max(0, rows.length - limit);
  const shown = useMemo(() => rows.slice(start), [rows, start]);

  const { results, approvals, callIDs } = useMemo(() => {
    const results = new Map<string, Indexed<ToolResultPayload>>();
    const approvals = new Map<string, Indexed<ApprovalPayload>>();
    const callIDs = new Set<string>();
    for (const r of shown) {
      if (r.kind === 'tool_result') results.set((r.payload as ToolResultPayload).call_id, { seq: r.seq, payload: r.payload as ToolResultPayload });
      else if (r.kind === 'approval') approvals.set((r.payload as ApprovalPayload).call_id, { seq: r.seq, payload: r.payload as ApprovalPayload });
      else if (r.kind === 'assistant') for (const c of (r.payload as AssistantPayload).tool_calls ?? []) callIDs.add(c.id);
    }
    return { results, approvals, callIDs };
  }, [shown]);
  const pendingByID = useMemo(() => new Map(pending.map((p) => [p.call_id, p])), [pending]);
  const orphanPending = pending.filter((p) => !callIDs.has(p.call_id));

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (focus && scrolledTo.current !== focus) {
      // Not this session's rows yet (still loading): try again on the next render.
      if (rows[0]?.session_id !== focus.sessionID) return;
      const target = el.querySelector(`[data-seq="${focus.seq}"]`);
      // Not rendered yet (rows still loading): try again on the next render.
      if (!target) return;
      // Rows folded into a tool card have no Row of their own to mark: mark the element.
      el.querySelectorAll('.hit-target').forEach((x) => x.classList.remove('hit-target'));
      target.classList.add('hit-target');
      target.scrollIntoView?.({ block: 'center' });
      scrolledTo.current = focus;
      stick.current = false;
      return;
    }
    if (stick.current) el.scrollTop = el.scrollHeight;
  }, [rows, shown, outputs, pending.length, focus, outcome]);

  const stickToBottom = useCallback(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, []);

  const busy = phase !== 'idle';
  return (
    <section
      className="conversation"
      aria-label="Conversation"
      ref={scroller}
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {rows.length === 0 && !busy && <p className="hint">Ask the agent something to start this session.</p>}
      {start > 0 && (
        <button type="button" className="earlier" onClick={() => setLimit((l) => l + PAGE)}>
          Show earlier messages ({start} more)
        </button>
      )}
      {shown.map((r) => (
        <Row
          key={r.seq}
          row={r}
          focused={r.seq === focusSeq}
          callIDs={callIDs}
          results={results}
          approvals={approvals}
          pending={pendingByID}
          outputs={outputs}
          running={running}
          actions={actions}
        />
      ))}
      {orphanPending.map((p) => (
        <ToolCard key={p.call_id} call={{ id: p.call_id, name: p.name, arguments: p.arguments }} pending={p} output={outputs[p.call_id]} running={running[p.call_id]} actions={actions} />
      ))}
      {busy && (
        <StreamingReply
          store={streamed}
          cut={cut}
          showWaiting={phase !== 'tools' && pending.length === 0 && Object.keys(running).length === 0}
          onGrow={stickToBottom}
        />
      )}
      {outcome && outcome.status !== 'completed' && (
        <div className="run-outcome" role="alert">
          <strong>{STOP_TEXT[outcome.status] ?? `Run ended: ${outcome.status}`}</strong>
          {outcome.error && <span className="detail"> {outcome.error}</span>}
        </div>
      )}
      {error && (
        <div className="run-outcome" role="alert">
          {error}
        </div>
      )}
    </section>
  );
}

/**
 * The reply streaming in. It alone subscribes to the streamed text, so a
 * frame of deltas re-renders this article and nothing else.
 */
function StreamingReply({ store, cut, showWaiting, onGrow }: { store: StreamedStore; cut: Streamed; showWaiting: boolean; onGrow: () => void }) {
  const all = useSyncExternalStore(store.subscribe, store.get);
  const text = after(all.text, cut.text);
  const reasoning = after(all.reasoning, cut.reasoning);
  useLayoutEffect(onGrow, [text, reasoning, onGrow]);
  if (!text && !reasoning && !showWaiting) return null;
  return (
    <article className="msg assistant streaming" aria-label="Assistant reply (streaming)" aria-busy="true">
      {reasoning && (
        <details className="reasoning">
          <summary>Reasoning</summary>
          <p className="plain">{reasoning}</p>
        </details>
      )}
      {text ? <StreamingMarkdown text={text} /> : <p className="status">Waiting for the model…</p>}
    </article>
  );
}

/** What streamed after the stored prefix (all of it when the stream was reset since). */
function after(s: string, prefix: string): string {
  return prefix && s.startsWith(prefix) ? s.slice(prefix.length) : s;
}

interface RowProps {
  row: Chunk;
  focused: boolean;
  callIDs: Set<string>;
  results: Map<string, Indexed<ToolResultPayload>>;
  approvals: Map<string, Indexed<ApprovalPayload>>;
  pending: Map<string, Pending>;
  outputs: Record<string, string>;
  running: Record<string, RunningTool>;
  actions: CardActions;
}

const Row = memo(function Row({ row, focused, callIDs, results, approvals, pending, outputs, running, actions }: RowProps) {
  const cls = focused ? ' focused' : '';
  switch (row.kind) {
    case 'user': {
      const p = row.payload as UserPayload;
      return (
        <article className={`msg user${cls}`} aria-label="You" data-seq={row.seq}>
          <p className="plain">{p.text}</p>
        </article>
      );
    }
    case 'assistant': {
      const p = row.payload as AssistantPayload;
      const calls = p.tool_calls ?? [];
      return (
        <>
          {(p.text || p.reasoning || calls.length === 0) && (
            <article className={`msg assistant${cls}`} aria-label="Assistant" data-seq={row.seq}>
              {p.reasoning && (
                <details className="reasoning">
                  <summary>Reasoning</summary>
                  <p className="plain">{p.reasoning}</p>
                </details>
              )}
              {p.text && <Markdown text={p.text} />}
            </article>
          )}
          {calls.map((c, i) => (
            <div key={c.id} className={`card-slot${cls}`} data-seq={!p.text && !p.reasoning && i === 0 ? row.seq : undefined}>
              <ToolCard
                call={c}
                result={results.get(c.id)}
                approval={approvals.get(c.id)}
                pending={pending.get(c.id)}
                output={outputs[c.id]}
                running={running[c.id]}
                actions={actions}
              />
            </div>
          ))}
        </>
      );
    }
    case 'tool_result': {
      const p = row.payload as ToolResultPayload;
      if (callIDs.has(p.call_id)) return null;
      return (
        <details className={`tool-result standalone${p.is_error ? ' error' : ''}${cls}`} data-seq={row.seq}>
          <summary>
            {p.name} result{p.is_error ? ' (error)' : ''}
          </summary>
          <pre>{p.content}</pre>
        </details>
      );
    }
    case 'approval': {
      const p = row.payload as ApprovalPayload;
      if (callIDs.has(p.call_id)) return null;
      return (
        <p className={`note${cls}`} data-seq={row.seq}>
          {p.tool} {p.decision}
          {p.reason ? `: ${p.reason}` : ''}
        </p>
      );
    }
    case 'summary': {
      const p = row.payload as SummaryPayload;
      return (
        <details className={`summary${cls}`} data-seq={row.seq}>
          <summary>Earlier messages were summarised (through #{p.through_seq})</summary>
          <p className="plain">{p.text}</p>
        </details>
      );
    }
    case 'system':
      return (
        <p className={`note system${cls}`} data-seq={row.seq}>
          {(row.payload as UserPayload).text}
        </p>
      );
    default:
      return null;
  }
});
