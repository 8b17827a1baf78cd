// The board's clock under a running session: every second while it works, once a minute while
// it waits for the person (each repaint of the window costs CPU; docs/benchmarks.md, "Many
// agents at once").
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Activity } from '../api/types';
import { makeFakeApi } from '../test/fakeApi';
import { SessionStep } from './Board';
import { SessionBrowser } from './SessionBrowser';

afterEach(() => vi.useRealTimers());

const activityOf = (state: Activity['state'], started: number): Activity => ({
  session_id: 's1', state, step: state === 'working' ? 'Waiting for the model' : 'Waiting for approval', waiting: 0, run_id: 'r1',
  started_at: new Date(started).toISOString(), cost_usd: 0, status: '', version: 1,
});

describe('SessionStep', () => {
  it('moves every second while the session works, once a minute in whole minutes while it waits for the person', () => {
    vi.useFakeTimers();
    const t0 = Date.now();
    const { rerender } = render(<SessionStep activity={activityOf('working', t0)} />);
    act(() => vi.advanceTimersByTime(3000));
    expect(screen.getByLabelText('Current step').textContent).toContain('3s');
    rerender(<SessionStep activity={activityOf('needs_you', t0)} />);
    expect(screen.getByLabelText('Current step').textContent).toContain('<1m');
    act(() => vi.advanceTimersByTime(59000));
    expect(screen.getByLabelText('Current step').textContent).toContain('<1m'); // 62 s in: no tick yet
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getByLabelText('Current step').textContent).toContain(' · 1m');
  });
});

describe('the board with many sessions', () => {
  const states: Activity['state'][] = ['done', 'idle', 'failed'];

  it('holds one timer for every waiting row together and none for the rows that ended', () => {
    vi.useFakeTimers();
    const f = makeFakeApi();
    const t0 = Date.now();
    const sessions = Array.from({ length: 30 }, (_, i) => f.session(`session ${i}`));
    const activity: Record<string, Activity> = {};
    sessions.forEach((s, i) => {
      activity[s.id] = { ...activityOf(i < 2 ? 'needs_you' : states[i % 3], t0), session_id: s.id };
    });
    const view = (a: Record<string, Activity>) => (
      <SessionBrowser
        sessions={sessions} selected={null} query="" onQuery={() => {}} hits={[]} searching={false} searchError=""
        onSelect={() => {}} onOpenHit={() => {}} onNew={() => {}} onSettings={() => {}}
        detail={(s) => <SessionStep activity={a[s.id]} />}
      />
    );
    const { rerender, unmount } = render(view(activity));
    // Two waiting, 28 ended: one clock for the two, none for the rest.
    expect(vi.getTimerCount()).toBe(1);
    act(() => vi.advanceTimersByTime(60000));
    expect(screen.getAllByLabelText('Current step').map((e) => e.textContent)).toEqual(Array(2).fill(expect.stringContaining(' · 1m')));
    // Both end: no timer is left.
    const ended = Object.fromEntries(Object.entries(activity).map(([id, a]) => [id, { ...a, state: 'done' as const }]));
    rerender(view(ended));
    expect(vi.getTimerCount()).toBe(0);
    expect(screen.queryAllByLabelText('Current step')).toEqual([]);
    rerender(view(activity));
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});
