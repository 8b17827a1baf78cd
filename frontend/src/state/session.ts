// The page's state for one open session: a pure reducer over the typed loop events Go sends
// (api/events.ts) and the answers of the few calls the page makes (open, rows after a gap,
// runs, pending approvals, send, decide). It reads no clock and calls nothing: times arrive on
// inputs (`at`, stamped by the hook when an event is received), and the I/O the state asks for
// is written into it (`missingAfter`, `runsWanted`) for the hook to perform. See
// hooks/useSession.ts for the driver and state/session.test.ts for the transcripts.
//
// Order: the hook hands must-deliver events over in seq order (state/sequencer.ts), so this
// reducer sees a run's events as Go published them. Rows are the truth: they arrive on
// rows_stored (or from RowsAfter after a gap) and are appended when they continue the rows
// held; earlier ones are ignored, later ones mark a gap.
//
// Call ids are unique only within one assistant turn, so pending approvals, running tools and
// their output are keyed by (run id, call id), and a call with a stored decision or result
// after its turn's assistant row is never shown as pending.

import type {
  ApprovalRequestedPayload,
  Change,
  LiveView,
  LoopEvent,
  Meter,
  ModelRetryingPayload,
  QueuedMessage,
  Repeats,
  Row,
  RunFinishedPayload,
  Run,
  RunningCall,
  Session,
  SessionMode,
  SessionView,
  Totals,
} from '../api/types';
import { extend, MAX_ROWS, prepend } from './window';

/** What the run is doing now, for the status line and the Send/Stop button. */
export type Phase = 'idle' | 'waiting' | 'streaming' | 'tools';

/** A tool call that is executing: its name and when the page heard it start (ms since epoch). */
export interface RunningTool {
  run_id: string;
  call_id: string;
  name: string;
  since: number;
}

/**
 * A call waiting for a person as the page keeps it: Go's one pending-call shape (the same on
 * approval_requested, Chat.Live and OpenSession), with its run, and its arguments as the JSON
 * text the card shows and the person edits.
 */
export interface PendingCall extends Omit<ApprovalRequestedPayload, 'arguments'> {
  run_id: string;
  arguments: string;
}

/** The one conversion from the wire's pending call: arguments arrive parsed (or as the raw text, a string, when they did not parse). */
export function pendingCall(p: ApprovalRequestedPayload, run: string): PendingCall {
  return { ...p, run_id: run, arguments: typeof p.arguments === 'string' ? p.arguments : JSON.stringify(p.arguments ?? {}) };
}

/** The text of a message sent and not yet stored as a row. */
export interface Sent {
  text: string;
  /** The last row seq when it was sent: the first user row after it is this message. */
  after: number;
}

export interface SessionState {
  /** The session this state belongs to; inputs for another one are ignored. */
  id: string | null;
  session: Session | null;
  /** OpenSession has answered. */
  loaded: boolean;
  /**
   * The rows held: a window of the session's rows (state/window.ts), its last rows unless the
   * person scrolled or jumped away from them.
   */
  rows: Row[];
  /** The seq of the session's first row (0 when it has none): rows before the window exist while rows[0].seq is above it. */
  firstSeq: number;
  /** The window holds the session's last row: rows stored live are appended. */
  atEnd: boolean;
  runs: Run[];
  /** The live run ('' when none). */
  run: string;
  phase: Phase;
  pending: PendingCall[];
  /** Executing calls by callKey(run, call). */
  running: Record<string, RunningTool>;
  /** Streamed shell output by callKey(run, call), until the call's result is stored. */
  outputs: Record<string, string>;
  meters: Meter[];
  repeats: Repeats | null;
  runStartedAt: number | null;
  outcome: RunFinishedPayload | null;
  error: string;
  sent: Sent | null;
  /**
   * Deltas of the live run with a seq below this are stored already (their assistant row
   * arrived): the streaming preview shows only the text after it.
   */
  streamFrom: number;
  /** Rows after this seq are missing (a gap): the hook reads them with RowsAfter. */
  missingAfter: number | null;
  /** The highest row seq any event has announced. */
  seenSeq: number;
  /** Grows when the runs should be read again (a run started or finished). */
  runsWanted: number;
  /** What each row changed in the folder, by the row's seq (files_changed; checkpoints). */
  changes: Record<number, Change[]>;
  /** Messages sent during the run, waiting for its next tool boundary (Go's queue). */
  queued: QueuedMessage[];
  /** The session's mode (plan or execute) and approval mode. */
  mode: SessionMode;
  /** What all the session's runs used, as Go summed it. */
  totals: Totals | null;
  /** Runs the page saw finish (the latest few): an older answer of Go's never revives one. */
  ended: string[];
  /** The seq of the latest must-deliver event applied. */
  eventSeq: number;
  /** MCP servers the latest run started without ("name: why"), from its run_started. */
  mcpFailed: string[];
  /** The provider's latest retry of the live run's model call, until an answer arrives. */
  retrying: ModelRetryingPayload | null;
}

/** Inputs that are not loop events: what the page's own calls answered or did. */
export type PageInput =
  | { type: 'switched'; id: string | null }
  | { type: 'opened'; view: SessionView }
  | { type: 'session_loaded'; session: Session }
  | { type: 'rows_loaded'; rows: Row[] }
  /** A page of earlier rows (RowsBefore), rows after a window away from the end, rows around a row jumped to. */
  | { type: 'rows_before'; rows: Row[] }
  | { type: 'rows_later'; rows: Row[] }
  | { type: 'rows_jumped'; rows: Row[] }
  | { type: 'runs_loaded'; runs: Run[] }
  | { type: 'pending_loaded'; pending: ApprovalRequestedPayload[] }
  | { type: 'send_started'; text: string; at: number }
  | { type: 'send_failed'; error: string }
  | { type: 'decided'; call_id: string }
  | { type: 'mode_set'; mode: SessionMode }
  | { type: 'totals_loaded'; totals: Totals }
  | { type: 'queued_loaded'; queued: QueuedMessage[] }
  | { type: 'live_loaded'; live: LiveView }
  | { type: 'failed'; error: string };

/** A loop event as received: `at` is when the page got it (ms since epoch). */
export type ReceivedEvent = LoopEvent & { at?: number };

export type SessionInput = ReceivedEvent | PageInput;

export const callKey = (run: string, call: string): string => `${run}\u0000${call}`;

export function initialSession(id: string | null = null): SessionState {
  return {
    id,
    session: null,
    loaded: false,
    rows: [],
    firstSeq: 0,
    atEnd: true,
    runs: [],
    run: '',
    phase: 'idle',
    pending: [],
    running: {},
    outputs: {},
    meters: [],
    repeats: null,
    runStartedAt: null,
    outcome: null,
    error: '',
    sent: null,
    streamFrom: 0,
    missingAfter: null,
    seenSeq: 0,
    runsWanted: 0,
    changes: {},
    queued: [],
    mode: { mode: 'execute', approve: '' },
    totals: null,
    ended: [],
    eventSeq: 0,
    mcpFailed: [],
    retrying: null,
  };
}

/** The seq of the last row held (0 for none). */
export const lastSeq = (s: SessionState): number => s.rows.at(-1)?.seq ?? 0;

export function reduceSession(s: SessionState, input: SessionInput): SessionState {
  if (input.type === 'switched') return input.id === s.id ? s : initialSession(input.id);
  if ('session_id' in input && input.session_id !== s.id) return s;
  switch (input.type) {
    case 'opened':
      return opened(s, input.view);
    case 'session_loaded':
      return input.session.id === s.id ? { ...s, session: input.session } : s;
    case 'rows_loaded':
      return s.atEnd ? rowsLoaded(s, input.rows) : s;
    case 'rows_before':
      return { ...s, ...prepend(s, input.rows) };
    case 'rows_later':
      return clearSent({ ...s, ...extend(s, input.rows, s.seenSeq) });
    case 'rows_jumped':
      return jumped(s, input.rows);
    case 'runs_loaded':
      return { ...s, runs: input.runs };
    case 'pending_loaded':
      return { ...s, pending: withRun(input.pending, s.run).filter((p) => !isResolved(s.rows, p.run_id, p.call_id)) };
    case 'send_started':
      return { ...s, sent: { text: input.text, after: Math.max(lastSeq(s), s.seenSeq) }, phase: s.phase === 'idle' ? 'waiting' : s.phase, outcome: null, error: '', runStartedAt: input.at };
    case 'send_failed':
      return { ...s, sent: null, phase: s.run ? s.phase : 'idle', error: input.error };
    case 'decided':
      return { ...s, pending: s.pending.filter((p) => !(p.run_id === s.run && p.call_id === input.call_id)) };
    case 'failed':
      return { ...s, error: input.error };
    case 'mode_set':
      return { ...s, mode: input.mode };
    case 'totals_loaded':
      return input.totals.session_id === s.id ? { ...s, totals: input.totals } : s;
    case 'queued_loaded':
      return { ...s, queued: input.queued };
    case 'live_loaded':
      return reconcile(s, input.live);
    default: {
      const out = onEvent(s, input);
      return input.type === 'text_delta' || input.type === 'reasoning_delta' || input.type === 'tool_output' || !(input.seq > out.eventSeq)
        ? out
        : { ...out, eventSeq: input.seq };
    }
  }
}

function onEvent(s: SessionState, ev: ReceivedEvent): SessionState {
  const at = ev.at ?? 0;
  switch (ev.type) {
    case 'run_started': {
      const t = Date.parse(ev.started_at);
      return {
        ...s,
        mcpFailed: ev.mcp_failed ?? [],
        retrying: null,
        run: ev.run_id,
        phase: s.phase === 'idle' || s.phase === 'waiting' ? 'waiting' : s.phase,
        outcome: null,
        runStartedAt: Number.isNaN(t) ? at : t,
        streamFrom: ev.seq,
        repeats: null,
        runsWanted: s.runsWanted + 1,
      };
    }
    case 'rows_stored':
      return rowsStored(s, ev.rows ?? [], ev.seq);
    case 'text_delta':
    case 'reasoning_delta':
      // The text itself goes to the hook's stream buffer; here it only says the model answers.
      return ev.run_id === s.run && ev.seq >= s.streamFrom && s.phase === 'waiting' ? { ...s, phase: 'streaming', retrying: null } : s;
    case 'assistant_message':
      return ev.run_id === s.run && s.phase !== 'idle' ? { ...s, phase: 'waiting', retrying: null } : s;
    case 'model_retrying':
      return ev.run_id === s.run ? { ...s, retrying: ev } : s;
    case 'approval_requested':
      return approvalRequested(s, ev);
    case 'approval_decided':
      return { ...s, pending: s.pending.filter((p) => !(p.run_id === ev.run_id && p.call_id === ev.call_id)) };
    case 'tool_started': {
      const key = callKey(ev.run_id, ev.call_id);
      return { ...s, phase: 'tools', running: { ...s.running, [key]: { run_id: ev.run_id, call_id: ev.call_id, name: ev.name, since: at } } };
    }
    case 'tool_output': {
      const key = callKey(ev.run_id, ev.call_id);
      return { ...s, outputs: { ...s.outputs, [key]: (s.outputs[key] ?? '') + ev.text } };
    }
    case 'tool_finished': {
      const key = callKey(ev.run_id, ev.call_id);
      const { [key]: _r, ...running } = s.running;
      const { [key]: _o, ...outputs } = s.outputs;
      return { ...s, running, outputs };
    }
    case 'files_changed':
      return { ...s, changes: { ...s.changes, [ev.row_seq]: ev.changes ?? [] } };
    case 'budget':
      return { ...s, meters: ev.meters ?? s.meters, repeats: ev.repeats };
    case 'run_finished':
      // A late run_finished of an earlier run never ends the run now going.
      if (s.run && ev.run_id !== s.run) return { ...s, ended: [...s.ended, ev.run_id].slice(-20), runsWanted: s.runsWanted + 1 };
      return {
        ...s,
        ended: [...s.ended, ev.run_id].slice(-20),
        run: '',
        phase: 'idle',
        pending: s.pending.filter((p) => p.run_id !== ev.run_id),
        running: {},
        outputs: {},
        outcome: ev,
        meters: ev.meters ?? s.meters,
        sent: null,
        retrying: null,
        runsWanted: s.runsWanted + 1,
      };
    case 'queue_changed':
      return { ...s, queued: ev.queued ?? [] };
    case 'tool_call':
    case 'usage':
    case 'compacted':
      // Nothing to draw: their rows (if any) came on rows_stored, their numbers on budget.
      return s;
  }
}

function opened(s: SessionState, v: SessionView): SessionState {
  const run = v.running_run_id;
  const base: SessionState = {
    ...s,
    session: v.session,
    loaded: true,
    rows: v.rows ?? [],
    firstSeq: v.first_seq || (v.rows?.[0]?.seq ?? 0),
    atEnd: true,
    runs: v.runs ?? [],
    run,
    phase: run ? (s.phase === 'idle' ? 'waiting' : s.phase) : s.sent ? s.phase : 'idle',
    // A page opened while a run goes (a reload) counts the run's time from its stored start.
    runStartedAt: s.runStartedAt ?? startOf(v.runs ?? [], run),
    pending: withRun(v.pending ?? [], run),
    running: run ? liveRunning({ ...s, rows: v.rows ?? [] }, run, v.running ?? [], false) : s.running,
    meters: v.meters ?? [],
    mode: v.mode ?? s.mode,
    totals: v.totals ?? s.totals,
    queued: v.queued ?? [],
    // A run that ended before the page opened (another session, a restart) still says why it stopped.
    outcome: s.outcome ?? (run ? null : storedOutcome(v.runs ?? [])),
    missingAfter: null,
    seenSeq: Math.max(s.seenSeq, v.rows?.at(-1)?.seq ?? 0),
  };
  const busy = run !== '' && Object.keys(base.running).length > 0;
  return clearSent(busy && base.phase === 'waiting' ? { ...base, phase: 'tools' } : base);
}

/** The last stored run's stop as the page shows a live one, unless it completed or still runs. */
function storedOutcome(runs: Run[]): RunFinishedPayload | null {
  const last = runs.at(-1);
  if (!last || last.status === 'completed' || last.status === 'running' || last.status === 'interrupted') return null;
  return { ...last, status: last.status, ended_at: last.ended_at ?? '', meters: null };
}

/** When the run started (ms since epoch), from the runs Go listed; null when not listed. */
function startOf(runs: Run[], run: string): number | null {
  const t = run ? Date.parse(runs.find((r) => r.run_id === run)?.started_at ?? '') : NaN;
  return Number.isNaN(t) ? null : t;
}

/**
 * Appends rows that continue the ones held (the oldest held go past MAX_ROWS); ignores older
 * ones; marks a gap for newer ones. A window away from the end only learns how far the session goes.
 */
function append(s: SessionState, rows: Row[]): SessionState {
  const last = lastSeq(s);
  const fresh = rows.filter((r) => r.seq > last);
  const seenSeq = Math.max(s.seenSeq, rows.at(-1)?.seq ?? 0);
  if (fresh.length === 0 || !s.atEnd) return seenSeq === s.seenSeq ? s : { ...s, seenSeq };
  if (fresh[0].seq !== last + 1) return { ...s, seenSeq, missingAfter: s.missingAfter ?? last };
  const all = [...s.rows, ...fresh];
  return clearSent({ ...s, rows: all.length > MAX_ROWS ? all.slice(all.length - MAX_ROWS) : all, seenSeq, firstSeq: s.firstSeq || all[0].seq });
}

/** The window replaced by the rows around a row jumped to (or the session's last rows). */
function jumped(s: SessionState, rows: Row[]): SessionState {
  if (rows.length === 0) return s;
  const last = rows.at(-1)?.seq ?? 0;
  return clearSent({ ...s, rows, atEnd: last >= s.seenSeq, seenSeq: Math.max(s.seenSeq, last), missingAfter: null });
}

function rowsStored(s: SessionState, rows: Row[], eventSeq: number): SessionState {
  const next = append(s, rows);
  // The live run's assistant turn is stored: its streamed preview is no longer shown.
  const turnStored = next.rows.length > s.rows.length && rows.some((r) => r.kind === 'assistant' && r.run_id === s.run && s.run !== '');
  return turnStored ? { ...next, streamFrom: eventSeq } : next;
}

function rowsLoaded(s: SessionState, rows: Row[]): SessionState {
  const next = append({ ...s, missingAfter: null }, rows);
  // Rows announced since the read began are still missing: read again, unless this read
  // brought nothing (then Go has nothing more to give).
  const more = next.rows.length > s.rows.length && next.seenSeq > lastSeq(next);
  return { ...next, missingAfter: more ? lastSeq(next) : null };
}

/** The sent message is shown until the first user row after it is stored. */
function clearSent(s: SessionState): SessionState {
  if (!s.sent) return s;
  const after = s.sent.after;
  return s.rows.some((r) => r.seq > after && r.kind === 'user') ? { ...s, sent: null } : s;
}

function approvalRequested(s: SessionState, ev: ReceivedEvent & { type: 'approval_requested' }): SessionState {
  if (s.pending.some((p) => p.run_id === ev.run_id && p.call_id === ev.call_id)) return s;
  if (isResolved(s.rows, ev.run_id, ev.call_id)) return s;
  const { call_id, name, arguments: args, read_only, sandboxed, network, hunks, note } = ev;
  const p = pendingCall({ call_id, name, arguments: args, read_only, sandboxed, network, hunks, note }, ev.run_id);
  return { ...s, pending: [...s.pending, p] };
}

function withRun(pending: ApprovalRequestedPayload[], run: string): PendingCall[] {
  return pending.map((p) => pendingCall(p, run));
}

/**
 * Whether the call's decision or result is stored: a row naming the call after the latest
 * assistant row of that run which made it. Scans back from the end (the call is recent).
 */
export function isResolved(rows: Row[], run: string, call: string): boolean {
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i];
    if (r.run_id !== run) continue;
    if (r.kind === 'assistant' && r.payload.tool_calls?.some((c) => c.id === call)) return false;
    if (r.kind === 'tool_result' && r.payload.call_id === call) return true;
    if (r.kind === 'approval' && r.payload.call_id === call) return true;
  }
  return false;
}

/**
 * Reconciles the page with what Go knows right now (Chat.Live): the run going on, the calls
 * waiting for a person, the calls executing, the queued messages. Events may arrive in any
 * order around the read, so nothing the page already holds is dropped for an older answer:
 * calls and messages are merged, and only what the rows show as resolved or delivered goes. A
 * run Go no longer has ended (its run_finished was missed or is late); a run Go has that the
 * page does not show is shown, with its pending and running calls, so an approval or a task
 * whose child works (its approvals are stored with their results, and its tool_started went
 * by before a reload) can never stay hidden behind "Waiting for the model…".
 */
function reconcile(s: SessionState, v: LiveView): SessionState {
  // Go read the run as going before the page heard it end: the answer is older than the event.
  const run = s.ended.includes(v.running_run_id ?? '') ? '' : (v.running_run_id ?? '');
  const queued = mergeBy(s.queued, v.queued ?? [], (q) => q.id).filter((q) => !isDelivered(s.rows, q.id));
  // Only a read that began after every event the page applied may end what the page shows.
  const fresh = v.seq >= s.eventSeq;
  if (!run) {
    if (!s.run || !fresh) return { ...s, queued };
    return { ...s, queued, run: '', phase: s.sent ? s.phase : 'idle', pending: [], running: {}, outputs: {}, runsWanted: s.runsWanted + 1 };
  }
  const mine = s.run === run ? s.pending : [];
  const pending = mergeBy(mine, withRun(v.pending ?? [], run), (p) => p.call_id).filter((p) => !isResolved(s.rows, run, p.call_id));
  const running = liveRunning(s, run, v.running ?? [], fresh);
  const busy = Object.keys(running).length > 0;
  if (s.run === run) return { ...s, queued, pending, running, phase: busy && s.phase === 'waiting' ? 'tools' : s.phase };
  const phase = busy ? 'tools' : s.phase === 'idle' ? 'waiting' : s.phase;
  return { ...s, queued, pending, running, run, phase, runsWanted: s.runsWanted + 1 };
}

/**
 * The run's executing calls after a Live read: Go's list (a call keeps the start the page
 * already had for it), plus, for a read older than an applied event, the ones the page holds
 * (a tool_started newer than the read). A call whose result is stored is never shown running.
 */
function liveRunning(s: SessionState, run: string, calls: RunningCall[], fresh: boolean): Record<string, RunningTool> {
  const held = s.run === run ? s.running : {};
  const out: Record<string, RunningTool> = fresh ? {} : { ...held };
  for (const c of calls) {
    const key = callKey(run, c.call_id);
    const since = Date.parse(c.started_at);
    out[key] = held[key] ?? { run_id: run, call_id: c.call_id, name: c.name, since: Number.isNaN(since) ? 0 : since };
  }
  for (const [key, t] of Object.entries(out)) if (isResolved(s.rows, run, t.call_id)) delete out[key];
  return out;
}

function mergeBy<T>(held: T[], fresh: T[], key: (t: T) => string): T[] {
  const seen = new Set(held.map(key));
  return [...held, ...fresh.filter((t) => !seen.has(key(t)))];
}

/** Whether a user row delivered the queued message id. */
function isDelivered(rows: Row[], id: string): boolean {
  return rows.some((r) => r.kind === 'user' && r.payload.queued_id === id);
}
