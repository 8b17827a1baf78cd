import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore, type RefObject } from 'react';
import type { RunFinishedPayload } from '../api/types';
import type {
  HookPayload,
  ApprovalPayload,
  Branch,
  Row,
  RowOf,
  ToolCall,
  ToolResultPayload,
} from '../api/types';
import type { StreamStore } from '../hooks/useSession';
import type { Paging } from '../hooks/useSessionPages';
import { useSessionSlice } from '../hooks/useSessionSlice';
import { callKey, type PendingCall, type Phase, type RunningTool, type Sent } from '../state/session';
import { visible } from '../state/stream';
import { describeHook, STOP_TEXT, usageRowText } from '../lib/format';
import { FileChanges, RestoreRow } from './FileChanges';
import { Markdown } from './LazyMarkdown';
import { StreamingMarkdown } from './StreamingMarkdown';
import { ToolCard, type CardActions } from './ToolCard';
import { ReplyActions, UserMessage, type ConversationControls } from './MessageControls';
import { isFinalReply, placeVersions, type Versions } from '../state/versions';
import { exclusionsOf } from '../state/exclusions';

interface Props {
  /** The rows held (a window of the session's rows: state/window.ts). */
  rows: Row[];
  /** The session's first seq, whether the rows reach its last one, and how to move them. */
  firstSeq?: number;
  atEnd?: boolean;
  paging?: Paging;
  /** Text streaming in (read by the streaming reply only). */
  stream: StreamStore;
  /** The live run, and the seq from which its streamed text is not stored yet. */
  run: string;
  streamFrom: number;
  /** A message sent and not stored yet. */
  sent: Sent | null;
  /** Streamed shell output by callKey(run, call). */
  outputs: Record<string, string>;
  phase: Phase;
  pending: PendingCall[];
  /** Executing calls by callKey(run, call). */
  running: Record<string, RunningTool>;
  outcome: RunFinishedPayload | null;
  error: string;
  /** Scroll to and highlight this row (a search hit, a touched file); a new object asks again. */
  focus?: Focus | null;
  actions: CardActions;
  /** Edit message, Regenerate and the version switchers; none in a read-only view. */
  controls?: ConversationControls;
  /** The sets of versions this session belongs to (Sessions.Branches). */
  branches?: Branch[];
  /** Set when the last run can be run again (a provider error, a timeout, an interruption). */
  onRetry?: () => void;
}

const NO_BRANCHES: Branch[] = [];

type Indexed<T> = { seq: number; payload: T };

/** A row to show: of which session (rows of the previous one may still be on screen) and which seq. */
export interface Focus {
  sessionID: string;
  seq: number;
}

/**
 * The conversation: stored rows (tool results and approvals folded into the
 * card of their call), the reply streaming in, pending approvals, and how the
 * run ended. Only the rows in view and a margin are rendered (useSessionSlice); earlier and
 * later ones are read as the person scrolls towards them.
 */
export function Conversation(props: Props) {
  const { rows, stream, run, streamFrom, sent, outputs, phase, pending, running, outcome, error, focus, actions, controls, branches = NO_BRANCHES, onRetry } = props;
  const { firstSeq = rows[0]?.seq ?? 0, atEnd = true, paging } = props;
  const scroller = useRef<HTMLElement>(null);
  const stick = useRef(true);
  const lit = useFlash(focus, scroller);
  const slice = useSessionSlice(scroller, { rows, firstSeq, atEnd, paging });
  const shown = slice.shown;
  useReveal(focus, rows, slice.reveal, paging);

  // Paired over every row held, so a card at the slice's edge still shows its result.
  const { results, approvals, hooks, folded, open } = useMemo(() => pairCalls(rows), [rows]);
  const pendingByKey = useMemo(() => new Map(pending.map((p) => [callKey(p.run_id, p.call_id), p])), [pending]);
  const versions = useMemo(() => placeVersions(rows, branches), [rows, branches]);
  const exclusions = useMemo(() => exclusionsOf(rows), [rows]);
  const orphanPending = pending.filter((p) => !open.has(callKey(p.run_id, p.call_id)));

  const stickToBottom = useKeepInView(scroller, stick, { rows, shown, outputs, pending: pending.length, focus, outcome, sent });

  const busy = phase !== 'idle';
  return (
    <section
      className="conversation"
      aria-label="Conversation"
      ref={scroller}
      onScroll={(e) => {
        const el = e.currentTarget;
        // Only the session's end sticks: the bottom of a slice or window away from it is not.
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40 && slice.following && atEnd;
        slice.check();
      }}
    >
      {rows.length === 0 && !busy && <p className="hint">Ask the agent something to start this session.</p>}
      {slice.hasEarlier && (
        <p className="hint earlier" role="status">
          Earlier rows load as you scroll up
        </p>
      )}
      {shown.map((r) => (
        <RowView
          key={r.seq}
          row={r}
          focused={r.seq === lit}
          folded={folded.has(r.seq)}
          cards={r.kind === 'assistant' ? cardsOf(r, results, approvals, hooks, pendingByKey, outputs, running) : NO_CARDS}
          actions={actions}
          controls={controls}
          versions={versions.get(r.seq)}
          excluded={r.kind === 'user' ? exclusions.bySeq.get(r.seq) : undefined}
          excludedNames={r.kind === 'image_excluded' ? exclusions.names.get(r.seq) : undefined}
        />
      ))}
      {sent && (
        <article className="msg user sending" aria-label="You" aria-busy="true">
          <p className="plain">{sent.text}</p>
        </article>
      )}
      {orphanPending.map((p) => {
        const key = callKey(p.run_id, p.call_id);
        return <ToolCard key={key} call={{ id: p.call_id, name: p.name, arguments: p.arguments }} pending={p} output={outputs[key]} running={running[key]} actions={actions} />;
      })}
      {busy && (
        <StreamingReply
          store={stream}
          run={run}
          from={streamFrom}
          showWaiting={phase !== 'tools' && pending.length === 0 && Object.keys(running).length === 0}
          onGrow={stickToBottom}
        />
      )}
      {!atEnd && paging && (
        <button
          type="button"
          className="earlier"
          onClick={() => {
            stick.current = true;
            paging.latest();
          }}
        >
          Later rows load as you scroll down — jump to the latest
        </button>
      )}
      <RunEnd outcome={outcome} onRetry={busy ? undefined : onRetry} error={error} />
    </section>
  );
}

/**
 * Brings a row asked for (a search hit, a link, a version) into the rendered slice, once per
 * request: from the rows held, or read around it first (paging.jump) when it is not held.
 */
function useReveal(focus: Focus | null | undefined, rows: Row[], reveal: (seq: number) => boolean, paging?: Paging) {
  const done = useRef<Focus | null>(null);
  useEffect(() => {
    if (!focus || done.current === focus || rows[0]?.session_id !== focus.sessionID) return;
    if (reveal(focus.seq)) done.current = focus;
    else paging?.jump(focus.seq);
  }, [focus, rows, reveal, paging]);
}

interface Watched {
  rows: Row[];
  shown: Row[];
  outputs: Record<string, string>;
  /** How many calls wait for a person. */
  pending: number;
  focus: Focus | null | undefined;
  outcome: RunFinishedPayload | null;
  sent: Sent | null;
}

/**
 * Keeps the conversation where the person wants it: on a row asked for (once per request,
 * outlined), else at the bottom while stick holds (the person has not scrolled up). Returns
 * what the streaming reply calls as it grows.
 */
function useKeepInView(scroller: RefObject<HTMLElement | null>, stick: RefObject<boolean>, { rows, shown, outputs, pending, focus, outcome, sent }: Watched) {
  const scrolledTo = useRef<Focus | null>(null);
  const sentSeen = useRef(sent);
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
    // Sending asks to see the reply: back to the bottom, whether a search hit or a small
    // scroll up had moved away from it.
    if (sent && sent !== sentSeen.current) stick.current = true;
    sentSeen.current = sent;
    if (stick.current) el.scrollTop = el.scrollHeight;
  }, [scroller, stick, rows, shown, outputs, pending, focus, outcome, sent]);

  return useCallback(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [scroller, stick]);
}

/** How the run ended (unless it completed), Retry when it can run again, and the session's error. */
function RunEnd({ outcome, onRetry, error }: { outcome: RunFinishedPayload | null; onRetry?: () => void; error: string }) {
  return (
    <>
      {outcome && outcome.status !== 'completed' && (
        <div className="run-outcome" role="alert">
          <strong>{STOP_TEXT[outcome.status] ?? `Run ended: ${outcome.status}`}</strong>
          {outcome.error && <span className="detail"> {outcome.error}</span>}
        </div>
      )}
      {onRetry && (
        <div className="retry-row">
          <button type="button" className="primary" onClick={onRetry} title="Run again from the last complete row; your message is not sent twice">
            Retry
          </button>
        </div>
      )}
      {error && (
        <div className="run-outcome" role="alert">
          {error}
        </div>
      )}
    </>
  );
}

/** How long a row asked for (a search hit, a version switched to) stays outlined. */
export const FLASH_MS = 2500;

/**
 * The seq of the row asked for while it is outlined: each request outlines it for FLASH_MS,
 * then the outline (and the mark on an element folded into a card) goes.
 */
function useFlash(focus: Focus | null | undefined, scroller: RefObject<HTMLElement | null>): number | null {
  const [lit, setLit] = useState<number | null>(null);
  useEffect(() => {
    if (!focus) return;
    setLit(focus.seq);
    const t = setTimeout(() => {
      setLit(null);
      scroller.current?.querySelectorAll('.hit-target').forEach((x) => x.classList.remove('hit-target'));
    }, FLASH_MS);
    return () => clearTimeout(t);
  }, [focus, scroller]);
  return lit;
}

/**
 * The reply streaming in. It alone subscribes to the streamed text, so a
 * frame of deltas re-renders this article and nothing else.
 */
function StreamingReply({ store, run, from, showWaiting, onGrow }: { store: StreamStore; run: string; from: number; showWaiting: boolean; onGrow: () => void }) {
  const segments = useSyncExternalStore(store.subscribe, store.get);
  const { text, reasoning } = useMemo(() => visible(segments, run, from), [segments, run, from]);
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

// One {seq, payload} per stored row, so a card whose row did not change keeps its props and
// its memo holds when rows are appended (the work of an append stays with the new rows).
// The map holds each row's own payload, so what it gives back for r is r's payload type.
const indexedRows = new WeakMap<Row, Indexed<Row['payload']>>();
function indexed<R extends Row>(r: R): Indexed<R['payload']> {
  let v = indexedRows.get(r);
  if (!v) indexedRows.set(r, (v = { seq: r.seq, payload: r.payload }));
  return v as Indexed<R['payload']>;
}

/** Where a tool call's card is: the seq of the assistant row that made it, and the call id. */
const cardKey = (turn: number, call: string) => `${turn}:${call}`;

/**
 * Pairs result and approval rows with the card of their call: the latest assistant row before
 * them that made a call with that id (ids are unique only within a turn). open lists the calls
 * (by callKey) with neither a result nor a decision stored: the ones a pending entry can be.
 */
function pairCalls(shown: Row[]) {
  const turnOf = new Map<string, Row>();
  const results = new Map<string, Indexed<ToolResultPayload>>();
  const approvals = new Map<string, Indexed<ApprovalPayload>>();
  const hooks = new Map<string, Indexed<HookPayload>[]>();
  const folded = new Set<number>();
  for (const r of shown) {
    if (r.kind === 'assistant') {
      for (const c of r.payload.tool_calls ?? []) turnOf.set(c.id, r);
      continue;
    }
    if (r.kind === 'hook') {
      // A tool hook's run shows on its call's card (why a call was blocked); the rest stand alone.
      const id = r.payload.call_id;
      const turn = id ? turnOf.get(id) : undefined;
      if (!id || !turn) continue;
      folded.add(r.seq);
      const k = cardKey(turn.seq, id);
      hooks.set(k, [...(hooks.get(k) ?? []), indexed(r)]);
      continue;
    }
    if (r.kind !== 'tool_result' && r.kind !== 'approval') continue;
    const turn = turnOf.get(r.payload.call_id);
    if (!turn) continue;
    folded.add(r.seq);
    if (r.kind === 'tool_result') results.set(cardKey(turn.seq, r.payload.call_id), indexed(r));
    else approvals.set(cardKey(turn.seq, r.payload.call_id), indexed(r));
  }
  const open = new Set<string>();
  for (const [call, turn] of turnOf) {
    const k = cardKey(turn.seq, call);
    if (!results.has(k) && !approvals.has(k)) open.add(callKey(turn.run_id, call));
  }
  return { results, approvals, hooks, folded, open };
}

/** What one tool-call card of an assistant row shows. */
interface Card {
  call: ToolCall;
  result?: Indexed<ToolResultPayload>;
  approval?: Indexed<ApprovalPayload>;
  hooks?: Indexed<HookPayload>[];
  pending?: PendingCall;
  output?: string;
  running?: RunningTool;
}

const NO_CARDS: Card[] = [];

const sameList = <T,>(a?: T[], b?: T[]) => a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]));

/**
 * The cards of an assistant row. A result or decision row belongs to the card of the latest
 * call with its id before it (cardKey); pending, running and output belong to a call by
 * (run, id), and only a call with nothing stored yet can wait or run.
 */
function cardsOf(
  row: RowOf<'assistant'>,
  results: Map<string, Indexed<ToolResultPayload>>,
  approvals: Map<string, Indexed<ApprovalPayload>>,
  hooks: Map<string, Indexed<HookPayload>[]>,
  pending: Map<string, PendingCall>,
  outputs: Record<string, string>,
  running: Record<string, RunningTool>,
): Card[] {
  const calls = row.payload.tool_calls ?? [];
  if (calls.length === 0) return NO_CARDS;
  return calls.map((call) => {
    const result = results.get(cardKey(row.seq, call.id));
    const approval = approvals.get(cardKey(row.seq, call.id));
    const live = callKey(row.run_id, call.id);
    return {
      call,
      result,
      approval,
      hooks: hooks.get(cardKey(row.seq, call.id)),
      pending: !result && !approval ? pending.get(live) : undefined,
      output: outputs[live],
      running: result ? undefined : running[live],
    };
  });
}

const sameCards = (a: Card[], b: Card[]) =>
  a === b ||
  (a.length === b.length &&
    a.every((x, i) => {
      const y = b[i];
      return (
        x.call === y.call &&
        x.result === y.result &&
        x.approval === y.approval &&
        sameList(x.hooks, y.hooks) &&
        x.pending === y.pending &&
        x.output === y.output &&
        x.running === y.running
      );
    }));

interface RowProps {
  row: Row;
  focused: boolean;
  /** A result or approval row shown on its call's card. */
  folded: boolean;
  cards: Card[];
  actions: CardActions;
  controls?: ConversationControls;
  versions?: Versions;
  /** A user row's images left out of the context: the reason, by hash. */
  excluded?: Record<string, string>;
  /** An image_excluded row's images, by name. */
  excludedNames?: string[];
}

// Appending a row re-renders the new row (and a card whose call changed), not the rows above.
const sameRow = (a: RowProps, b: RowProps) =>
  a.row === b.row && a.focused === b.focused && a.folded === b.folded && a.actions === b.actions && a.controls === b.controls && a.versions === b.versions &&
  a.excluded === b.excluded && sameList(a.excludedNames, b.excludedNames) && sameCards(a.cards, b.cards);

const NOTE_TITLES: Record<string, string> = {
  hunk_revert: 'You reverted a hunk; the model is told',
  fork_apply: "A fork's changes were applied here; the model is told",
  kept_files: 'Files another version changed were kept; the model is told',
  budget: 'A budget of this run is nearly used up; the model is asked to finish',
};

/** A reply: its reasoning, its text (marked when stopped), its actions, and the cards of its calls. */
function AssistantRow({ row, cls, cards, actions, controls, versions }: Pick<RowProps, 'cards' | 'actions' | 'controls' | 'versions'> & { row: RowOf<'assistant'>; cls: string }) {
  const p = row.payload;
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
          {p.stopped && (
            <p className="stopped-mark" role="note" aria-label="Reply stopped">
              Stopped here: you stopped the run while this reply was being written.
            </p>
          )}
          <ReplyActions seq={row.seq} text={p.text} final={isFinalReply(row)} versions={versions} controls={controls} />
        </article>
      )}
      {cards.map((c, i) => (
        <div key={c.call.id} className={`card-slot${cls}`} data-seq={!p.text && !p.reasoning && i === 0 ? row.seq : undefined}>
          <ToolCard
            call={c.call}
            result={c.result}
            approval={c.approval}
            hooks={c.hooks}
            pending={c.pending}
            output={c.output}
            running={c.running}
            actions={actions}
          />
        </div>
      ))}
    </>
  );
}

/** A summary: earlier rows summarised, rows set aside for the context window, or a compaction undone. */
function SummaryRow({ row, cls }: { row: RowOf<'summary'>; cls: string }) {
  const p = row.payload;
  if (p.undoes) {
    return (
      <p className={`note${cls}`} data-seq={row.seq}>
        {p.text}
      </p>
    );
  }
  const label = p.from_seq
    ? `Rows #${p.from_seq}–#${p.through_seq} were set aside: they did not fit in the model's context window`
    : `Earlier messages were summarised (through #${p.through_seq})`;
  return (
    <details className={`summary${p.from_seq ? ' set-aside' : ''}${cls}`} data-seq={row.seq}>
      <summary>{label}</summary>
      <p className="plain">{p.text}</p>
    </details>
  );
}

const RowView = memo(function RowView({ row, focused, folded, cards, actions, controls, versions, excluded, excludedNames }: RowProps) {
  const cls = focused ? ' focused' : '';
  switch (row.kind) {
    case 'user': {
      const p = row.payload;
      return (
        <UserMessage seq={row.seq} text={p.text} command={p.command} images={p.images} excluded={excluded} className={cls} versions={versions} controls={controls} />
      );
    }
    case 'assistant':
      return <AssistantRow row={row} cls={cls} cards={cards} actions={actions} controls={controls} versions={versions} />;
    case 'tool_result': {
      const p = row.payload;
      if (folded) return null;
      return (
        <details className={`tool-result standalone${p.is_error ? ' error' : ''}${cls}`} data-seq={row.seq}>
          <summary>
            {p.name} result{p.is_error ? ' (error)' : ''}
          </summary>
          <pre>{p.content}</pre>
          <FileChanges seq={row.seq} />
        </details>
      );
    }
    case 'restore':
      return <RestoreRow seq={row.seq} payload={row.payload} className={cls} />;
    case 'note': {
      // Loopdesk's note to the model (a reverted hunk, a fork applied...), with the file
      // change recorded on it.
      const p = row.payload;
      return (
        <article className={`msg note-row${cls}`} aria-label="Loopdesk note" data-seq={row.seq}>
          <details>
            <summary>{NOTE_TITLES[p.source] ?? 'Note to the model'}</summary>
            <p className="plain">{p.text}</p>
          </details>
          <FileChanges seq={row.seq} />
        </article>
      );
    }
    case 'usage': {
      // A model call that left no answer still cost what it cost (or is unknown).
      const p = row.payload;
      if (folded) return null;
      return (
        <p className={`note usage-row${cls}`} data-seq={row.seq} aria-label="Model call without an answer">
          {usageRowText(p)}
        </p>
      );
    }
    case 'approval': {
      const p = row.payload;
      if (folded) return null;
      return (
        <p className={`note${cls}`} data-seq={row.seq}>
          {p.tool} {p.decision}
          {p.reason ? `: ${p.reason}` : ''}
        </p>
      );
    }
    case 'summary':
      return <SummaryRow row={row} cls={cls} />;
    case 'hook': {
      const p = row.payload;
      if (folded) return null;
      return (
        <p className={`note hook${p.failed ? ' bad' : ''}${cls}`} data-seq={row.seq}>
          {describeHook(p)}
        </p>
      );
    }
    case 'image_excluded': {
      // A provider refused these images: they stay in the session, left out of the context.
      const p = row.payload;
      return (
        <p className={`note image-excluded${cls}`} data-seq={row.seq} role="note" aria-label="Image left out">
          Left out of the context: {(excludedNames ?? []).join(', ')}. The provider refused {(excludedNames ?? []).length === 1 ? 'it' : 'them'}
          {p.model ? ` (${p.model})` : ''}: {p.reason}
        </p>
      );
    }
    case 'system':
      return (
        <p className={`note system${cls}`} data-seq={row.seq}>
          {row.payload.text}
        </p>
      );
    default:
      return null;
  }
}, sameRow);
