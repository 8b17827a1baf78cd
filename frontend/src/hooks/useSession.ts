import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, type WireEvent } from '../api/backend';
import type { BudgetPayload, RunFinishedPayload } from '../api/events';
import { LOSSY_EVENTS } from '../api/events';
import type { Chunk, DecisionInput, Pending, Run, Session } from '../api/types';
import { errorMessage } from '../api/types';
import { createStore, type Store } from '../lib/store';

/** What the run is doing now, for the status line and the Send/Stop button. */
export type Phase = 'idle' | 'waiting' | 'streaming' | 'tools';

/** Text that has streamed in but is not stored yet. */
export interface Streamed {
  text: string;
  reasoning: string;
}

export type StreamedStore = Store<Streamed>;

interface Buffer extends Streamed {
  /** Streamed shell output per call id. */
  outputs: Record<string, string>;
}

/** A tool call that is executing: its name and when it started (ms since epoch). */
export interface RunningTool {
  name: string;
  since: number;
}

/** How long a hole in the event sequence may stay open before it counts as a lost event. */
const GAP_MS = 250;

const EMPTY_STREAMED: Streamed = { text: '', reasoning: '' };
const NO_OUTPUTS: Record<string, string> = {};
const NO_CUT = { text: '', reasoning: '' };

/** Arguments arrive parsed on events and raw on Pending: keep the raw text. */
function rawArguments(a: unknown): string {
  return typeof a === 'string' ? a : JSON.stringify(a ?? {});
}

/**
 * One open session: its stored rows, runs and pending approvals, the run
 * streaming in (deltas buffered and flushed once per animation frame, so a
 * fast stream costs one render per frame), the budget meters, and the
 * actions send / stop / decide. Stored rows are the truth: events that store
 * something trigger a re-fetch (coalesced: one in flight at a time), and so
 * does a gap in the event sequence.
 */
export function useSession(sessionID: string | null, onChanged?: () => void) {
  const [session, setSession] = useState<Session | null>(null);
  const [rows, setRows] = useState<Chunk[]>([]);
  const [runs, setRuns] = useState<Run[]>([]);
  const [pending, setPending] = useState<Pending[]>([]);
  // Streamed text lives outside React state (see lib/store.ts): a frame of
  // deltas re-renders the streaming reply, not the window.
  const streamed = useMemo(() => createStore<Streamed>(EMPTY_STREAMED), []);
  const [outputs, setOutputs] = useState<Record<string, string>>(NO_OUTPUTS);
  // How much of the streamed text is stored as rows already. It is React
  // state, so it changes in the same render as the rows that now hold that
  // text: the reply never shows twice, nor not at all.
  const [cut, setCut] = useState<Streamed>(NO_CUT);
  const [running, setRunning] = useState<Record<string, RunningTool>>({});
  const [phase, setPhase] = useState<Phase>('idle');
  // Deltas arrive thousands a second: set the phase only when it changes, so
  // they do not each schedule a render.
  const phaseRef = useRef<Phase>('idle');
  const changePhase = useCallback((next: Phase | ((p: Phase) => Phase)) => {
    const v = typeof next === 'function' ? next(phaseRef.current) : next;
    if (v === phaseRef.current) return;
    phaseRef.current = v;
    setPhase(v);
  }, []);
  const [budget, setBudget] = useState<BudgetPayload | null>(null);
  const [runStartedAt, setRunStartedAt] = useState<number | null>(null);
  const [outcome, setOutcome] = useState<RunFinishedPayload | null>(null);
  const [error, setError] = useState('');
  const [loaded, setLoaded] = useState(false);

  const current = useRef(sessionID);
  current.current = sessionID;
  const changed = useRef(onChanged);
  changed.current = onChanged;
  const buffer = useRef<Buffer>({ text: '', reasoning: '', outputs: {} });
  const frame = useRef<number | null>(null);
  const loading = useRef<Promise<void> | null>(null);
  const again = useRef(false);
  const finished = useRef(new Set<string>());
  const liveRun = useRef('');
  const decided = useRef(new Set<string>());
  const requested = useRef(new Map<string, Pending>());
  const doneCalls = useRef(new Set<string>());
  const budgetSeq = useRef(0);
  // Sequence tracking: every seq up to `contiguous` has arrived; `ahead`
  // holds later ones that overtook a missing one. A hole still open after
  // GAP_MS was a lost event: re-fetch.
  const contiguous = useRef<number | null>(null);
  const ahead = useRef(new Set<number>());
  const gapTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  // Outputs get a new object only when output arrived, so cards and rows
  // that do not show streamed text are not re-rendered by text deltas.
  const outputsDirty = useRef(false);
  const flush = useCallback(() => {
    frame.current = null;
    const b = buffer.current;
    if (b.text !== streamed.get().text || b.reasoning !== streamed.get().reasoning) streamed.set({ text: b.text, reasoning: b.reasoning });
    if (outputsDirty.current) {
      outputsDirty.current = false;
      setOutputs({ ...b.outputs });
    }
  }, [streamed]);
  const schedule = useCallback(() => {
    if (frame.current === null) frame.current = requestAnimationFrame(flush);
  }, [flush]);
  const resetLive = useCallback(() => {
    buffer.current = { text: '', reasoning: '', outputs: {} };
    if (frame.current !== null) cancelAnimationFrame(frame.current);
    frame.current = null;
    outputsDirty.current = false;
    streamed.set(EMPTY_STREAMED);
    setOutputs(NO_OUTPUTS);
    setCut(NO_CUT);
  }, [streamed]);

  const fetchOnce = useCallback(async (id: string) => {
    try {
      const v = await api.openSession(id);
      if (current.current !== id) return;
      setSession(v.session);
      setRows(v.rows);
      setRuns(v.runs);
      // The fetch may predate an approval_requested or approval_decided that
      // has arrived since: events win over the fetched list.
      const fetched = v.pending.filter((p) => !decided.current.has(p.call_id));
      const asked = [...requested.current.values()].filter((p) => !fetched.some((x) => x.call_id === p.call_id));
      setPending([...fetched, ...asked]);
      setLoaded(true);
      // A fetch can answer after the run it saw running has finished (its
      // run_finished event came first): only a run not known to be over counts.
      if (v.running_run_id && !finished.current.has(v.running_run_id)) changePhase((p) => (p === 'idle' ? 'waiting' : p));
    } catch (e) {
      if (current.current === id) setError(errorMessage(e));
    }
  }, []);

  /** Re-fetches the session; calls made while one is in flight fold into one more. */
  const reload = useCallback(
    (id: string | null = current.current): Promise<void> => {
      if (!id) return Promise.resolve();
      if (loading.current) {
        again.current = true;
        return loading.current;
      }
      const run = async () => {
        do {
          again.current = false;
          await fetchOnce(id);
        } while (again.current && current.current === id);
        loading.current = null;
      };
      loading.current = run();
      return loading.current;
    },
    [fetchOnce],
  );

  // The session the state belongs to. send() claims a just-created session
  // before React selects it, so selecting it then does not wipe a run that
  // has already started.
  const loadedFor = useRef<string | null>(null);
  useEffect(() => {
    if (loadedFor.current === sessionID) return;
    loadedFor.current = sessionID;
    setSession(null);
    setRows([]);
    setRuns([]);
    setPending([]);
    setRunning({});
    changePhase('idle');
    setBudget(null);
    setOutcome(null);
    setError('');
    setLoaded(false);
    resetLive();
    contiguous.current = null;
    ahead.current.clear();
    budgetSeq.current = 0;
    requested.current.clear();
    loading.current = null;
    if (sessionID) void reload(sessionID);
  }, [sessionID, reload, resetLive]);

  const track = useCallback(
    (seq: number) => {
      if (contiguous.current === null) {
        contiguous.current = seq;
        return;
      }
      if (seq <= contiguous.current) return;
      ahead.current.add(seq);
      while (ahead.current.delete(contiguous.current + 1)) contiguous.current++;
      if (ahead.current.size === 0 || gapTimer.current) return;
      gapTimer.current = setTimeout(() => {
        gapTimer.current = null;
        if (ahead.current.size === 0) return;
        contiguous.current = Math.max(...ahead.current);
        ahead.current.clear();
        void reload();
      }, GAP_MS);
    },
    [reload],
  );

  useEffect(() => {
    const off = api.onEvent((ev: WireEvent) => {
      if (ev.session_id !== current.current) return;
      const lossy = (LOSSY_EVENTS as readonly string[]).includes(ev.type);
      if (!lossy && typeof ev.seq === 'number') track(ev.seq);
      // Events may arrive out of order. Whatever belongs to a run that has
      // already finished is history: the stored rows (re-fetched) say it all.
      if (ev.type !== 'run_finished' && finished.current.has(ev.run_id)) return;
      if (ev.run_id && liveRun.current !== ev.run_id) {
        // The first event of a run (a delta may overtake run_started) starts a fresh preview.
        liveRun.current = ev.run_id;
        resetLive();
      }
      switch (ev.type) {
        case 'run_started': {
          changePhase((p) => (p === 'idle' || p === 'waiting' ? 'waiting' : p));
          setOutcome(null);
          // Unless this run's meters overtook its start.
          if (budgetSeq.current <= ev.seq) setBudget(null);
          const t = Date.parse(String(ev.started_at ?? ''));
          setRunStartedAt(Number.isNaN(t) ? Date.now() : t);
          break;
        }
        case 'text_delta':
          buffer.current.text += String(ev.text ?? '');
          changePhase('streaming');
          schedule();
          break;
        case 'reasoning_delta':
          buffer.current.reasoning += String(ev.text ?? '');
          changePhase('streaming');
          schedule();
          break;
        case 'tool_output': {
          const id = String(ev.call_id ?? '');
          buffer.current.outputs[id] = (buffer.current.outputs[id] ?? '') + String(ev.text ?? '');
          outputsDirty.current = true;
          schedule();
          break;
        }
        case 'assistant_message': {
          // The stored row replaces the preview once it has been fetched; text
          // that streams in meanwhile (none, normally) is kept.
          const stored = { text: buffer.current.text, reasoning: buffer.current.reasoning };
          void reload().then(() => setCut(stored));
          changePhase('waiting');
          break;
        }
        case 'approval_requested': {
          if (decided.current.has(String(ev.call_id))) break;
          const p: Pending = {
            call_id: String(ev.call_id),
            name: String(ev.name ?? ''),
            arguments: rawArguments(ev.arguments),
            read_only: Boolean(ev.read_only),
          };
          requested.current.set(p.call_id, p);
          setPending((list) => (list.some((x) => x.call_id === p.call_id) ? list : [...list, p]));
          break;
        }
        case 'approval_decided':
          decided.current.add(String(ev.call_id));
          requested.current.delete(String(ev.call_id));
          setPending((list) => list.filter((x) => x.call_id !== ev.call_id));
          void reload();
          break;
        case 'tool_started':
          if (doneCalls.current.has(String(ev.call_id))) break;
          changePhase('tools');
          setRunning((m) => ({ ...m, [String(ev.call_id)]: { name: String(ev.name ?? ''), since: Date.now() } }));
          break;
        case 'tool_finished':
          doneCalls.current.add(String(ev.call_id));
          setRunning((m) => {
            const next = { ...m };
            delete next[String(ev.call_id)];
            return next;
          });
          void reload();
          break;
        case 'compacted':
          void reload();
          break;
        case 'budget':
          // Keep the newest meters when an older reading arrives late.
          if (ev.seq < budgetSeq.current) break;
          budgetSeq.current = ev.seq;
          setBudget(ev as unknown as BudgetPayload);
          break;
        case 'run_finished': {
          finished.current.add(ev.run_id);
          requested.current.clear();
          changePhase('idle');
          setRunning({});
          setPending([]);
          setOutcome(ev as unknown as RunFinishedPayload);
          void reload().then(resetLive);
          changed.current?.();
          break;
        }
      }
    });
    return () => {
      off();
      if (frame.current !== null) cancelAnimationFrame(frame.current);
      frame.current = null;
      if (gapTimer.current) clearTimeout(gapTimer.current);
      gapTimer.current = null;
    };
  }, [reload, schedule, flush, resetLive, track]);

  /** Sends text to the session (id overrides the current one, for a session just created). */
  const send = useCallback(
    async (text: string, id: string | null = sessionID): Promise<boolean> => {
      if (!id) return false;
      if (current.current !== id) {
        current.current = id;
        loadedFor.current = id;
        contiguous.current = null;
        ahead.current.clear();
      }
      setError('');
      setOutcome(null);
      try {
        changePhase('waiting');
        await api.sendMessage(id, text);
        await reload(id);
        changed.current?.();
        return true;
      } catch (e) {
        changePhase('idle');
        setError(errorMessage(e));
        return false;
      }
    },
    [sessionID, reload],
  );

  const stop = useCallback(() => {
    if (sessionID) api.cancel(sessionID).catch((e) => setError(errorMessage(e)));
  }, [sessionID]);

  /** Answers one pending call; Go refuses a call that is not pending. */
  const decide = useCallback(
    async (callID: string, d: DecisionInput): Promise<boolean> => {
      if (!sessionID) return false;
      try {
        await api.decide(sessionID, callID, d);
        decided.current.add(callID);
        requested.current.delete(callID);
        setPending((list) => list.filter((x) => x.call_id !== callID));
        return true;
      } catch (e) {
        setError(errorMessage(e));
        // Whatever Go holds is the truth: it may have been decided elsewhere.
        api.pendingApprovals(sessionID).then(setPending, () => {});
        return false;
      }
    },
    [sessionID],
  );

  return {
    session,
    rows,
    runs,
    pending,
    streamed,
    cut,
    outputs,
    running,
    phase,
    budget,
    runStartedAt,
    outcome,
    error,
    loaded,
    send,
    stop,
    decide,
    reload,
  };
}

export type SessionState = ReturnType<typeof useSession>;
