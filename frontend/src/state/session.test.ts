// Transcripts for reduceSession, in the style of the Go core's: inputs in, state out. Each
// step feeds one input and checks the part of the state it is about.
import { describe, expect, it } from 'vitest';
import type { LoopEvent, Meter } from '../api/types';
import type { LiveView, Row, Run, SessionView } from '../api/types';
import { chunk, meter } from '../test/fakeApi';
import { callKey, initialSession, reduceSession, type SessionInput, type SessionState } from './session';

const S = 's1';
type Step = [SessionInput, Partial<SessionState> | ((s: SessionState) => void)];

/** Feeds the steps from a fresh state of session s1 and checks each one. */
function transcript(steps: Step[], from: SessionState = initialSession(S)): SessionState {
  let s = from;
  steps.forEach(([input, want], i) => {
    s = reduceSession(s, input);
    if (typeof want === 'function') want(s);
    else expect(s, `step ${i + 1} (${input.type})`).toMatchObject(want);
  });
  return s;
}

let seq = 0;
/** The event of type T. */
type EventOf<T extends LoopEvent['type']> = Extract<LoopEvent, { type: T }>;

/**
 * A loop event of s1; must-deliver events take the next seq, deltas the current one. The
 * fields given are checked against the event's type (a misspelt field or a wrong type fails
 * tsc); the ones a step is not about may be left out, so the reducer must cope without them.
 */
function ev<T extends LoopEvent['type']>(type: T, fields: Partial<Omit<EventOf<T>, 'type'>> = {}, run = 'r1'): SessionInput {
  const lossy = type === 'text_delta' || type === 'reasoning_delta' || type === 'tool_output';
  if (!lossy) seq++;
  // The one step tsc cannot follow: the fields of a generic T spread back into its member
  // of the union. Everything that reaches it was checked above.
  return { type, session_id: S, run_id: run, seq, at: 1000 * seq, ...fields } as EventOf<T> & { at: number };
}
const stored = (...rows: Row[]) => ev('rows_stored', { rows }, rows[0]?.run_id ?? 'r1');
const user = (n: number, text: string, run = 'r1') => chunk(S, n, 'user', { text }, run);
const said = (n: number, text: string, run = 'r1') => chunk(S, n, 'assistant', { text, reasoning: '', tool_calls: [] }, run);
const calls = (n: number, ids: string[], run = 'r1') =>
  chunk(S, n, 'assistant', { text: '', reasoning: '', tool_calls: ids.map((id) => ({ id, name: 'write_file', arguments: '{"path":"a"}' })) }, run);
const result = (n: number, call: string, run = 'r1') => chunk(S, n, 'tool_result', { call_id: call, name: 'write_file', content: 'ok', is_error: false }, run);
const approval = (n: number, call: string, run = 'r1') => chunk(S, n, 'approval', { call_id: call, tool: 'write_file', decision: 'approved', by: 'person', reason: '' }, run);
const asked = (call: string, run = 'r1') => ev('approval_requested', { call_id: call, name: 'write_file', arguments: { path: 'a' }, read_only: false, sandboxed: false, network: false }, run);

function view(over: Partial<SessionView> = {}): SessionView {
  return {
    session: { id: S, title: 't', workspace: '', model: 'm', provider: 'default', parent_id: '', fork_seq: 0, created_at: '', updated_at: '', scratch: false },
    rows: [],
    row_count: 0,
    first_seq: 0,
    runs: [],
    pending: [],
    running_run_id: '',
    running: [],
    meters: [],
    mode: { mode: 'execute', approve: '' },
    totals: { session_id: S, runs: 0, turns: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0, cost: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    queued: [],
    sandbox: {
      workspace: { mode: 'auto', network: false },
      session: null,
      effective: { mode: 'auto', network: false },
      source: 'default',
      description: '',
      notice: '',
    },
    budgets: { max_turns: null, max_tool_calls: null, max_tokens: null, max_cost_usd: null, timeout_seconds: null },
    ...over,
  };
}
const opened = (over: Partial<SessionView> = {}): SessionInput => ({ type: 'opened', view: view(over) });
const pendingIDs = (s: SessionState) => s.pending.map((p) => `${p.run_id}/${p.call_id}`);
const seqs = (s: SessionState) => s.rows.map((r) => r.seq);

describe('reduceSession', () => {
  it('keeps every field approval_requested carries on the pending call: the card shows an ignored skill grant', () => {
    let s = reduceSession(initialSession(S), opened({ running_run_id: 'r1' }));
    s = reduceSession(s, ev('approval_requested', { call_id: 'c1', name: 'run_shell_command', arguments: { command: 'rm -rf x' }, read_only: false, sandboxed: true, network: false, note: 'skill grants ignored: not trusted' }));
    expect(s.pending).toHaveLength(1);
    expect(s.pending[0].note).toBe('skill grants ignored: not trusted');
    expect(s.pending[0].sandboxed).toBe(true);
  });

  it('keeps the queue Go reports: queued while a run goes on, gone once delivered as a row', () => {
    const q = { id: 'q1', text: 'also lint', queued_at: '' };
    let s = reduceSession(initialSession(S), opened({ running_run_id: 'r1', queued: [q] }));
    expect(s.queued).toEqual([q]);
    s = reduceSession(s, ev('queue_changed', { queued: [q, { id: 'q2', text: 'x', queued_at: '' }], delivered: [] }));
    expect(s.queued.map((m) => m.id)).toEqual(['q1', 'q2']);
    s = reduceSession(s, ev('queue_changed', { queued: [], delivered: ['q1', 'q2'] }));
    expect(s.queued).toEqual([]);
  });

  it('takes the session mode and totals from Go', () => {
    let s = reduceSession(initialSession(S), opened({ mode: { mode: 'plan', approve: 'auto' } }));
    expect(s.mode.mode).toBe('plan');
    s = reduceSession(s, { type: 'mode_set', mode: { mode: 'execute', approve: 'auto' } });
    expect(s.mode.mode).toBe('execute');
    s = reduceSession(s, { type: 'totals_loaded', totals: { session_id: S, runs: 2, turns: 5, tool_calls: 3, input_tokens: 10, output_tokens: 2, cost: 0, cache_read_tokens: 0, cache_write_tokens: 0 } });
    expect(s.totals?.turns).toBe(5);
    s = reduceSession(s, { type: 'totals_loaded', totals: { session_id: 'other', runs: 9, turns: 9, tool_calls: 9, input_tokens: 9, output_tokens: 9, cost: 9, cache_read_tokens: 0, cache_write_tokens: 0 } });
    expect(s.totals?.turns).toBe(5);
  });

  it('streams a reply: the sent text shows until its row is stored, the preview until the answer is', () => {
    seq = 0;
    transcript([
      [opened(), { loaded: true, phase: 'idle' }],
      [{ type: 'send_started', text: 'hello', at: 5 }, { sent: { text: 'hello', after: 0 }, phase: 'waiting' }],
      [ev('run_started', { started_at: '2026-01-01T10:00:00Z', prompt: 'hello', model: 'm', workspace: '' }), { run: 'r1', phase: 'waiting', streamFrom: 1, runsWanted: 1 }],
      [stored(user(1, 'hello')), (s) => {
        expect(seqs(s)).toEqual([1]);
        expect(s.sent).toBeNull();
      }],
      [ev('text_delta', { text: 'Hi' }), { phase: 'streaming' }],
      [ev('text_delta', { text: ' there' }), { phase: 'streaming' }],
      [stored(said(2, 'Hi there')), (s) => {
        expect(seqs(s)).toEqual([1, 2]);
        // The preview is cut where the stored rows end: deltas before seq 3 are stored.
        expect(s.streamFrom).toBe(3);
      }],
      [ev('assistant_message', { text: 'Hi there', reasoning: '', tool_calls: [] }), { phase: 'waiting' }],
      [ev('budget', { meters: [meter('turns', 1, 20)], repeats: null }), (s) => expect(s.meters.map((m) => m.value)).toEqual([1])],
      [ev('run_finished', { status: 'completed', meters: [meter('turns', 1, 20, { label: 'Turns' })] }), { run: '', phase: 'idle', runsWanted: 2 }],
      [ev('text_delta', { text: 'late' }), { phase: 'idle' }],
    ]);
  });

  it('asks for approvals, keyed by run and call, and drops them when decided', () => {
    seq = 0;
    transcript([
      [opened(), {}],
      [ev('run_started', { started_at: '' }), { run: 'r1' }],
      [stored(user(1, 'write two files'), calls(2, ['c1', 'c2'])), (s) => expect(seqs(s)).toEqual([1, 2])],
      [ev('assistant_message', {}), { phase: 'waiting' }],
      [asked('c1'), (s) => expect(pendingIDs(s)).toEqual(['r1/c1'])],
      [asked('c2'), (s) => expect(pendingIDs(s)).toEqual(['r1/c1', 'r1/c2'])],
      // The same request twice (a replay after open) adds nothing.
      [asked('c2'), (s) => expect(pendingIDs(s)).toEqual(['r1/c1', 'r1/c2'])],
      [stored(approval(3, 'c1')), {}],
      [ev('approval_decided', { call_id: 'c1', name: 'write_file', approved: true, by: 'person', reason: '' }), (s) => expect(pendingIDs(s)).toEqual(['r1/c2'])],
      [ev('tool_started', { call_id: 'c1', name: 'write_file' }), (s) => {
        expect(s.phase).toBe('tools');
        expect(s.running[callKey('r1', 'c1')]).toMatchObject({ name: 'write_file', since: 9000 });
      }],
      [ev('tool_output', { call_id: 'c1', text: 'writing' }), (s) => expect(s.outputs[callKey('r1', 'c1')]).toBe('writing')],
      [stored(result(4, 'c1')), {}],
      [ev('tool_finished', { call_id: 'c1', name: 'write_file', content: 'ok', is_error: false }), (s) => {
        expect(s.running).toEqual({});
        expect(s.outputs).toEqual({});
      }],
      // The person answers c2 from a card: Go accepted it.
      [{ type: 'decided', call_id: 'c2' }, (s) => expect(s.pending).toEqual([])],
    ]);
  });

  it('a server that reuses call ids across turns never hides an approval card', () => {
    seq = 0;
    const s = transcript([
      [opened(), {}],
      [ev('run_started', { started_at: '' }), {}],
      [stored(user(1, 'go'), calls(2, ['call_0'])), {}],
      [asked('call_0'), (s) => expect(pendingIDs(s)).toEqual(['r1/call_0'])],
      [stored(approval(3, 'call_0')), {}],
      [ev('approval_decided', { call_id: 'call_0', approved: true }), (s) => expect(s.pending).toEqual([])],
      [stored(result(4, 'call_0')), {}],
      [ev('tool_finished', { call_id: 'call_0' }), {}],
      // The next turn of the same run uses the same id again: it is asked for, and shown.
      [stored(calls(5, ['call_0'])), {}],
      [asked('call_0'), (s) => expect(pendingIDs(s)).toEqual(['r1/call_0'])],
      [stored(approval(6, 'call_0')), {}],
      [ev('approval_decided', { call_id: 'call_0', approved: true }), (s) => expect(s.pending).toEqual([])],
      [stored(result(7, 'call_0')), {}],
      [ev('run_finished', { status: 'completed', meters: null }), {}],
    ]);
    // A new run, the same id once more.
    transcript(
      [
        [ev('run_started', { started_at: '' }, 'r2'), { run: 'r2' }],
        [stored(user(8, 'again', 'r2'), calls(9, ['call_0'], 'r2')), {}],
        [asked('call_0', 'r2'), (s) => expect(pendingIDs(s)).toEqual(['r2/call_0'])],
      ],
      s,
    );
  });

  it('a request for a call whose decision is already stored is not shown as pending', () => {
    seq = 0;
    // OpenSession read the session after the decision; the request was held while it was in flight.
    transcript([
      [opened({ rows: [user(1, 'go'), calls(2, ['c1']), approval(3, 'c1')], running_run_id: 'r1' }), { run: 'r1', phase: 'waiting' }],
      [asked('c1'), { pending: [] }],
    ]);
  });

  it('stop: the run ends cancelled, nothing waits or runs any more', () => {
    seq = 0;
    transcript([
      [opened(), {}],
      [ev('run_started', { started_at: '' }), {}],
      [stored(user(1, 'go'), calls(2, ['c1', 'c2'])), {}],
      [asked('c1'), {}],
      [ev('tool_started', { call_id: 'c2', name: 'run_shell_command' }), { phase: 'tools' }],
      [ev('run_finished', { status: 'cancelled', meters: null }), (s) => {
        expect(s).toMatchObject({ phase: 'idle', run: '', pending: [], running: {} });
        expect(s.outcome?.status).toBe('cancelled');
      }],
    ]);
  });

  it('restart: a session opened mid-run shows its pending calls, meters and running state', () => {
    seq = 40;
    const meters: Meter[] = [meter('turns', 3, 20)];
    transcript([
      [
        opened({ rows: [user(1, 'go'), calls(2, ['c1'])], running_run_id: 'r1', pending: [{ call_id: 'c1', name: 'write_file', arguments: '{}', read_only: false, sandboxed: false, network: false }], meters }),
        (s) => {
          expect(s).toMatchObject({ loaded: true, run: 'r1', phase: 'waiting', meters });
          expect(pendingIDs(s)).toEqual(['r1/c1']);
        },
      ],
      [ev('approval_decided', { call_id: 'c1', approved: false }), { pending: [] }],
    ]);
    // After a restart of the app the run was interrupted: Go repaired it, nothing is live.
    transcript([[opened({ rows: [user(1, 'go'), calls(2, ['c1']), result(3, 'c1')], meters }), { run: '', phase: 'idle', pending: [], meters }]]);
  });

  it('a gap: rows are not appended past a hole, and RowsAfter fills it', () => {
    seq = 0;
    transcript([
      [opened({ rows: [user(1, 'a'), said(2, 'b')] }), { missingAfter: null }],
      // Rows already held are ignored.
      [stored(said(2, 'b')), (s) => expect(seqs(s)).toEqual([1, 2])],
      [stored(user(5, 'e')), (s) => {
        expect(seqs(s)).toEqual([1, 2]);
        expect(s.missingAfter).toBe(2);
      }],
      // More rows announced while RowsAfter is in flight: the answer ends before them.
      [stored(said(6, 'f')), { missingAfter: 2, seenSeq: 6 }],
      [{ type: 'rows_loaded', rows: [user(3, 'c'), said(4, 'd'), user(5, 'e')] }, (s) => {
        expect(seqs(s)).toEqual([1, 2, 3, 4, 5]);
        expect(s.missingAfter).toBe(5);
      }],
      [{ type: 'rows_loaded', rows: [said(6, 'f')] }, (s) => {
        expect(seqs(s)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(s.missingAfter).toBeNull();
      }],
      // An empty answer ends the reading even if an event promised more.
      [stored(user(9, 'i')), { missingAfter: 6 }],
      [{ type: 'rows_loaded', rows: [] }, { missingAfter: null }],
    ]);
  });

  it('a session switch starts afresh and ignores the old session\'s events', () => {
    seq = 0;
    const s1 = transcript([
      [opened({ rows: [user(1, 'a')] }), {}],
      [ev('run_started', { started_at: '' }), {}],
      [stored(calls(2, ['c1'])), {}],
      [asked('c1'), {}],
    ]);
    transcript(
      [
        [{ type: 'switched', id: 's2' }, { id: 's2', rows: [], pending: [], run: '', phase: 'idle', loaded: false }],
        [asked('c2'), { pending: [] }],
        [stored(user(3, 'not mine')), { rows: [] }],
        // Switching to the session it already is changes nothing.
        [{ type: 'switched', id: 's2' }, { id: 's2' }],
      ],
      s1,
    );
  });

  it('a message sent to a new session shows while the session opens and until its row is stored', () => {
    seq = 0;
    transcript(
      [
        [{ type: 'send_started', text: 'first words', at: 1 }, { sent: { text: 'first words', after: 0 }, phase: 'waiting' }],
        // OpenSession answered before the run stored anything.
        [opened(), { sent: { text: 'first words', after: 0 }, phase: 'waiting', loaded: true }],
        [ev('run_started', { started_at: '' }), { phase: 'waiting' }],
        [stored(user(1, 'first words')), { sent: null }],
      ],
      initialSession(S),
    );
  });

  it("files_changed files a call's changes under its result row, not under the event's own seq", () => {
    const s = reduceSession(
      reduceSession(initialSession(S), opened()),
      ev('files_changed', { seq: 12, row_seq: 3, call_id: 'c1', changes: [{ seq: 3, path: 'a.txt', change: 'modified', size: 4, sha256: '', by: 'agent' }] }),
    );
    expect(Object.keys(s.changes)).toEqual(['3']);
    expect(s.changes[3][0].path).toBe('a.txt');
  });

  it('a failed send takes the pending message back and says why', () => {
    seq = 0;
    transcript([
      [opened(), {}],
      [{ type: 'send_started', text: 'hi', at: 1 }, { phase: 'waiting' }],
      [{ type: 'send_failed', error: 'no endpoint configured' }, { sent: null, phase: 'idle', error: 'no endpoint configured' }],
    ]);
  });

  it('a run that fails before storing the message drops the pending text: the stored rows say what happened', () => {
    seq = 0;
    transcript([
      [opened(), {}],
      [{ type: 'send_started', text: 'hi', at: 1 }, {}],
      [ev('run_started', { started_at: '' }), {}],
      [ev('run_finished', { status: 'provider_error', error: '401', meters: null }), (s) => {
        expect(s.sent).toBeNull();
        expect(s.outcome?.error).toBe('401');
      }],
    ]);
  });

  it('pending calls read from Go (after a refused decision) replace the list, minus stored decisions', () => {
    seq = 0;
    transcript([
      [opened({ rows: [user(1, 'go'), calls(2, ['c1', 'c2']), approval(3, 'c1')], running_run_id: 'r1' }), {}],
      [
        { type: 'pending_loaded', pending: ['c1', 'c2'].map((id) => ({ call_id: id, name: 'write_file', arguments: '{}', read_only: false, sandboxed: false, network: false })) },
        (s) => expect(pendingIDs(s)).toEqual(['r1/c2']),
      ],
    ]);
  });
});

// The page never misses what Go knows: whatever order events and reads arrive in, a pending
// approval, a queued message and the run state end up shown (Chat.Live, reconciled).
describe('reconciling with what Go knows (live_loaded)', () => {
  const pendingCall = { call_id: 'c1', name: 'write_file', arguments: '{"path":"a"}', read_only: false, sandboxed: false, network: false };
  const live = (over: Partial<LiveView>): SessionInput => ({ type: 'live_loaded', live: { seq: 0, running_run_id: '', pending: [], running: [], queued: [], ...over } });

  it('shows an approval whose events arrived before the page switched to a just-created session', () => {
    // The page opened the new session before the run registered; run_started and
    // approval_requested went by while it still showed the previous session.
    transcript([
      [opened(), { run: '', phase: 'idle' }],
      [{ type: 'send_started', text: 'write a', at: 1 }, { phase: 'waiting' }],
      [live({ seq: 3, running_run_id: 'r9', pending: [pendingCall] }), (s) => {
        expect(s.run).toBe('r9');
        expect(pendingIDs(s)).toEqual(['r9/c1']);
        expect(s.phase).not.toBe('idle');
      }],
    ]);
  });

  it('an answer read before the run ended never revives it', () => {
    seq = 0;
    transcript([
      [opened({ running_run_id: 'r1' }), { run: 'r1' }],
      [ev('run_finished', { status: 'cancelled' }), { run: '', phase: 'idle' }],
      [live({ seq: 0, running_run_id: 'r1', pending: [pendingCall] }), { run: '', phase: 'idle', pending: [] }],
    ]);
  });

  it('an answer read before a run started never ends it', () => {
    seq = 0;
    transcript([
      [opened(), { run: '' }],
      [ev('run_started', { prompt: 'go', model: 'm', workspace: '', sandbox: '', started_at: '2026-01-01T00:00:00Z', mode: 'execute' }), { run: 'r1' }],
      [asked('c1'), (s) => expect(pendingIDs(s)).toEqual(['r1/c1'])],
      // Go read "no run" before run_started (seq 0 < 2): the run and its card stay.
      [live({ seq: 0 }), (s) => {
        expect(s.run).toBe('r1');
        expect(pendingIDs(s)).toEqual(['r1/c1']);
      }],
      // A fresh read that finds no run: the run ended and its run_finished was lost.
      [live({ seq: 9 }), { run: '', phase: 'idle', pending: [] }],
    ]);
  });

  it('an answer older than an approval event keeps the card; a resolved call goes', () => {
    seq = 0;
    transcript([
      [opened({ running_run_id: 'r1' }), { run: 'r1' }],
      [stored(calls(1, ['c1', 'c2'])), { seenSeq: 1 }],
      [asked('c2'), (s) => expect(pendingIDs(s)).toEqual(['r1/c2'])],
      // Read before c2 was asked about, while c1 was pending; c1 was since decided (its row is in).
      [stored(approval(2, 'c1')), {}],
      [live({ seq: 1, running_run_id: 'r1', pending: [pendingCall] }), (s) => expect(pendingIDs(s)).toEqual(['r1/c2'])],
    ]);
  });

  it('a page reloaded while a task call runs shows it running, not "Waiting for the model…"', () => {
    // The task's tool_started went by before the reload; the child's approval is stored with
    // its result, so only Go's list of running calls tells the page the call runs.
    seq = 0;
    const task = { call_id: 't1', name: 'task', started_at: '2026-01-01T00:00:05Z' };
    transcript([
      [
        opened({ running_run_id: 'r1', rows: [user(1, 'delegate'), calls(2, ['t1'])], runs: [{ run_id: 'r1', started_at: '2026-01-01T00:00:02Z' } as Run] }),
        { run: 'r1', phase: 'waiting', runStartedAt: Date.parse('2026-01-01T00:00:02Z') },
      ],
      [live({ seq: 4, running_run_id: 'r1', running: [task] }), (s) => {
        expect(s.phase).toBe('tools');
        expect(s.running[callKey('r1', 't1')]).toEqual({ run_id: 'r1', call_id: 't1', name: 'task', since: Date.parse(task.started_at) });
      }],
      // Read again (a gap): the call keeps its start.
      [live({ seq: 4, running_run_id: 'r1', running: [{ ...task, started_at: '2026-01-01T00:00:09Z' }] }), (s) =>
        expect(s.running[callKey('r1', 't1')].since).toBe(Date.parse(task.started_at))],
      // Its result is stored: an older answer that still lists it does not bring it back.
      [stored(chunk(S, 3, 'tool_result', { call_id: 't1', name: 'task', content: 'done', is_error: false }, 'r1')), {}],
      [ev('tool_finished', { call_id: 't1', name: 'task', content: 'done', is_error: false }), (s) => expect(s.running).toEqual({})],
      [live({ seq: 1, running_run_id: 'r1', running: [task] }), (s) => expect(s.running).toEqual({})],
    ]);
  });

  it('a session opened while its task call runs shows it running from the start (OpenSession lists it too)', () => {
    seq = 0;
    const task = { call_id: 't1', name: 'task', started_at: '2026-01-01T00:00:05Z' };
    transcript([
      [opened({ running_run_id: 'r1', rows: [user(1, 'delegate'), calls(2, ['t1'])], running: [task] }), (s) => {
        expect(s.phase).toBe('tools');
        expect(Object.keys(s.running)).toEqual([callKey('r1', 't1')]);
      }],
    ]);
    // A call whose result the rows hold is not running, whatever the list says.
    const s = reduceSession(initialSession(S), opened({ running_run_id: 'r1', rows: [user(1, 'delegate'), calls(2, ['t1']), result(3, 't1')], running: [task] }));
    expect(s.running).toEqual({});
    expect(s.phase).toBe('waiting');
  });

  it('a run first seen on a Live read comes with its running calls; a fresh read drops a call Go no longer runs', () => {
    seq = 0;
    const shell = { call_id: 'c1', name: 'run_shell_command', started_at: '2026-01-01T00:00:01Z' };
    transcript([
      [opened(), { run: '', phase: 'idle' }],
      [live({ seq: 2, running_run_id: 'r1', running: [shell] }), (s) => {
        expect(s.run).toBe('r1');
        expect(s.phase).toBe('tools');
        expect(Object.keys(s.running)).toEqual([callKey('r1', 'c1')]);
      }],
      // An older answer (before the tool_started below) keeps the call the page heard start.
      [ev('tool_started', { call_id: 'c2', name: 'read_file' }), (s) => expect(Object.keys(s.running)).toHaveLength(2)],
      [live({ seq: 0, running_run_id: 'r1', running: [shell] }), (s) => expect(Object.keys(s.running)).toHaveLength(2)],
      // A read after every applied event is the truth: c1 finished and its tool_finished was missed.
      [live({ seq: 9, running_run_id: 'r1', running: [{ call_id: 'c2', name: 'read_file', started_at: '' }] }), (s) => {
        expect(Object.keys(s.running)).toEqual([callKey('r1', 'c2')]);
        expect(s.running[callKey('r1', 'c2')].since).toBe(1000);
      }],
    ]);
  });

  it('shows messages a Stop left queued, and drops one a row delivered', () => {
    seq = 0;
    const q1 = { id: 'q1', text: 'then b', queued_at: '' };
    const q2 = { id: 'q2', text: 'then c', queued_at: '' };
    transcript([
      [opened({ running_run_id: 'r1' }), { run: 'r1' }],
      [ev('run_finished', { status: 'cancelled' }), { run: '' }],
      [live({ seq: 5, queued: [q1, q2] }), (s) => expect(s.queued.map((q) => q.id)).toEqual(['q1', 'q2'])],
      [stored(chunk(S, 1, 'user', { text: 'then b', queued_id: 'q1' }, 'r2')), {}],
      [live({ seq: 5, queued: [q1, q2] }), (s) => expect(s.queued.map((q) => q.id)).toEqual(['q2'])],
    ]);
  });
});
