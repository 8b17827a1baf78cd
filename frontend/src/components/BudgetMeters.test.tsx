import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { meter } from '../test/fakeApi';
import { BudgetMeters } from './BudgetMeters';

const meters = () => [
  meter('turns', 2, 10),
  meter('tool_calls', 1),
  meter('tokens', 850, 1000),
  meter('cost', 0.5, 1, { level: 'soft' }),
  meter('time', 3, 60),
  meter('context', 900, 1000),
];

const props = { meters: meters(), repeats: null, phase: 'tools' as const, status: null, hadRun: false };

afterEach(() => vi.useRealTimers());

describe('BudgetMeters', () => {
  it('draws a meter for each of Go\'s, named, with value and limit formatted by unit', () => {
    render(<BudgetMeters {...props} />);
    for (const name of ['Turns', 'Tool calls', 'Tokens', 'Cost', 'Time', 'Context']) expect(screen.getByRole('meter', { name })).toBeTruthy();
    const turns = screen.getByRole('meter', { name: 'Turns' });
    expect(turns.getAttribute('aria-valuenow')).toBe('2');
    expect(turns.getAttribute('aria-valuemax')).toBe('10');
    expect(turns.getAttribute('aria-valuetext')).toBe('2 of 10');
    expect(screen.getByRole('meter', { name: 'Tool calls' }).getAttribute('aria-valuetext')).toBe('1 (no limit)');
    expect(screen.getByRole('meter', { name: 'Cost' }).getAttribute('aria-valuetext')).toBe('$0.50 of $1.00');
    expect(screen.getByRole('meter', { name: 'Time' }).getAttribute('aria-valuetext')).toBe('3s of 1m 0s');
    expect(screen.getByRole('meter', { name: 'Context' }).getAttribute('aria-valuetext')).toBe('900 of 1.0k');
  });

  it('colours each meter at the level Go gives, not by its own arithmetic', () => {
    const { rerender } = render(<BudgetMeters {...props} />);
    expect(screen.getByRole('meter', { name: 'Turns' }).dataset.level).toBe('ok');
    expect(screen.getByRole('meter', { name: 'Tokens' }).dataset.level).toBe('soft'); // 85%
    expect(screen.getByRole('meter', { name: 'Cost' }).dataset.level).toBe('soft'); // 50%, but soft in Go
    const stopped = meters().map((m) => (m.key === 'turns' ? meter('turns', 10, 10) : m));
    rerender(<BudgetMeters {...props} meters={stopped} phase="idle" status="max_turns" hadRun />);
    expect(screen.getByRole('meter', { name: 'Turns' }).dataset.level).toBe('over');
    expect(screen.getByLabelText('Stop reason').textContent).toMatch(/maximum number of turns/);
    expect(screen.getByText('Last run')).toBeTruthy();
  });

  it('shows loop detection with Go\'s repeat count, and when it stopped the run', () => {
    const { rerender } = render(<BudgetMeters {...props} repeats={{ tool: 'read_file', count: 2, limit: 3 }} />);
    expect(screen.getByLabelText('Loop detection').textContent).toMatch(/Loop detection on.*Repeats so far: 2 \(read_file\)/);
    rerender(<BudgetMeters {...props} phase="idle" status="loop_detected" />);
    expect(screen.getByLabelText('Loop detection').textContent).toMatch(/Loop detected/);
  });

  it('advances the Time meter with the clock from where Go counts the run\'s time, never back', () => {
    const working = meters().map((m) => (m.key === 'time' ? meter('time', 3, 60, { counts_from_ms: Date.now() - 7000 }) : m));
    render(<BudgetMeters {...props} meters={working} phase="waiting" />);
    expect(screen.getByRole('meter', { name: 'Time' }).getAttribute('aria-valuetext')).toBe('7s of 1m 0s');
  });

  it('holds the Time meter still while the person decides, and says that wait is not counted', () => {
    const note = "The model's and the tools' time. Time waiting for your approval is not counted.";
    // Go sends no counts_from_ms while the run waits for an approval, however long ago it started.
    const waiting = meters().map((m) => (m.key === 'time' ? meter('time', 3, 60, { note }) : m));
    vi.useFakeTimers();
    render(<BudgetMeters {...props} meters={waiting} phase="tools" />);
    expect(screen.getByRole('meter', { name: 'Time' }).getAttribute('aria-valuetext')).toBe('3s of 1m 0s');
    expect(screen.getByText(note)).toBeTruthy();
    // Nothing to move: no clock wakes the window while the person decides.
    expect(vi.getTimerCount()).toBe(0);
  });
});
