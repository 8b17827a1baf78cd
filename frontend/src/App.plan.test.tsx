// The plan pinned above the message box: read when a session opens, read again when a row
// that sets it arrives, and edited by the person.
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
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

describe('the pinned plan', () => {
  it('is pinned on open, follows update_plan rows, and takes the person’s edit', async () => {
    const s = fake.session('planned');
    fake.state.sessions.push(s);
    fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: 'fix it' })]);
    fake.state.plans.set(s.id, { plan: [{ step: 'read the code', status: 'in_progress' }], seq: 2, by: 'model' });
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /planned/ }));
    const pinned = await screen.findByRole('region', { name: 'Plan' });
    expect(within(pinned).getByLabelText('read the code (in progress)')).toBeTruthy();

    // A new update_plan call arrives: the pinned plan is read again.
    fake.state.plans.set(s.id, {
      plan: [
        { step: 'read the code', status: 'completed' },
        { step: 'fix the bug', status: 'in_progress' },
      ],
      seq: 3,
      by: 'model',
    });
    act(() =>
      fake.store(s.id, [chunk(s.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'p2', name: 'update_plan', arguments: '{}' }] })]),
    );
    expect(await screen.findByLabelText('fix the bug (in progress)')).toBeTruthy();

    await userEvent.click(screen.getByRole('button', { name: 'Edit plan' }));
    const step = screen.getByLabelText('Step 2');
    await userEvent.clear(step);
    await userEvent.type(step, 'fix the bug, test first');
    await userEvent.click(screen.getByRole('button', { name: 'Save plan' }));
    await waitFor(() => expect(fake.api.editPlan).toHaveBeenCalledTimes(1));
    expect(fake.api.editPlan.mock.calls[0][1].plan?.[1].step).toBe('fix the bug, test first');
    expect(await screen.findByText(/edited by you/)).toBeTruthy();
  });

  it('appears while the run that set it goes, also right after a longer session was open', async () => {
    const long = fake.session('long one');
    const fresh = fake.session('fresh one');
    fake.state.sessions.push(long, fresh);
    fake.state.rows.set(long.id, Array.from({ length: 12 }, (_, i) => chunk(long.id, i + 1, 'user', { text: `message ${i + 1}` })));
    fake.state.rows.set(fresh.id, [chunk(fresh.id, 1, 'user', { text: 'make a plan' })]);
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /long one/ }));
    await screen.findByText('message 12');
    await userEvent.click(within(nav).getByRole('button', { name: /fresh one/ }));
    await screen.findByText('make a plan');
    expect(screen.queryByRole('region', { name: 'Plan' })).toBeNull();

    // The run's first update_plan row (seq 2, below the other session's last row) arrives.
    fake.state.plans.set(fresh.id, { plan: [{ step: 'write the test', status: 'in_progress' }], seq: 2, by: 'model' });
    act(() =>
      fake.store(fresh.id, [chunk(fresh.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'p1', name: 'update_plan', arguments: '{}' }] })]),
    );
    expect(await screen.findByLabelText('write the test (in progress)')).toBeTruthy();
  });
});
