import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { BudgetPayload } from '../api/events';
import type { Run } from '../api/types';
import { BudgetMeters } from './BudgetMeters';

const budget = (over: Partial<BudgetPayload> = {}): BudgetPayload => ({
  turns: 2, max_turns: 10, tool_calls: 1, max_tool_calls: 0, tokens: 850, max_tokens: 1000,
  cost_usd: 0.5, max_cost_usd: 1, elapsed_ms: 3000, timeout_ms: 60000, context_tokens: 900,
  context_window: 1000, warnings: null, ...over,
});

const props = { runs: [] as Run[], rows: [], phase: 'tools' as const, runStartedAt: null, status: null, defaults: null, contextWindow: 0 };

describe('BudgetMeters', () => {
  it('has a meter for each budget, named, with value and limit', () => {
    render(<BudgetMeters {...props} budget={budget()} />);
    for (const name of ['Turns', 'Tokens', 'Cost', 'Time', 'Context']) expect(screen.getByRole('meter', { name })).toBeTruthy();
    const turns = screen.getByRole('meter', { name: 'Turns' });
    expect(turns.getAttribute('aria-valuenow')).toBe('2');
    expect(turns.getAttribute('aria-valuemax')).toBe('10');
    expect(turns.getAttribute('aria-valuetext')).toBe('2 of 10');
    expect(screen.getByRole('meter', { name: 'Tool calls' }).getAttribute('aria-valuetext')).toBe('1 (no limit)');
  });

  it('changes colour at the soft limit and when a budget stops the run', () => {
    const { rerender } = render(<BudgetMeters {...props} budget={budget({ warnings: ['cost'] })} />);
    expect(screen.getByRole('meter', { name: 'Turns' }).dataset.level).toBe('ok');
    expect(screen.getByRole('meter', { name: 'Tokens' }).dataset.level).toBe('soft'); // 85%
    expect(screen.getByRole('meter', { name: 'Cost' }).dataset.level).toBe('soft'); // 50%, but warned by Go
    rerender(<BudgetMeters {...props} phase="idle" status="max_turns" budget={budget({ turns: 10 })} />);
    expect(screen.getByRole('meter', { name: 'Turns' }).dataset.level).toBe('over');
    expect(screen.getByLabelText('Stop reason').textContent).toMatch(/maximum number of turns/);
  });

  it('shows loop detection, and when it stopped the run', () => {
    const { rerender } = render(<BudgetMeters {...props} budget={budget()} />);
    expect(screen.getByLabelText('Loop detection').textContent).toMatch(/Loop detection on/);
    rerender(<BudgetMeters {...props} phase="idle" status="loop_detected" budget={budget()} />);
    expect(screen.getByLabelText('Loop detection').textContent).toMatch(/Loop detected/);
  });

  it('shows the last run against its recorded limits when nothing is live', () => {
    const run: Run = {
      run_id: 'r1', session_id: 's1', model: 'm', status: 'completed', output: '', turns: 4, tool_calls: 2,
      input_tokens: 100, output_tokens: 20, cost_usd: 0, started_at: '2026-01-01T10:00:00Z', ended_at: '2026-01-01T10:00:07Z',
      error: '', budgets: { max_turns: 5, max_tool_calls: 10, timeout: 60e9 },
    };
    render(<BudgetMeters {...props} phase="idle" budget={null} runs={[run]} />);
    expect(screen.getByRole('meter', { name: 'Turns' }).getAttribute('aria-valuetext')).toBe('4 of 5');
    expect(screen.getByRole('meter', { name: 'Turns' }).dataset.level).toBe('soft');
    expect(screen.getByRole('meter', { name: 'Time' }).getAttribute('aria-valuetext')).toBe('7s of 1m 0s');
    expect(screen.getByRole('meter', { name: 'Tokens' }).getAttribute('aria-valuetext')).toBe('120 (no limit)');
  });
});
