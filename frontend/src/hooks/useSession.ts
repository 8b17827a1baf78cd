import { useCallback, useEffect, useMemo, useReducer, useRef, type Dispatch, type RefObject } from 'react';
import { api, type WireEvent } from '../api/backend';
import { isLoopEvent } from '../api/events';
import { LOSSY_EVENTS } from '../api/types';
import type { DecisionInput, ImageInput, Session, SessionMode } from '../api/types';
import { errorMessage } from '../api/types';
import { createStore } from '../lib/store';
import { newSequencer, offer, release, type Sequencer } from '../state/sequencer';
import { initialSession, lastSeq, reduceSession, type ReceivedEvent, type SessionInput, type SessionState } from '../state/session';
import { appendDelta, prune, visible, type Delta, type Segment } from '../state/stream';
import { PAGE } from '../state/window';
import { useSessionPages } from './useSessionPages';

/** How long a hole in the event sequence may stay open before it counts as a lost event. */
const GAP_MS = 250;

export type { Phase, RunningTool } from '../state/session';
export type StreamStore = ReturnType<typeof createStore<Segment[]>>;

const isLossy = (type: string) => (LOSSY_EVENTS as readonly string[]).includes(type);

/**
 * One open session: the state is reduceSession's (state/session.ts); this hook does the I/O.
 * It opens the session with its last rows (earlier ones come a page at a time: useSessionPages), hands Go's events to the reducer in seq
 * order, reads the rows after a gap and the runs when a run starts or ends, and coalesces
 * deltas to one update per animation frame: streamed text goes to a small external store read
 * by the streaming reply alone, tool output to the reducer.
 */
export function useSession(sessionID: string | null, onChanged?: () => void) {
  const [state, dispatch] = useReducer(reduceSession, sessionID, initialSession);
  const stateRef = useRef(state);
  stateRef.current = state;
  const changed = useRef(onChanged);
  changed.current = onChanged;
  const stream = useMemo(() => createStore<Segment[]>([]), []);
  const io = useRef(new Intake());
  const current = useRef<string | null>(null);
  const own: Own = { dispatch, current, changed };

  const { adopt, reconcile, resync } = useFollow(own, sessionID, io.current, stream, stateRef);
  useIntake(own, io.current, stream, stateRef, resync, reconcile);
  useReads(dispatch, state.id, state.missingAfter, state.runsWanted);
  const paging = useSessionPages(dispatch, current, stateRef);

  /**
   * Sends text to the session (id overrides the current one, for a session just created);
   * with command, sends "/name args" for Go to expand (text is what the box showed).
   */
  const send = useCallback(
    async (text: string, id: string | null = sessionID, images: ImageInput[] = [], command?: { name: string; args: string }): Promise<boolean> => {
      if (!id) return false;
      if (current.current !== id) adopt(id);
      // While a run goes on, Go queues the message: queue_changed shows it, not the "sent" line.
      const queuing = current.current === id && stateRef.current.run !== '';
      // Sending asks to see the reply: a window away from the end goes back to it.
      if (current.current === id) paging.latest();
      if (!queuing) dispatch({ type: 'send_started', text, at: Date.now() });
      try {
        await (command
          ? api.sendCommand(id, command.name, command.args)
          : images.length > 0
            ? api.sendWithImages(id, text, images)
            : api.sendMessage(id, text));
        changed.current?.();
        return true;
      } catch (e) {
        if (current.current === id) dispatch({ type: 'send_failed', error: errorMessage(e) });
        return false;
      }
    },
    [sessionID, adopt, paging],
  );

  return { ...state, stream, send, paging, ...useSteering(own) };
}

export type SessionHook = ReturnType<typeof useSession>;

/** What the parts of useSession share: the reducer's dispatch, the session followed, onChanged. */
interface Own {
  dispatch: Dispatch<SessionInput>;
  current: RefObject<string | null>;
  changed: RefObject<(() => void) | undefined>;
}

/**
 * Follows one session: adopt(id) makes it the one followed and opens it (the only whole-session
 * read), holding its events until the read is in; reconcile and resync read again what Go knows
 * (after a run, after a lost event).
 */
function useFollow({ dispatch, current, changed }: Own, sessionID: string | null, intake: Intake, stream: StreamStore, stateRef: RefObject<SessionState>) {
  /** Reconciles with what Go knows right now: run, pending calls, queued messages. */
  const reconcile = useCallback(
    (id: string) => {
      api.live(id).then((live) => current.current === id && dispatch({ type: 'live_loaded', live }), () => {});
    },
    [dispatch, current],
  );

  /** Applies the events held while the session was being opened. */
  const replay = useCallback(
    (id: string, events: SessionInput[]) => {
      for (const ev of events) {
        dispatch(ev);
        if (ev.type === 'run_finished') changed.current?.();
      }
      // Whatever happened between the read and the subscription, Go's state is the truth.
      reconcile(id);
    },
    [dispatch, changed, reconcile],
  );

  /** Makes id the session the hook follows, and opens it. */
  const adopt = useCallback(
    (id: string | null) => {
      current.current = id;
      intake.reset(id !== null);
      stream.set([]);
      dispatch({ type: 'switched', id });
      if (!id) return;
      api.openSession(id, PAGE).then(
        (view) => {
          if (current.current !== id) return;
          dispatch({ type: 'opened', view });
          // Events that came while OpenSession was in flight apply on top of what it read.
          replay(id, intake.open());
        },
        (e) => {
          if (current.current !== id) return;
          dispatch({ type: 'failed', error: errorMessage(e) });
          replay(id, intake.open());
        },
      );
    },
    [dispatch, current, intake, stream, replay],
  );

  useEffect(() => {
    if (current.current !== sessionID) adopt(sessionID);
  }, [sessionID, adopt]);

  // After a lost event: the rows after the last one held, the pending calls and the runs.
  const resync = useCallback(
    (id: string) => {
      // A window away from the end reads no rows: it is brought up to date when it comes back.
      if (stateRef.current.atEnd) void api.rowsAfter(id, lastSeq(stateRef.current)).then((rows) => current.current === id && dispatch({ type: 'rows_loaded', rows }), () => {});
      void api.runs(id).then((runs) => current.current === id && dispatch({ type: 'runs_loaded', runs }), () => {});
      reconcile(id);
    },
    [dispatch, current, stateRef, reconcile],
  );

  return { adopt, reconcile, resync };
}

/**
 * Hands Go's events of the followed session to the reducer in seq order: deltas coalesced to
 * one update per animation frame (text to the stream store, tool output to the reducer), a hole
 * in the sequence waited for GAP_MS and then read again (resync).
 */
function useIntake(
  { dispatch, current, changed }: Own,
  intake: Intake,
  stream: StreamStore,
  stateRef: RefObject<SessionState>,
  resync: (id: string) => void,
  reconcile: (id: string) => void,
) {
  useEffect(() => {
    const deliver = (ev: SessionInput) => {
      if (intake.gated(ev)) return;
      for (const out of intake.takeOutputs()) dispatch(out);
      dispatch(ev);
      if (ev.type === 'run_finished') {
        changed.current?.();
        // What the run left: messages still queued after a Stop or a bound, a next run.
        if (current.current) reconcile(current.current);
      }
    };
    const flush = () => {
      intake.frame = null;
      const s = stateRef.current;
      if (intake.textDirty) {
        intake.textDirty = false;
        intake.segments = prune(intake.segments, s.run, s.streamFrom);
        stream.set(intake.segments);
        const last = intake.lastDelta;
        if (last && s.phase === 'waiting' && visible(intake.segments, s.run, s.streamFrom).text) dispatch(last);
      }
      for (const out of intake.takeOutputs()) deliver(out);
    };
    const off = api.onEvent((wire: WireEvent) => {
      const id = current.current;
      if (wire.session_id !== id || !isLoopEvent(wire)) return;
      const ev = { ...wire, at: Date.now() } as ReceivedEvent;
      if (isLossy(ev.type)) {
        intake.lossy(ev);
        if (intake.frame === null) intake.frame = requestAnimationFrame(flush);
        return;
      }
      const [q, ready] = offer(intake.seq, ev, ev.type === 'run_started');
      intake.seq = q;
      for (const e of ready) deliver(e);
      if (q.held.length > 0 && intake.gapTimer === null) {
        intake.gapTimer = setTimeout(() => {
          intake.gapTimer = null;
          const [q2, late] = release(intake.seq);
          intake.seq = q2;
          if (late.length === 0 || current.current !== id) return;
          for (const e of late) deliver(e);
          resync(id);
        }, GAP_MS);
      } else if (q.held.length === 0 && intake.gapTimer !== null) {
        clearTimeout(intake.gapTimer);
        intake.gapTimer = null;
      }
    });
    return () => {
      off();
      intake.stop();
    };
  }, [dispatch, current, changed, intake, stream, stateRef, resync, reconcile]);

}

/** What the reducer asks to be read: the rows after a gap, the runs when one started or ended. */
function useReads(dispatch: Dispatch<SessionInput>, id: string | null, missingAfter: number | null, runsWanted: number) {
  // Rows after a gap, read once per gap.
  useEffect(() => {
    if (!id || missingAfter === null) return;
    let live = true;
    api.rowsAfter(id, missingAfter).then(
      (rows) => live && dispatch({ type: 'rows_loaded', rows }),
      (e) => live && dispatch({ type: 'failed', error: errorMessage(e) }),
    );
    return () => {
      live = false;
    };
  }, [dispatch, id, missingAfter]);

  // The runs, when a run started or finished; an older answer never replaces a newer one.
  useEffect(() => {
    if (!id || runsWanted === 0) return;
    let live = true;
    api.runs(id).then((runs) => live && dispatch({ type: 'runs_loaded', runs }), () => {});
    api.totals(id).then((totals) => live && dispatch({ type: 'totals_loaded', totals }), () => {});
    return () => {
      live = false;
    };
  }, [dispatch, id, runsWanted]);

}

/**
 * The calls that steer the open session (stop, decide, the queue, the mode, compaction); each
 * acts on the session followed when it was made, and a refusal shows in the conversation.
 */
function useSteering({ dispatch, current, changed }: Own) {
  const stop = useCallback(() => {
    const id = current.current;
    if (id) api.cancel(id).catch((e) => dispatch({ type: 'failed', error: errorMessage(e) }));
  }, []);

  /** Answers one pending call; Go refuses a call that is not pending. */
  const decide = useCallback(async (callID: string, d: DecisionInput): Promise<boolean> => {
    const id = current.current;
    if (!id) return false;
    try {
      await api.decide(id, callID, d);
      if (current.current === id) dispatch({ type: 'decided', call_id: callID });
      return true;
    } catch (e) {
      if (current.current !== id) return false;
      dispatch({ type: 'failed', error: errorMessage(e) });
      // Whatever Go holds is the truth: it may have been decided elsewhere.
      api.pendingApprovals(id).then((pending) => current.current === id && dispatch({ type: 'pending_loaded', pending }), () => {});
      return false;
    }
  }, []);

  /** Runs a steering call of the open session; a failure shows in the conversation. */
  const steer = useCallback(async <T,>(call: (id: string) => Promise<T>): Promise<T | null> => {
    const id = current.current;
    if (!id) return null;
    try {
      return await call(id);
    } catch (e) {
      if (current.current === id) dispatch({ type: 'failed', error: errorMessage(e) });
      return null;
    }
  }, []);

  const removeQueued = useCallback(
    async (qid: string) => {
      const ok = await steer((id) => api.removeQueued(id, qid));
      const id = current.current;
      if (id) api.queuedMessages(id).then((queued) => current.current === id && dispatch({ type: 'queued_loaded', queued }), () => {});
      return ok;
    },
    [steer],
  );
  /** Sends a message left queued now, as the prompt of a new run. */
  const sendQueued = useCallback(
    async (qid: string) => {
      const run = await steer((id) => api.sendQueued(id, qid));
      changed.current?.();
      return run;
    },
    [steer],
  );
  const setMode = useCallback(
    async (mode: string, approve: string) => {
      const m = await steer((id) => api.setMode(id, mode, approve));
      if (m) dispatch({ type: 'mode_set', mode: m });
    },
    [steer],
  );
  const executePlan = useCallback(
    async (approve: string) => {
      const run = await steer((id) => api.executePlan(id, approve));
      if (run) dispatch({ type: 'mode_set', mode: { mode: 'execute', approve: approve as SessionMode['approve'] } });
      changed.current?.();
    },
    [steer],
  );
  const compactHere = useCallback((seq: number) => steer((id) => api.compactHere(id, seq)), [steer]);
  const undoCompaction = useCallback((seq: number) => steer((id) => api.undoCompaction(id, seq)), [steer]);

  /** The session's record changed by another call (a folder chosen). */
  const updateSession = useCallback((session: Session) => dispatch({ type: 'session_loaded', session }), [dispatch]);
  return { stop, decide, updateSession, removeQueued, sendQueued, setMode, executePlan, compactHere, undoCompaction };

}

/**
 * The hook's mutable intake: the sequencer, events held while OpenSession is in flight, and
 * the deltas of the current animation frame.
 */
class Intake {
  seq: Sequencer<ReceivedEvent> = newSequencer();
  gapTimer: ReturnType<typeof setTimeout> | null = null;
  frame: number | null = null;
  segments: Segment[] = [];
  textDirty = false;
  lastDelta: ReceivedEvent | null = null;
  private outputs = new Map<string, ReceivedEvent & { type: 'tool_output' }>();
  private waiting: SessionInput[] | null = null;

  /** Forgets everything of the previous session; with opening, holds events until open(). */
  reset(opening: boolean) {
    this.stop();
    this.seq = newSequencer();
    this.segments = [];
    this.textDirty = false;
    this.lastDelta = null;
    this.outputs.clear();
    this.waiting = opening ? [] : null;
  }

  /** Holds ev while the session is being opened; true when held. */
  gated(ev: SessionInput): boolean {
    if (!this.waiting) return false;
    this.waiting.push(ev);
    return true;
  }

  /** The session is open: returns the events held meanwhile and lets the next ones through. */
  open(): SessionInput[] {
    const held = this.waiting ?? [];
    this.waiting = null;
    return held;
  }

  lossy(ev: ReceivedEvent) {
    if (ev.type === 'tool_output') {
      const prev = this.outputs.get(`${ev.run_id}\u0000${ev.call_id}`);
      this.outputs.set(`${ev.run_id}\u0000${ev.call_id}`, prev ? { ...prev, text: prev.text + ev.text } : ev);
    } else if (ev.type === 'text_delta' || ev.type === 'reasoning_delta') {
      this.segments = appendDelta(this.segments, ev as Delta);
      this.textDirty = true;
      this.lastDelta = ev;
    }
  }

  /** The tool output of this frame, one event per call; delivered before any later event. */
  takeOutputs(): ReceivedEvent[] {
    if (this.outputs.size === 0) return [];
    const out = [...this.outputs.values()];
    this.outputs.clear();
    return out;
  }

  stop() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    if (this.gapTimer !== null) clearTimeout(this.gapTimer);
    this.frame = null;
    this.gapTimer = null;
  }
}
