import { act, renderHook, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeFakeApi } from '../test/fakeApi';
import type { RunStatus } from '../api/types';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { useChildren } from './useChildren';

beforeEach(() => {
  fake = makeFakeApi();
});

describe('useChildren', () => {
  it('shows a child that was running before the page opened, then follows its events', async () => {
    fake.api.children.mockImplementation(async (id: string) =>
      id === 'p1'
        ? [{ session_id: 'c1', parent_call_id: 't1', seq: 4, status: 'running', step: 'running read_file', tool_calls: 2, tokens: 500, cost: 0.01, pending: null }]
        : [],
    );
    const { result } = renderHook(() => useChildren('p1'));
    await waitFor(() => expect(result.current.t1).toMatchObject({ sessionId: 'c1', status: 'running', step: 'running read_file', toolCalls: 2 }));
    act(() => fake.emit({ type: 'run_finished', session_id: 'c1', seq: 5, status: 'completed', parent_call_id: 't1', parent_session_id: 'p1' }));
    expect(result.current.t1).toMatchObject({ status: 'completed', toolCalls: 2, tokens: 500 });
    // Another session's children are not this one's.
    act(() => fake.emit({ type: 'run_started', session_id: 'x', seq: 1, parent_call_id: 't9', parent_session_id: 'other' }));
    expect(result.current.t9).toBeUndefined();
    expect(fake.api.children).toHaveBeenCalledWith('p1');
  });

  it('reads the children again when the parent run ends, so a missed child event leaves no stale card', async () => {
    let status: RunStatus = 'running';
    fake.api.children.mockImplementation(async () => [
      { session_id: 'c1', parent_call_id: 't1', seq: status === 'running' ? 3 : 8, status, step: status, tool_calls: 1, tokens: 10, cost: 0, pending: null },
    ]);
    const { result } = renderHook(() => useChildren('p1'));
    await waitFor(() => expect(result.current.t1?.status).toBe('running'));
    status = 'completed'; // the child's run_finished never reached the page
    act(() => fake.emit({ type: 'run_finished', session_id: 'p1', status: 'completed' }));
    await waitFor(() => expect(result.current.t1?.status).toBe('completed'));
    expect(fake.api.children).toHaveBeenCalledTimes(2);
  });
});
