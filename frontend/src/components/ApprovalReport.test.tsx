import { render, screen, waitFor, within, act } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Report } from '../api/types';
import { makeFakeApi, meter } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { BudgetTab } from './BudgetTab';
import { ApprovalsView } from './ApprovalsView';

beforeEach(() => {
  fake = makeFakeApi();
});

// As Go reports the recorded sessions of backend/approvals/approvalstest: the naive
// "go test *" is not offered, because the person denied "go test ./... -exec rm".
const recorded: Report = {
  asked: 11,
  allowed_by_rule: { R1: 1 },
  allowed_by_mode: 2,
  allowed_by_hook: 1,
  allowed_by_skill: 1,
  sandboxed: 2,
  denied: { person: 2, rule: 1, mode: 0, hook: 1 },
  answer_ms: { p50: 2000, p90: 5000 },
  suggestions: [
    {
      rule: { tool: 'run_shell_command', pattern: 'go test ./store -run *', scope: 'session' },
      prompts_removed: 2,
      would_allow: [
        { session_id: 'A', seq: 2 },
        { session_id: 'A', seq: 5 },
      ],
    },
    {
      rule: { tool: 'mcp__github__create_issue', pattern: '', scope: 'workspace' },
      prompts_removed: 2,
      would_allow: [
        { session_id: 'A', seq: 20 },
        { session_id: 'B', seq: 2 },
      ],
    },
  ],
};

const meters = { meters: [meter('turns', 1, 20)], repeats: null, phase: 'idle' as const, status: null, hadRun: true };

describe('the Budget tab', () => {
  it("shows the session's approval report, and Accept saves the rule as Always allow", async () => {
    fake.state.approvalReport = recorded;
    render(<BudgetTab sessionID="A" {...meters} />);
    expect((await screen.findByRole('note', { name: 'Prompts answered' })).textContent).toContain('You answered 11 prompts (median 2.0 s, p90 5.0 s)');
    expect(fake.api.approvalReport).toHaveBeenCalledWith('A', '');
    const list = screen.getByRole('list', { name: 'Suggested rules' });
    expect(within(list).getByText('allow run_shell_command go test ./store -run * in this session')).toBeTruthy();
    expect(within(list).queryByText(/go test \*/)).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Accept: allow every mcp__github__create_issue call in this folder' }));
    expect(fake.api.acceptSuggestion).toHaveBeenCalledWith(recorded.suggestions![1]);
    expect(((await screen.findByRole('button', { name: 'Accept: allow every mcp__github__create_issue call in this folder' })) as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows Loopdesk's own tokens from run_started and the provider's limits with their time", async () => {
    fake.state.limits = { provider: 'default', at: new Date().toISOString(), headers: { 'x-ratelimit-remaining-tokens': '39000', 'retry-after': '7' } };
    render(<BudgetTab sessionID="A" {...meters} />);
    const limits = await screen.findByRole('region', { name: 'Provider limits' });
    expect(limits.textContent).toContain('remaining-tokens39000');
    expect(limits.textContent).toContain('retry-after7');
    expect(screen.getByRole('note', { name: "Loopdesk's own tokens" }).textContent).toContain('shown once a run starts');
    act(() => {
      fake.emit({ type: 'run_started', session_id: 'A', harness_tokens: { system: 145, tools: 1768, mcp: { github: 300 }, instructions: 0, notes: 0, total: 2213, estimated: true } });
    });
    await waitFor(() => expect(screen.getByRole('note', { name: "Loopdesk's own tokens" }).textContent).toMatch(/2\.2k.*\(estimated\).*MCP github 300/));
  });

  it("shows the last run's own tokens when the session opens, measured when the provider said", async () => {
    fake.state.harness = { system: 145, tools: 1768, mcp: {}, instructions: 0, notes: 0, total: 1841, estimated: false };
    render(<BudgetTab sessionID="A" {...meters} />);
    const note = await screen.findByText(/Loopdesk's own tokens per request: 1\.8k/);
    expect(fake.api.harnessTokens).toHaveBeenCalledWith('A');
    expect(note.textContent).toContain('1.8k (as the provider counts) — parts, estimated: system prompt 145, built-in tools 1.8k');
  });
});

describe('the approvals view', () => {
  it('reports every session over the period the person picks', async () => {
    fake.state.approvalReport = recorded;
    render(<ApprovalsView titleOf={(id) => `Session ${id}`} onClose={() => {}} />);
    await screen.findByRole('list', { name: 'Suggested rules' });
    expect(fake.api.approvalReport).toHaveBeenLastCalledWith('', '7d');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Period' }), 'All time');
    await waitFor(() => expect(fake.api.approvalReport).toHaveBeenLastCalledWith('', ''));
    await userEvent.click(screen.getAllByText(/It would have allowed 2 past calls/)[1]);
    expect(screen.getByText('Session B #2')).toBeTruthy();
  });
});
