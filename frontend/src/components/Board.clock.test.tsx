// The board's clock under a running session: every second while it works, in 10 s steps while
// it waits for the person (each repaint of the window costs CPU; docs/benchmarks.md, "Many
// agents at once").
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Activity } from '../api/types';
import { SessionStep } from './Board';

afterEach(() => vi.useRealTimers());

const activity = (state: Activity['state'], started: number): Activity => ({
  session_id: 's1', state, step: state === 'working' ? 'Waiting for the model' : 'Waiting for approval', waiting: 0, run_id: 'r1',
  started_at: new Date(started).toISOString(), cost_usd: 0, status: '',
});

describe('SessionStep', () => {
  it('moves every second while the session works, in 10 s steps while it waits for the person', () => {
    vi.useFakeTimers();
    const t0 = Date.now();
    const { rerender } = render(<SessionStep activity={activity('working', t0)} />);
    act(() => vi.advanceTimersByTime(3000));
    expect(screen.getByLabelText('Current step').textContent).toContain('3s');
    rerender(<SessionStep activity={activity('needs_you', t0)} />);
    act(() => vi.advanceTimersByTime(4000));
    expect(screen.getByLabelText('Current step').textContent).toContain('3s'); // not 7s: no tick yet
    act(() => vi.advanceTimersByTime(6000));
    expect(screen.getByLabelText('Current step').textContent).toContain('13s');
  });
});
