import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { TaskCtx, TaskProgress, type TaskContext } from './TaskProgress';
import { ToolCard } from './ToolCard';
import { childSeed, childStep, type Children } from '../hooks/useChildren';
import type { ChildView } from '../api/types';
import type { WireEvent } from '../api/backend';

const ev = (type: string, extra: Record<string, unknown> = {}): WireEvent =>
  ({ type, session_id: 'child1', run_id: 'r', seq: 1, parent_call_id: 't1', parent_session_id: 'p1', ...extra }) as WireEvent;

describe('childStep', () => {
  it('follows a child from its events: steps, calls, spend, approvals, the end', () => {
    let s: Children = {};
    for (const e of [
      ev('run_started'),
      ev('tool_started', { name: 'read_file' }),
      ev('budget', { tokens: 1200, cost_usd: 0.0123, tool_calls: 1 }),
      ev('approval_requested', { call_id: 'w1', name: 'write_file', arguments: { path: 'a' } }),
    ])
      s = childStep(s, e);
    expect(s.t1).toMatchObject({ sessionId: 'child1', toolCalls: 1, tokens: 1200, cost: 0.0123, step: 'waiting for your approval of write_file' });
    expect(s.t1.pending).toHaveLength(1);
    s = childStep(s, ev('approval_decided', { call_id: 'w1' }));
    s = childStep(s, ev('run_finished', { status: 'completed' }));
    expect(s.t1).toMatchObject({ status: 'completed', pending: [] });
    expect(childStep(s, { ...ev('budget'), parent_call_id: undefined } as WireEvent)).toBe(s);
  });
});

const view = (extra: Partial<ChildView> = {}): ChildView => ({
  session_id: 'child1', parent_call_id: 't1', seq: 5, status: 'running', step: 'waiting for your approval of write_file',
  tool_calls: 3, tokens: 2000, cost: 0.02, pending: [{ call_id: 'w1', name: 'write_file', arguments: { path: 'a' }, read_only: false, sandboxed: false, network: false }], ...extra,
});

describe('childSeed (a page opened or reloaded while a child runs, or after)', () => {
  it('rebuilds the card from the journal: progress, the waiting call with its arguments', () => {
    const s = childSeed({}, [view()]);
    expect(s.t1).toMatchObject({ sessionId: 'child1', status: 'running', step: 'waiting for your approval of write_file', toolCalls: 3, tokens: 2000, seq: 5 });
    expect(s.t1.pending).toEqual([{ call_id: 'w1', name: 'write_file', arguments: { path: 'a' } }]);
    // Events after the read go on from it.
    const after = childStep(childStep(s, ev('approval_decided', { call_id: 'w1', seq: 6 })), ev('run_finished', { status: 'completed', seq: 7 }));
    expect(after.t1).toMatchObject({ status: 'completed', pending: [], toolCalls: 3, seq: 7 });
  });

  it('never lets a read older than an applied event undo it, and a newer read fills what the page missed', () => {
    let s: Children = {};
    s = childStep(s, ev('run_started', { seq: 1 }));
    s = childStep(s, ev('run_finished', { status: 'completed', seq: 9 }));
    // The read began before run_finished: it still says running.
    expect(childSeed(s, [view({ seq: 8 })]).t1).toMatchObject({ status: 'completed', pending: [] });
    // The page missed the end (it opened after): the read says so.
    const missed = childStep({}, ev('run_started', { seq: 1 }));
    expect(childSeed(missed, [view({ seq: 9, status: 'max_turns', step: 'max_turns', pending: null })]).t1).toMatchObject({ status: 'max_turns', toolCalls: 3, pending: [] });
    // A finished child listed before any event.
    expect(childSeed({}, [view({ status: 'completed', step: 'completed', pending: null })]).t1.status).toBe('completed');
  });
});

describe('TaskProgress', () => {
  it('shows the child, labels its approval with the description and agent, and opens it', async () => {
    const ctx: TaskContext = {
      children: {
        t1: { sessionId: 'child1', status: 'running', step: 'waiting for your approval of write_file', toolCalls: 2, tokens: 900, cost: 0.5, pending: [{ call_id: 'w1', name: 'write_file', arguments: { path: 'out.txt', content: 'x' } }] },
      },
      childOf: () => undefined,
      openSession: vi.fn(),
      decide: vi.fn().mockResolvedValue(true),
    };
    render(
      <TaskCtx.Provider value={ctx}>
        <TaskProgress callId="t1" args={{ description: 'write the file', agent: 'writer' }} done={false} />
      </TaskCtx.Provider>,
    );
    const group = screen.getByRole('group', { name: 'Approval for child write the file (agent writer)' });
    expect(group.textContent).toContain('out.txt');
    expect(screen.getByRole('group', { name: 'Child session: write the file (agent writer)' }).textContent).toContain('2 tool calls · 900 tokens');
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }));
    await waitFor(() => expect(ctx.decide).toHaveBeenCalledWith('child1', 'w1', expect.objectContaining({ approved: false })));
    fireEvent.click(screen.getByRole('button', { name: 'Open child session' }));
    expect(ctx.openSession).toHaveBeenCalledWith('child1');
  });
});

describe('TaskProgress usage', () => {
  it('says usage unreported for a finished child whose provider sent none, never $0 as if free', () => {
    const ctx: TaskContext = {
      children: { t1: { sessionId: 'c', status: 'completed', step: 'completed', toolCalls: 1, tokens: 0, cost: 0, pending: [] } },
      childOf: () => undefined,
      openSession: vi.fn(),
      decide: vi.fn(),
    };
    render(
      <TaskCtx.Provider value={ctx}>
        <TaskProgress callId="t1" args={{ description: 'd' }} done={true} />
      </TaskCtx.Provider>,
    );
    const g = screen.getByRole('group', { name: 'Child session: d' });
    expect(g.textContent).toContain('usage unreported');
    expect(g.textContent).not.toContain('$0.0000');
  });
});

describe('the task call card', () => {
  it('says Running while its child runs, even on a page that saw no tool_started (reloaded)', () => {
    const ctx: TaskContext = {
      children: { t1: { sessionId: 'c', status: 'running', step: 'running read_file', toolCalls: 1, tokens: 10, cost: 0, pending: [], seq: 3 } },
      childOf: () => undefined,
      openSession: vi.fn(),
      decide: vi.fn(),
    };
    const actions = { decide: vi.fn(), suggestRule: vi.fn(), readFile: vi.fn() };
    const call = { id: 't1', name: 'task', arguments: '{"description":"d","prompt":"p"}' };
    const { rerender } = render(
      <TaskCtx.Provider value={ctx}>
        <ToolCard call={call} actions={actions} />
      </TaskCtx.Provider>,
    );
    expect(screen.getByText('Running child session')).toBeTruthy();
    rerender(
      <TaskCtx.Provider value={{ ...ctx, children: {} }}>
        <ToolCard call={call} actions={actions} />
      </TaskCtx.Provider>,
    );
    expect(screen.getByText('Waiting')).toBeTruthy();
    // Known to run (tool_started, or Chat.Live after a reload): the same words, with how long.
    const running = { run_id: 'r1', call_id: 't1', name: 'task', since: Date.now() - 5000 };
    rerender(
      <TaskCtx.Provider value={ctx}>
        <ToolCard call={call} actions={actions} running={running} />
      </TaskCtx.Provider>,
    );
    expect(screen.getByText(/^Running child session \d+s$/)).toBeTruthy();
  });
});
