// The conversation controls against the in-memory fake: Edit message in place,
// the version switcher, Regenerate, Retry, Copy message, the find bar and Esc.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Run } from './api/types';
import { chunk, makeFakeApi } from './test/fakeApi';

/** A finished run that ended with a provider error, as Sessions.Runs lists it. */
const failedRun = (session_id: string): Run => ({
  run_id: 'run1', session_id, model: 'm', provider: 'default', system_prompt_hash: '', budgets: null, status: 'provider_error',
  output: '', started_at: '', error: 'boom', mode: 'execute', instructions: null,
  turns: 1, tool_calls: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0,
});

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

function seed(title: string) {
  const s = fake.session(title);
  fake.state.sessions.push(s);
  fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: 'capital of France?' }), chunk(s.id, 2, 'assistant', { text: 'Paris.', reasoning: '', tool_calls: [] })]);
  return s;
}

async function open(title: RegExp) {
  const nav = await screen.findByRole('navigation', { name: 'Sessions' });
  await userEvent.click(await within(nav).findByRole('button', { name: title }));
}

const mine = () => screen.findByRole('article', { name: 'You' });

describe('conversation controls', () => {
  it('edits a message in place; Cancel keeps it, Send edit forks and opens the fork', async () => {
    const s = seed('geo');
    render(<App />);
    await open(/geo/);
    await userEvent.click(within(await mine()).getByRole('button', { name: 'Edit message' }));
    const box = screen.getByRole('textbox', { name: 'Edit message text' });
    expect((box as HTMLTextAreaElement).value).toBe('capital of France?');
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('textbox', { name: 'Edit message text' })).toBeNull();

    await userEvent.click(within(await mine()).getByRole('button', { name: 'Edit message' }));
    await userEvent.clear(screen.getByRole('textbox', { name: 'Edit message text' }));
    await userEvent.type(screen.getByRole('textbox', { name: 'Edit message text' }), 'capital of Italy?');
    await userEvent.click(screen.getByRole('button', { name: 'Send edit' }));
    await waitFor(() => expect(fake.api.editAndResend).toHaveBeenCalledWith(s.id, 1, 'capital of Italy?', false));
    const fork = fake.state.sessions.find((x) => x.parent_id === s.id)!;
    await waitFor(() => expect(document.querySelector('main')?.dataset.sessionId).toBe(fork.id));
    expect(fake.state.rows.get(s.id)).toHaveLength(2); // the original is untouched
  });

  it('shows N / M on a message with versions and moves between them', async () => {
    const s = seed('geo');
    const other = fake.session('italy', { parent_id: s.id, fork_seq: 0 });
    fake.state.sessions.push(other);
    fake.state.rows.set(other.id, [chunk(other.id, 1, 'user', { text: 'capital of Italy?' })]);
    fake.state.branches.set(s.id, [{ at: 0, sessions: [s.id, other.id], index: 0 }]);
    render(<App />);
    await open(/geo/);
    const versions = within(await mine()).getByRole('group', { name: 'Versions' });
    expect(versions.textContent).toContain('1 / 2');
    expect((within(versions).getByRole('button', { name: 'Previous version' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(within(versions).getByRole('button', { name: 'Next version' }));
    await waitFor(() => expect(document.querySelector('main')?.dataset.sessionId).toBe(other.id));
  });

  it('Regenerate forks at the message of the reply; Copy message copies the reply', async () => {
    const s = seed('geo');
    render(<App />);
    await open(/geo/);
    const answer = await screen.findByRole('article', { name: 'Assistant' });
    await userEvent.click(within(answer).getByRole('button', { name: 'Copy message' }));
    await waitFor(() => expect(fake.state.clipboard).toBe('Paris.'));
    await userEvent.click(within(answer).getByRole('button', { name: 'Regenerate' }));
    await waitFor(() => expect(fake.api.regenerate).toHaveBeenCalledWith(s.id, 2, false));
    expect(fake.state.sessions.find((x) => x.parent_id === s.id)?.fork_seq).toBe(1);
  });

  it('offers Retry after a provider error', async () => {
    const s = seed('geo');
    fake.state.runs.set(s.id, [failedRun(s.id)]);
    render(<App />);
    await open(/geo/);
    await userEvent.click(await screen.findByRole('button', { name: 'Retry' }));
    expect(fake.api.retry).toHaveBeenCalledWith(s.id);

  });

  it('Esc stops a running run, and no Retry shows while it runs', async () => {
    const s = seed('busy');
    fake.state.runs.set(s.id, [failedRun(s.id)]);
    fake.state.running.set(s.id, 'run2');
    render(<App />);
    await open(/busy/);
    await screen.findByRole('button', { name: 'Stop' });
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    (document.activeElement as HTMLElement | null)?.blur();
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(fake.api.cancel).toHaveBeenCalledWith(s.id));
  });

  it('Ctrl+F opens the find bar with a count; Esc closes it', async () => {
    seed('geo');
    render(<App />);
    await open(/geo/);
    await mine();
    await userEvent.keyboard('{Control>}f{/Control}');
    const find = await screen.findByRole('textbox', { name: 'Find in session' });
    await userEvent.type(find, 'a');
    await waitFor(() => expect(screen.getByRole('status', { name: 'Matches' }).textContent).toMatch(/^1 of \d+$/));
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('textbox', { name: 'Find in session' })).toBeNull();
    expect(fake.api.cancel).not.toHaveBeenCalled();
  });

  it('finds in rows not rendered: counts them, and moving to one renders it', async () => {
    const s = fake.session('long');
    fake.state.sessions.push(s);
    const rows = [chunk(s.id, 1, 'user', { text: 'the needle is here' })];
    for (let seq = 2; seq < 260; seq++) rows.push(seq % 2 ? chunk(s.id, seq, 'assistant', { text: `filler ${seq}`, reasoning: '', tool_calls: null }) : chunk(s.id, seq, 'user', { text: `more ${seq}` }));
    rows.push(chunk(s.id, 260, 'assistant', { text: 'a needle at the end', reasoning: '', tool_calls: null }));
    fake.state.rows.set(s.id, rows);
    render(<App />);
    await open(/long/);
    // A long session renders slowly under load: generous waits.
    const slow = { timeout: 10000 };
    await screen.findByText('a needle at the end', {}, slow);
    expect(screen.queryByText('the needle is here')).toBeNull(); // only the last rows are rendered
    await userEvent.keyboard('{Control>}f{/Control}');
    const find = await screen.findByRole('textbox', { name: 'Find in session' });
    await userEvent.type(find, 'needle');
    const count = () => screen.getByRole('status', { name: 'Matches' }).textContent;
    await waitFor(() => expect(count()).toBe('2 of 2'), slow); // the first match on screen, of the whole session's
    await userEvent.keyboard('{Shift>}{Enter}{/Shift}');
    await screen.findByText('the needle is here', {}, slow); // rendered to show the match
    await waitFor(() => expect(count()).toBe('1 of 2'), slow);
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(count()).toBe('2 of 2'), slow);
  }, 30000);

  it("sets the session's own budgets in the header; a bad number is refused and nothing saved", async () => {
    const s = seed('geo');
    render(<App />);
    await open(/geo/);
    await userEvent.click(await screen.findByText(/Budgets: the saved defaults/));
    const form = screen.getByRole('form', { name: 'Session budgets' });
    await userEvent.type(within(form).getByLabelText('Max turns'), '3');
    await userEvent.type(within(form).getByLabelText('Max cost (USD)'), '-1');
    await userEvent.click(within(form).getByRole('button', { name: 'Save budgets' }));
    expect(within(form).getByRole('status').textContent).toMatch(/Max cost \(USD\) must be/);
    expect(fake.api.setSessionBudgets).not.toHaveBeenCalled();
    await userEvent.clear(within(form).getByLabelText('Max cost (USD)'));
    await userEvent.click(within(form).getByRole('button', { name: 'Save budgets' }));
    await waitFor(() => expect(within(form).getByRole('status').textContent).toBe('Saved.'));
    expect(fake.state.budgets.get(s.id)).toEqual({ max_turns: 3, max_tool_calls: null, max_tokens: null, max_cost_usd: null, timeout_seconds: null });
    expect(screen.getByText(/Budgets: this session’s own/)).toBeTruthy();
  });

  it('Export → Markdown writes the transcript and says where', async () => {
    const s = seed('geo');
    render(<App />);
    await open(/geo/);
    await userEvent.click(await screen.findByRole('button', { name: 'Export as Markdown' }));
    await waitFor(() => expect(fake.api.exportMarkdown).toHaveBeenCalledWith(s.id));
    expect(await screen.findByText('Exported to /home/me/session.md')).toBeTruthy();
  });
});
