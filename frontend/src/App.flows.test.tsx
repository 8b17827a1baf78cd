// The whole window against the in-memory fake: approvals, streaming, search,
// forks, session actions, the workspace and the theme.
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionSummary } from './api/types';
import { chunk, makeFakeApi } from './test/fakeApi';

let fake = makeFakeApi();
vi.mock('./api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { App } from './App';

beforeEach(() => {
  fake = makeFakeApi();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  delete document.documentElement.dataset.theme;
});

function seed(title: string, extra: Partial<SessionSummary> = {}) {
  const s = fake.session(title, extra);
  fake.state.sessions.push(s);
  fake.state.rows.set(s.id, []);
  return s;
}

async function openSession(title: RegExp) {
  const nav = await screen.findByRole('navigation', { name: 'Sessions' });
  await userEvent.click(await within(nav).findByRole('button', { name: title }));
}

describe('App flows', () => {
  it('decides several pending calls at once and shows each result on its card', async () => {
    const s = seed('two calls');
    const args1 = '{"path":"a.txt"}';
    const args2 = '{"command":"ls"}';
    fake.state.rows.set(s.id, [
      chunk(s.id, 1, 'user', { text: 'look around' }),
      chunk(s.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'c1', name: 'read_file', arguments: args1 }, { id: 'c2', name: 'run_shell_command', arguments: args2 }] }),
    ]);
    fake.state.pending.set(s.id, [
      { call_id: 'c1', name: 'read_file', arguments: args1, read_only: true, sandboxed: false, network: false },
      { call_id: 'c2', name: 'run_shell_command', arguments: args2, read_only: false, sandboxed: false, network: false },
    ]);
    fake.state.running.set(s.id, 'run1');
    render(<App />);
    await openSession(/two calls/);
    expect(await screen.findByText('2 calls wait for your approval')).toBeTruthy();
    expect(screen.getAllByRole('button', { name: 'Approve' })).toHaveLength(2);
    await userEvent.click(screen.getByRole('button', { name: 'Approve all' }));
    await waitFor(() => expect(fake.api.decide).toHaveBeenCalledTimes(2));
    expect(fake.api.decide.mock.calls.map((c) => [c[1], c[2].approved])).toEqual([
      ['c1', true],
      ['c2', true],
    ]);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull());

    // The results arrive: each is folded into its card.
    act(() => {
      fake.store(s.id, [
        chunk(s.id, 3, 'tool_result', { call_id: 'c1', name: 'read_file', content: 'hello from a.txt', is_error: false }),
        chunk(s.id, 4, 'tool_result', { call_id: 'c2', name: 'run_shell_command', content: 'a.txt', is_error: false }),
      ]);
      fake.emit({ type: 'tool_finished', session_id: s.id, call_id: 'c2', name: 'run_shell_command', content: 'a.txt', is_error: false });
    });
    const card = await screen.findByRole('region', { name: 'Tool call read_file' });
    expect(await within(card).findByText('hello from a.txt')).toBeTruthy();
  });

  it('y and n walk the pending cards by keyboard', async () => {
    const s = seed('keys');
    const calls = ['c1', 'c2'].map((id) => ({ id, name: 'run_shell_command', arguments: `{"command":"echo ${id}"}` }));
    fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: 'go' }), chunk(s.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: calls })]);
    fake.state.pending.set(s.id, calls.map((c) => ({ call_id: c.id, name: c.name, arguments: c.arguments, read_only: false, sandboxed: false, network: false })));
    fake.state.running.set(s.id, 'run1');
    render(<App />);
    await openSession(/keys/);
    const cards = await screen.findAllByRole('region', { name: 'Tool call run_shell_command' });
    cards[0].focus();
    await userEvent.keyboard('y');
    await waitFor(() => expect(document.activeElement).toBe(cards[1]));
    await userEvent.keyboard('n');
    await waitFor(() => expect(fake.api.decide).toHaveBeenCalledTimes(2));
    expect(fake.api.decide.mock.calls.map((c) => [c[1], c[2].approved])).toEqual([
      ['c1', true],
      ['c2', false],
    ]);
  });

  it('a pending call announced by an event gets controls, and a decision clears them', async () => {
    const s = seed('live approval');
    render(<App />);
    await openSession(/live approval/);
    fake.state.pending.set(s.id, [{ call_id: 'c9', name: 'write_file', arguments: '{"path":"x","content":"y"}', read_only: false, sandboxed: false, network: false }]);
    act(() => {
      fake.emit({ type: 'run_started', session_id: s.id, started_at: new Date().toISOString() });
      fake.emit({ type: 'approval_requested', session_id: s.id, call_id: 'c9', name: 'write_file', arguments: { path: 'x', content: 'y' } });
    });
    expect(await screen.findByText('Waiting for your approval of write_file')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Deny' }));
    expect(fake.api.decide).toHaveBeenCalledWith(s.id, 'c9', { approved: false, reason: '', arguments: '', always: null });
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Deny' })).toBeNull());
  });

  it('coalesces text deltas into one render per animation frame', async () => {
    const s = seed('fast stream');
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
    vi.stubGlobal('cancelAnimationFrame', () => {});
    render(<App />);
    await openSession(/fast stream/);
    // Frames the opening asked for (the conversation looks at its scroll once rows are laid out).
    await waitFor(() => expect(screen.queryByText(/Ask the agent something/)).toBeTruthy());
    frames.length = 0;
    act(() => {
      fake.emit({ type: 'run_started', session_id: s.id });
      for (let i = 0; i < 500; i++) fake.emit({ type: 'text_delta', session_id: s.id, text: 'x' });
    });
    expect(frames).toHaveLength(1);
    act(() => frames.shift()!(0));
    const live = screen.getByRole('article', { name: 'Assistant reply (streaming)' });
    expect(live.textContent).toBe('x'.repeat(500));
  });

  it('reads the rows after a lost event, never the whole session again', async () => {
    const s = seed('gappy');
    fake.state.running.set(s.id, 'run1');
    render(<App />);
    await openSession(/gappy/);
    await waitFor(() => expect(fake.api.openSession).toHaveBeenCalledTimes(1));
    act(() => fake.emit({ type: 'run_started', session_id: s.id, seq: 5 }));
    act(() => fake.emit({ type: 'usage', session_id: s.id, seq: 6 }));
    // Stored while the page missed seq 7 and 8.
    fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: 'stored while we were away' })]);
    act(() => fake.emit({ type: 'usage', session_id: s.id, seq: 9 }));
    expect(await screen.findByText('stored while we were away')).toBeTruthy();
    expect(fake.api.rowsAfter).toHaveBeenCalledWith(s.id, 0);
    expect(fake.api.openSession).toHaveBeenCalledTimes(1);
  });

  it('a stored row that skips ahead is a gap: the rows after the last one held are read', async () => {
    const s = seed('row gap');
    fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: 'one' })]);
    render(<App />);
    await openSession(/row gap/);
    await screen.findByText('one');
    act(() => fake.emit({ type: 'run_started', session_id: s.id }));
    // Row 2 was stored without the page hearing of it; row 3 arrives.
    fake.state.rows.get(s.id)!.push(chunk(s.id, 2, 'assistant', { text: 'two', reasoning: '', tool_calls: [] }));
    act(() => fake.store(s.id, [chunk(s.id, 3, 'user', { text: 'three' })]));
    expect(await screen.findByText('three')).toBeTruthy();
    expect(screen.getByText('two')).toBeTruthy();
    expect(fake.api.rowsAfter).toHaveBeenCalledWith(s.id, 1);
    expect(fake.api.openSession).toHaveBeenCalledTimes(1);
  });

  it('a run that ends while the session is being opened leaves it idle', async () => {
    const s = seed('quick run');
    fake.state.running.set(s.id, 'run1');
    let answer!: () => void;
    const real = fake.api.openSession.getMockImplementation()!;
    fake.api.openSession.mockImplementationOnce((id: string, tail: number) => new Promise((res) => (answer = () => res(real(id, tail)))));
    render(<App />);
    await openSession(/quick run/);
    await waitFor(() => expect(fake.api.openSession).toHaveBeenCalledTimes(1));
    // OpenSession read "running"; the run's end arrives before its answer.
    act(() => fake.emit({ type: 'run_finished', session_id: s.id, run_id: 'run1', seq: 1, status: 'completed' }));
    await act(async () => answer());
    expect(await screen.findByRole('button', { name: 'Send' })).toBeTruthy();
  });

  it('copes with events that arrive out of order (the dev server delivers each on its own goroutine)', async () => {
    const s = seed('shuffled');
    // Fake timers that still follow real time (so findBy and waitFor poll as usual); the
    // "nothing happens" check below jumps past the page's gap timer instead of sleeping.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => setTimeout(() => cb(0), 0));
    render(<App />);
    await openSession(/shuffled/);
    await waitFor(() => expect(fake.api.openSession).toHaveBeenCalledTimes(1));
    // A delta overtakes run_started: its text is kept.
    act(() => {
      fake.emit({ type: 'text_delta', session_id: s.id, run_id: 'r1', seq: 1, text: 'early ' });
      fake.emit({ type: 'run_started', session_id: s.id, run_id: 'r1', seq: 1 });
      fake.emit({ type: 'text_delta', session_id: s.id, run_id: 'r1', seq: 1, text: 'bird' });
    });
    expect((await screen.findByRole('article', { name: 'Assistant reply (streaming)' })).textContent).toContain('early bird');
    // run_finished overtakes the run's last events: they are put back in order, so they do not revive it.
    act(() => {
      fake.emit({ type: 'run_finished', session_id: s.id, run_id: 'r1', seq: 4, status: 'completed' });
      fake.emit({ type: 'tool_started', session_id: s.id, run_id: 'r1', seq: 2, call_id: 'c1', name: 'read_file' });
      fake.emit({ type: 'approval_requested', session_id: s.id, run_id: 'r1', seq: 3, call_id: 'c2', name: 'write_file', arguments: {} });
    });
    expect(await screen.findByRole('button', { name: 'Send' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(screen.getByRole('status', { name: 'Run status' }).textContent).toBe('');
    // The hole was filled in time: nothing is read again, even after the gap timer (250 ms).
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(fake.api.rowsAfter).not.toHaveBeenCalled();
    expect(fake.api.openSession).toHaveBeenCalledTimes(1);
  });

  it('an approval asked for while the session is being opened keeps its controls', async () => {
    const s = seed('racy approval');
    fake.state.running.set(s.id, 'run1');
    let answer!: () => void;
    const real = fake.api.openSession.getMockImplementation()!;
    fake.api.openSession.mockImplementationOnce((id: string, tail: number) => new Promise((res) => (answer = () => res(real(id, tail)))));
    render(<App />);
    await openSession(/racy approval/);
    await waitFor(() => expect(fake.api.openSession).toHaveBeenCalledTimes(1));
    // OpenSession read the session before the request (Go lists nothing pending in its answer).
    act(() => fake.emit({ type: 'approval_requested', session_id: s.id, seq: 1, call_id: 'c7', name: 'write_file', arguments: { path: 'a' }, read_only: false, sandboxed: false, network: false }));
    await act(async () => answer());
    expect(await screen.findByRole('button', { name: 'Approve' })).toBeTruthy();
  });

  it('a server that reuses a call id in a later turn still gets its approval card', async () => {
    const s = seed('reused ids');
    const call = (seq: number) => chunk(s.id, seq, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'call_0', name: 'write_file', arguments: `{"path":"f${seq}.txt","content":"x"}` }] });
    fake.state.rows.set(s.id, [
      chunk(s.id, 1, 'user', { text: 'two files' }),
      call(2),
      chunk(s.id, 3, 'approval', { call_id: 'call_0', tool: 'write_file', decision: 'approved', by: 'person', reason: '' }),
      chunk(s.id, 4, 'tool_result', { call_id: 'call_0', name: 'write_file', content: 'wrote f2.txt', is_error: false }),
    ]);
    fake.state.running.set(s.id, 'run1');
    render(<App />);
    await openSession(/reused ids/);
    await screen.findByText('wrote f2.txt');
    act(() => {
      fake.store(s.id, [call(5)], { seq: 1 });
      fake.emit({ type: 'assistant_message', session_id: s.id, text: '', reasoning: '', tool_calls: [] });
      fake.emit({ type: 'approval_requested', session_id: s.id, call_id: 'call_0', name: 'write_file', arguments: { path: 'f5.txt', content: 'x' }, read_only: false, sandboxed: false, network: false });
    });
    const cards = await screen.findAllByRole('region', { name: 'Tool call write_file' });
    expect(cards).toHaveLength(2);
    // The new card asks; the old one stays done with its own result.
    expect(await within(cards[1]).findByRole('button', { name: 'Approve' })).toBeTruthy();
    expect(within(cards[0]).queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(within(cards[0]).getByText('wrote f2.txt')).toBeTruthy();
    expect(within(cards[1]).queryByText('wrote f2.txt')).toBeNull();
  });

  it('your message stays on screen while a slow model thinks, then is replaced by its stored row', async () => {
    const s = seed('slow model');
    render(<App />);
    await openSession(/slow model/);
    await screen.findByRole('heading', { name: 'slow model' });
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'are you there?{Enter}');
    await waitFor(() => expect(fake.api.sendMessage).toHaveBeenCalled());
    const mine = await screen.findByRole('article', { name: 'You' });
    expect(mine.textContent).toBe('are you there?');
    act(() => fake.emit({ type: 'run_started', session_id: s.id }));
    // Long before the model says anything, the message is still there.
    expect(screen.getByRole('article', { name: 'You' }).textContent).toBe('are you there?');
    expect(screen.getAllByText('Waiting for the model…').length).toBeGreaterThan(0);
    act(() => fake.store(s.id, [chunk(s.id, 1, 'user', { text: 'are you there?' })]));
    await waitFor(() => expect(screen.getByRole('article', { name: 'You' }).dataset.seq).toBe('1'));
    expect(screen.getAllByRole('article', { name: 'You' })).toHaveLength(1);
  });

  it('reads the files touched by new rows only', async () => {
    const s = seed('touchy', { workspace: '/home/me/project' });
    fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: 'go' }), chunk(s.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' }] })]);
    fake.state.touched.set(s.id, [{ path: 'a.txt', seq: 2, tool: 'read_file', changed: false }]);
    render(<App />);
    await openSession(/touchy/);
    await userEvent.click(screen.getByRole('tab', { name: 'Workspace' }));
    const touched = await screen.findByRole('region', { name: 'Touched files' });
    expect(await within(touched).findByText('a.txt')).toBeTruthy();
    expect(fake.api.touchedFiles).toHaveBeenLastCalledWith(s.id, 0);
    fake.state.touched.get(s.id)!.push({ path: 'b.txt', seq: 3, tool: 'write_file', changed: true });
    act(() => {
      fake.emit({ type: 'run_started', session_id: s.id });
      fake.store(s.id, [chunk(s.id, 3, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'c2', name: 'write_file', arguments: '{"path":"b.txt"}' }] })]);
    });
    expect(await within(touched).findByText('b.txt')).toBeTruthy();
    expect(fake.api.touchedFiles).toHaveBeenLastCalledWith(s.id, 2);
    expect(within(touched).getAllByText('a.txt')).toHaveLength(1);
    // A shell command's change is recorded with its result row, linked to the call's row: the
    // result row alone makes the page ask again.
    const made = { path: 'made.txt', seq: 3, tool: 'run_shell_command', changed: true };
    fake.state.touched.get(s.id)!.push(made);
    fake.state.changedAt.set(made, 4);
    act(() => fake.store(s.id, [chunk(s.id, 4, 'tool_result', { call_id: 'c2', name: 'write_file', content: 'ok', is_error: false })]));
    expect(await within(touched).findByText('made.txt')).toBeTruthy();
    expect(fake.api.touchedFiles).toHaveBeenLastCalledWith(s.id, 3);
  });

  it('a stored reply replaces its streamed preview without showing twice', async () => {
    const s = seed('no echo');
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => setTimeout(() => cb(0), 0));
    render(<App />);
    await openSession(/no echo/);
    act(() => {
      fake.emit({ type: 'run_started', session_id: s.id });
      fake.emit({ type: 'text_delta', session_id: s.id, text: 'Looking at the file.' });
    });
    // The screen reader's live region reads the sentence too; the conversation shows it once.
    const shown = { ignore: '[aria-live], script, style' };
    await screen.findByText('Looking at the file.', shown);
    act(() => {
      fake.store(s.id, [chunk(s.id, 1, 'assistant', { text: 'Looking at the file.', reasoning: '', tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] })]);
      fake.emit({ type: 'assistant_message', session_id: s.id, text: 'Looking at the file.' });
    });
    await waitFor(() => expect(screen.getAllByText('Looking at the file.', shown)).toHaveLength(1));
    expect(screen.getByRole('article', { name: 'Assistant' }).textContent).toContain('Looking at the file.');
    // The next turn streams on after it.
    act(() => fake.emit({ type: 'text_delta', session_id: s.id, text: ' Done.' }));
    expect((await screen.findByRole('article', { name: 'Assistant reply (streaming)' })).textContent).toBe('Done.');
  });

  it('a search hit opens its session at the matching row', async () => {
    const s = seed('needle session');
    const rows = [chunk(s.id, 1, 'user', { text: 'start' })];
    for (let i = 2; i <= 400; i++) rows.push(chunk(s.id, i, 'user', { text: `filler ${i}` }));
    rows[9] = chunk(s.id, 10, 'tool_result', { call_id: 'x', name: 'read_file', content: 'the needle is here', is_error: false });
    fake.state.rows.set(s.id, rows);
    fake.state.hits = [{ session_id: s.id, session_title: 'needle session', seq: 10, kind: 'tool_result', snippet: 'the \u0001needle\u0002 is here', rank: 1 }];
    // Another session is open, with a row 10 of its own.
    const other = seed('other');
    fake.state.rows.set(other.id, Array.from({ length: 12 }, (_, i) => chunk(other.id, i + 1, 'user', { text: `other ${i + 1}` })));
    render(<App />);
    await openSession(/^other/);
    await screen.findByText('other 12');
    await userEvent.type(await screen.findByRole('searchbox', { name: 'Search sessions' }), 'needle');
    const results = await screen.findByLabelText('Search results');
    await userEvent.click(await within(results).findByRole('button', { name: /needle session/ }));
    // Row 10 is older than the first page of the conversation: the window widened to show it.
    await waitFor(() => expect(document.querySelector('.hit-target')?.textContent).toContain('the needle is here'));
    expect(document.querySelector('.hit-target')!.className).toContain('focused');
    expect(screen.queryByText('other 10')).toBeNull();
  });

  it('forks from a chunk table row and opens the fork under its parent', async () => {
    const s = seed('parent');
    fake.state.rows.set(s.id, [
      chunk(s.id, 1, 'user', { text: 'one' }),
      chunk(s.id, 2, 'assistant', { text: 'two', reasoning: '', tool_calls: [] }),
      chunk(s.id, 3, 'user', { text: 'three' }),
    ]);
    render(<App />);
    await openSession(/parent/);
    await userEvent.click(screen.getByRole('tab', { name: 'Chunks' }));
    const table = await screen.findByRole('table', { name: 'Chunk table' });
    const row2 = (await within(table).findByText('two')).closest('[role="row"]') as HTMLElement;
    await userEvent.click(within(row2).getByRole('button', { name: 'Fork from here' }));
    expect(fake.api.forkSession).toHaveBeenCalledWith(s.id, 2);
    expect(await screen.findByRole('button', { name: /forked from parent at #2/ })).toBeTruthy();
    const forks = await screen.findByRole('list', { name: 'Forks of parent' });
    expect(within(forks).getByRole('button', { name: /parent \(fork\)/ }).getAttribute('aria-current')).toBe('page');
    // The fork has the parent's rows up to the fork point only.
    const forkTable = screen.getByRole('table', { name: 'Chunk table' });
    expect(await within(forkTable).findByText('two')).toBeTruthy();
    expect(within(forkTable).queryByText('three')).toBeNull();
  });

  it('renames, exports, and deletes only after confirmation', async () => {
    seed('to rename');
    render(<App />);
    await openSession(/to rename/);
    await userEvent.click(screen.getByRole('button', { name: 'Rename' }));
    const title = screen.getByRole('textbox', { name: 'Session title' });
    await userEvent.clear(title);
    await userEvent.type(title, 'renamed{Enter}');
    expect(await screen.findByRole('heading', { name: 'renamed' })).toBeTruthy();

    await userEvent.click(screen.getByRole('button', { name: 'Export' }));
    expect(await screen.findByText('Exported to /home/me/session.jsonl')).toBeTruthy();

    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete session?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(fake.api.deleteSession).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await userEvent.click(screen.getByRole('button', { name: 'Delete permanently' }));
    await waitFor(() => expect(fake.api.deleteSession).toHaveBeenCalled());
    const nav = screen.getByRole('navigation', { name: 'Sessions' });
    await waitFor(() => expect(within(nav).queryByRole('button', { name: /renamed/ })).toBeNull());
    expect(screen.getByRole('heading', { name: 'New conversation' })).toBeTruthy();
  });

  it('chooses a folder, shows its files and follows the watcher', async () => {
    const s = seed('ws');
    vi.useFakeTimers({ shouldAdvanceTime: true }); // see 'copes with events that arrive out of order'
    fake.state.files.set('/home/me/project', [{ path: 'a.txt', dir: false, size: 1 }]);
    fake.state.contents.set('a.txt', 'alpha');
    render(<App />);
    await openSession(/^ws/);
    await userEvent.click(screen.getByRole('tab', { name: 'Workspace' }));
    await userEvent.click(screen.getByRole('button', { name: 'Choose folder' }));
    expect(fake.api.setWorkspace).toHaveBeenCalledWith(s.id, '/home/me/project');
    const tree = await screen.findByRole('tree', { name: 'Workspace files' });
    expect(await within(tree).findByRole('treeitem', { name: /^a\.txt / })).toBeTruthy();

    fake.state.files.set('/home/me/project', [{ path: 'a.txt', dir: false, size: 1 }, { path: 'b.txt', dir: false, size: 2 }]);
    act(() => fake.emitWorkspace({ workspace: '/home/me/project', changes: [{ path: 'b.txt', op: 'created' }] }));
    expect(await within(tree).findByRole('treeitem', { name: /^b\.txt / })).toBeTruthy();
    // Changes to another folder are not ours.
    fake.state.files.set('/home/me/project', []);
    act(() => fake.emitWorkspace({ workspace: '/elsewhere', changes: [{ path: 'z', op: 'created' }] }));
    // Past the watcher's debounce (150 ms): the tree was not reloaded.
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(within(tree).getByRole('treeitem', { name: /^b\.txt / })).toBeTruthy();

    await userEvent.click(within(tree).getByText('a.txt'));
    expect((await screen.findByRole('region', { name: 'Preview of a.txt' })).textContent).toContain('alpha');
  });

  it('a new session starts in the open session\'s folder, but not in its private scratch folder', async () => {
    seed('in a project', { workspace: '/home/me/project' });
    const b = seed('scratchy');
    b.workspace = `/data/loopdesk/scratch/${b.id}`;
    b.scratch = true;
    render(<App />);
    await openSession(/in a project/);
    await screen.findByRole('heading', { name: 'in a project' });
    await userEvent.click(screen.getByRole('button', { name: 'New session' }));
    expect(fake.api.newSession).toHaveBeenLastCalledWith('/home/me/project');
    await openSession(/scratchy/);
    await screen.findByRole('heading', { name: 'scratchy' });
    await userEvent.click(screen.getByRole('button', { name: 'New session' }));
    expect(fake.api.newSession).toHaveBeenLastCalledWith('');
  });

  it('applies the saved theme, and follows the system by default', async () => {
    render(<App />);
    await screen.findByRole('navigation', { name: 'Sessions' });
    await waitFor(() => expect(fake.api.getSettings).toHaveBeenCalled());
    expect(document.documentElement.dataset.theme).toBeUndefined();
    await userEvent.click(screen.getByRole('button', { name: 'Settings' }));
    await userEvent.selectOptions(await screen.findByRole('combobox', { name: 'Theme' }), 'dark');
    expect(document.documentElement.dataset.theme).toBe('dark');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved.');
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(document.documentElement.dataset.theme).toBe('dark');
  });
});
