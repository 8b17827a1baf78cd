import { act, render, renderHook, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Activity, SessionSummary } from '../api/types';
import { makeFakeApi } from '../test/fakeApi';
import { inboxApproval, inboxEnded } from '../test/inbox';
import { boardCounts, byAge, filterSessions, keepSelection, moveSelection, windowTitle } from '../state/inbox';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { Inbox } from './Inbox';
import { useInbox } from '../hooks/useInbox';
import { useBoard } from '../hooks/useBoard';
import { BoardFilters } from './Board';

beforeEach(() => {
  fake = makeFakeApi();
});

const newest = inboxApproval('a', 'c3', '2026-12-07T05:00:03Z');
const oldest = inboxApproval('b', 'c1', '2026-12-07T05:00:01Z', { session_title: 'Refactor', parent_session_id: 'p', child_description: 'write the tests', child_agent: 'tester' });
const middle = inboxApproval('c', 'c2', '2026-12-07T05:00:02Z', {
  tool: 'edit_file',
  arguments: { path: 'a.go', old_string: 'x', new_string: 'y' },
  diff: '--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+y\n',
});

function InboxHarness({ onOpen = () => {} }: { onOpen?: (id: string) => void }) {
  const inbox = useInbox();
  return <Inbox inbox={inbox} titleOf={(id) => (id === 'p' ? 'Parent session' : '')} onOpenSession={onOpen} onClose={() => {}} />;
}

const cards = () => screen.getAllByRole('article').map((c) => c.getAttribute('data-key'));

describe('the inbox', () => {
  it('lists every waiting call oldest first, with where it waits and what it would do', async () => {
    fake.state.inbox = { approvals: [newest, oldest, middle], ended: [] };
    render(<InboxHarness />);
    await waitFor(() => expect(cards()).toEqual(['b:c1', 'c:c2', 'a:c3']));
    const child = screen.getAllByRole('article')[0];
    expect(within(child).getByLabelText('Child').textContent).toBe('child of Parent session: write the tests · agent tester');
    expect(child.textContent).toContain('/home/me/project');
    expect(child.textContent).toContain('default · fake-model');
    expect(within(child).getByLabelText('Command').textContent).toContain('$ echo c1');
    // A file edit shows its diff.
    const edit = screen.getAllByRole('article')[1];
    expect(edit.querySelector('.patch')?.textContent).toBe('@@ -1 +1 @@\n-x\n+y\n');
    await waitFor(() => expect(fake.state.title).toBe('Loopdesk (3 waiting)'));
  });

  it('counts how long each call has waited, live', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const at = new Date(Date.now() - 5_000).toISOString();
      fake.state.inbox = { approvals: [inboxApproval('a', 'c1', at)], ended: [] };
      render(<InboxHarness />);
      await waitFor(() => expect(screen.getByLabelText('Waiting for').textContent).toBe('waiting 5s'));
      act(() => vi.advanceTimersByTime(3_000));
      // The next tick of the clock shows it (a slow machine may add a second).
      await waitFor(() => expect(screen.getByLabelText('Waiting for').textContent).toMatch(/^waiting [89]s$/));
    } finally {
      vi.useRealTimers();
    }
  });

  it('answers with the keyboard: j / k move, y approves, n denies, e edits, Enter opens', async () => {
    fake.state.inbox = { approvals: [newest, oldest, middle], ended: [] };
    const onOpen = vi.fn();
    render(<InboxHarness onOpen={onOpen} />);
    await waitFor(() => expect(cards()).toHaveLength(3));
    const first = screen.getAllByRole('article')[0];
    act(() => first.focus());
    await userEvent.keyboard('j');
    await waitFor(() => expect(document.activeElement?.getAttribute('data-key')).toBe('c:c2'));
    await userEvent.keyboard('k');
    await waitFor(() => expect(document.activeElement?.getAttribute('data-key')).toBe('b:c1'));
    await userEvent.keyboard('y');
    await waitFor(() => expect(fake.state.answers).toEqual([{ session_id: 'b', call_id: 'c1', approve: true, reason: '', arguments: '' }]));
    // The focus follows to the card that took its place.
    await waitFor(() => expect(document.activeElement?.getAttribute('data-key')).toBe('c:c2'));
    await userEvent.keyboard('n');
    await waitFor(() => expect(fake.state.answers[1]).toEqual({ session_id: 'c', call_id: 'c2', approve: false, reason: '', arguments: '' }));
    await waitFor(() => expect(document.activeElement?.getAttribute('data-key')).toBe('a:c3'));
    await userEvent.keyboard('{Enter}');
    expect(onOpen).toHaveBeenCalledWith('a');
    await userEvent.keyboard('e');
    const args = await screen.findByRole('textbox', { name: 'Arguments' });
    await userEvent.clear(args);
    await userEvent.type(args, '{{"command": "echo edited"}');
    // Typing in the form is text, not keys of the inbox.
    expect(fake.state.answers).toHaveLength(2);
    await userEvent.click(screen.getByRole('button', { name: 'Approve edited call' }));
    await waitFor(() => expect(fake.state.answers[2]).toEqual({ session_id: 'a', call_id: 'c3', approve: true, reason: '', arguments: '{"command":"echo edited"}' }));
  });

  it('lets a call answered first elsewhere go without an error, and shows other failures', async () => {
    fake.state.inbox = { approvals: [oldest, middle], ended: [] };
    fake.api.inboxAnswer.mockImplementationOnce(async () => {
      throw { code: 'not_pending', message: 'call c1 is not waiting for approval' };
    });
    render(<InboxHarness />);
    const first = (await screen.findAllByRole('article'))[0];
    await userEvent.click(within(first).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(cards()).toEqual(['c:c2']));
    expect(screen.queryByRole('alert')).toBeNull();
    fake.api.inboxAnswer.mockImplementationOnce(async () => {
      throw { code: 'error', message: 'database is locked' };
    });
    await userEvent.click(within(screen.getByRole('article')).getByRole('button', { name: 'Deny' }));
    expect((await screen.findByRole('alert')).textContent).toBe('database is locked');
    expect(cards()).toEqual(['c:c2']);
  });

  it('denies with the reason typed', async () => {
    fake.state.inbox = { approvals: [oldest], ended: [] };
    render(<InboxHarness />);
    await userEvent.click(await screen.findByRole('button', { name: 'Deny with reason' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Reason' }), 'use make test');
    await userEvent.click(screen.getByRole('button', { name: 'Send denial' }));
    await waitFor(() => expect(fake.state.answers).toEqual([{ session_id: 'b', call_id: 'c1', approve: false, reason: 'use make test', arguments: '' }]));
  });

  it('shows the rule and every other call a folder rule would approve before saving it', async () => {
    fake.state.inbox = { approvals: [oldest, middle, newest], ended: [] };
    fake.api.inboxAlwaysPreview.mockImplementation(async (_s: string, _c: string, scope: string) =>
      scope === 'session'
        ? { rule: 'allow run_shell_command echo c1 in this session', scope, others: [] }
        : { rule: 'allow run_shell_command echo* in /home/me/project', scope, others: [newest] },
    );
    render(<InboxHarness />);
    const card = (await screen.findAllByRole('article'))[0];
    await userEvent.click(within(card).getByRole('button', { name: 'Always allow' }));
    const dialog = screen.getByRole('dialog', { name: 'Always allow' });
    await waitFor(() => expect(within(dialog).getByLabelText('Rule to save').textContent).toBe('allow run_shell_command echo c1 in this session'));
    await userEvent.click(within(dialog).getByRole('radio', { name: 'This folder' }));
    await waitFor(() => expect(within(dialog).getByLabelText('Rule to save').textContent).toBe('allow run_shell_command echo* in /home/me/project'));
    expect(within(dialog).getByLabelText('Also approves').textContent).toContain('Session a — $ echo c3');
    expect(fake.api.inboxAlwaysAllow).not.toHaveBeenCalled();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save rule and approve 2 calls' }));
    expect(fake.api.inboxAlwaysAllow).toHaveBeenCalledWith('b', 'c1', 'folder');
  });

  it('lists the runs that ended, each dismissable', async () => {
    fake.state.inbox = { approvals: [], ended: [inboxEnded('r1', 'completed'), inboxEnded('r2', 'cost_budget')] };
    render(<InboxHarness />);
    const list = await screen.findByRole('region', { name: 'Ended runs' });
    expect(list.textContent).toContain('Stopped: the cost budget was used up.');
    expect(list.textContent).toContain('$0.12 · 1m 5s');
    await userEvent.click(within(list).getByRole('button', { name: 'Dismiss Ended r1' }));
    expect(fake.api.inboxDismiss).toHaveBeenCalledWith('r1');
    await waitFor(() => expect(screen.queryByText('Ended r1')).toBeNull());
    expect(screen.getByText('Ended r2')).toBeTruthy();
  });

  it('sends a reviewed file edit to the session for hunk by hunk, and approves all its hunks plainly', async () => {
    const at = new Date(Date.now() - 5_000).toISOString();
    const edit = inboxApproval('a', 'w1', at, {
      tool: 'write_file',
      arguments: { path: 'r.txt', content: 'x' },
      diff: '--- a/r.txt\n+++ b/r.txt\n@@ -1 +1 @@\n-a\n+x\n',
      review: true,
    });
    fake.state.inbox = { approvals: [edit, inboxApproval('b', 'c2', new Date(Date.now() - 1_000).toISOString())], ended: [] };
    render(<InboxHarness />);
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(2));
    const [reviewed, plain] = screen.getAllByRole('article');
    expect(within(reviewed).getByRole('note').textContent).toBe('Review hunk by hunk in the session (Open session). Approve here keeps every hunk.');
    expect(within(reviewed).getByRole('button', { name: 'Open session' })).toBeTruthy();
    expect(within(plain).queryByText(/hunk/)).toBeNull();
    expect(within(plain).getByRole('button', { name: 'Approve' })).toBeTruthy();
    await userEvent.click(within(reviewed).getByRole('button', { name: 'Approve all hunks' }));
    expect(fake.api.inboxAnswer).toHaveBeenCalledWith(expect.objectContaining({ session_id: 'a', call_id: 'w1', approve: true }));
  });

  it('says where each ended run came from', async () => {
    fake.state.inbox = {
      approvals: [],
      ended: [
        inboxEnded('r1', 'completed'),
        inboxEnded('r2', 'completed', { origin: { kind: 'run', pid: 4242, client: '' } }),
        inboxEnded('r3', 'failed', { origin: { kind: 'acp', pid: 7, client: 'zed' } }),
        inboxEnded('r4', 'completed', { origin: { kind: '', pid: 0, client: '' } }),
      ],
    };
    render(<InboxHarness />);
    const list = await screen.findByRole('region', { name: 'Ended runs' });
    const from = (run: string) => within(list).getByText(`Ended ${run}`).closest('li')?.querySelector('.origin')?.textContent ?? null;
    expect(from('r1')).toBe('from the window');
    expect(from('r2')).toBe('from loopdesk run (pid 4242)');
    expect(from('r3')).toBe('from editor: zed');
    expect(from('r4')).toBeNull();
  });

  it('never takes the focus from the message box when a call arrives', async () => {
    render(
      <>
        <textarea aria-label="Message" />
        <InboxHarness />
      </>,
    );
    const box = screen.getByRole('textbox', { name: 'Message' });
    act(() => box.focus());
    act(() => fake.emitInbox({ approvals: [oldest], ended: [] }));
    await screen.findByRole('article');
    await new Promise((r) => requestAnimationFrame(r));
    expect(document.activeElement).toBe(box);
    await waitFor(() => expect(fake.state.title).toBe('Loopdesk (1 waiting)'));
  });
});

describe('the inbox order and selection', () => {
  it('orders by age and keeps or moves the selection', () => {
    expect(byAge([newest, oldest, middle]).map((a) => a.call_id)).toEqual(['c1', 'c2', 'c3']);
    expect(moveSelection(['a', 'b'], null, 1)).toBe('a');
    expect(moveSelection(['a', 'b'], 'b', 1)).toBe('b');
    expect(moveSelection(['a', 'b'], 'b', -1)).toBe('a');
    expect(keepSelection(['a', 'b', 'c'], ['a', 'c'], 'b')).toBe('c');
    expect(keepSelection(['a', 'b'], ['a'], 'b')).toBe('a');
    expect(keepSelection(['a'], [], 'a')).toBeNull();
    expect(windowTitle(0)).toBe('Loopdesk');
  });
});

describe('the board', () => {
  const s = (id: string) => ({ id, title: id }) as SessionSummary;
  const act_ = (session_id: string, state: Activity['state'], over: Partial<Activity> = {}) =>
    ({ session_id, state, step: '', waiting: 0, run_id: '', cost_usd: 0, status: '', ...over }) as Activity;

  it('counts and filters sessions by state', () => {
    const sessions = [s('a'), s('b'), s('c'), s('d'), s('new')];
    const activity = { a: act_('a', 'needs_you'), b: act_('b', 'working'), c: act_('c', 'done'), d: act_('d', 'needs_you') };
    expect(boardCounts(sessions, activity)).toEqual({ all: 5, needs_you: 2, working: 1, done: 1, failed: 0, idle: 1 });
    expect(filterSessions(sessions, activity, 'needs_you').map((x) => x.id)).toEqual(['a', 'd']);
    expect(filterSessions(sessions, activity, 'idle').map((x) => x.id)).toEqual(['new']);
  });

  it('follows activity:changed and filters with the chosen state', async () => {
    fake.state.activity = [act_('a', 'done'), act_('b', 'idle')];
    const sessions = [s('a'), s('b')];
    const refresh = vi.fn();
    const { result } = renderHook(() => useBoard(sessions, refresh));
    await waitFor(() => expect(result.current.counts.done).toBe(1));
    act(() => fake.emitActivity(act_('b', 'needs_you', { step: 'Waiting for approval', waiting: 1 })));
    expect(result.current.counts.needs_you).toBe(1);
    // A change of state reads the list again (a title, a running dot); a new step does not.
    expect(refresh).toHaveBeenCalledTimes(1);
    act(() => fake.emitActivity(act_('b', 'needs_you', { step: 'Waiting for approval', waiting: 2 })));
    expect(refresh).toHaveBeenCalledTimes(1);
    act(() => result.current.setFilter('needs_you'));
    expect(result.current.shown.map((x) => x.id)).toEqual(['b']);
    const onFilter = vi.fn();
    render(<BoardFilters filter={result.current.filter} counts={result.current.counts} onFilter={onFilter} />);
    expect(screen.getByRole('radio', { name: 'Needs you 1' }).getAttribute('aria-checked')).toBe('true');
    await userEvent.click(screen.getByRole('radio', { name: 'Done 1' }));
    expect(onFilter).toHaveBeenCalledWith('done');
  });

  it('keeps the newest activity when a late step arrives after the run ended', async () => {
    fake.state.activity = [];
    const { result } = renderHook(() => useBoard([s('a')], vi.fn()));
    act(() => fake.emitActivity(act_('a', 'done', { version: 7 })));
    // The step before the end, delivered after it (events reach the page out of order).
    act(() => fake.emitActivity(act_('a', 'working', { step: 'Writing the reply', version: 6 })));
    expect(result.current.activity.a.state).toBe('done');
    expect(result.current.counts.done).toBe(1);
    act(() => fake.emitActivity(act_('a', 'working', { step: 'Waiting for the model', version: 8 })));
    expect(result.current.activity.a.state).toBe('working');
  });
});
