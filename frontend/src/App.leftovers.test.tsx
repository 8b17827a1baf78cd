// Small things that outlived their moment: the find bar's query across sessions, the outline
// of a row asked for, and a run's stop after the page opens again.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Run } from './api/types';
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

function seed(title: string) {
  const s = fake.session(title);
  fake.state.sessions.push(s);
  fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: `question of ${title}` }), chunk(s.id, 2, 'assistant', { text: 'an answer', reasoning: '', tool_calls: [] })]);
  return s;
}

async function openSession(title: RegExp) {
  const nav = await screen.findByRole('navigation', { name: 'Sessions' });
  await userEvent.click(await within(nav).findByRole('button', { name: title }));
}

describe('leftovers', () => {
  it('the find bar starts empty in the session switched to', async () => {
    seed('alpha');
    seed('beta');
    render(<App />);
    await openSession(/alpha/);
    await screen.findByText('question of alpha');
    await userEvent.keyboard('{Control>}f{/Control}');
    const find = await screen.findByLabelText('Find in session');
    await userEvent.type(find, 'answer');
    await openSession(/beta/);
    await screen.findByText('question of beta');
    expect((screen.getByLabelText('Find in session') as HTMLInputElement).value).toBe('');
  });

  it('the outline of a row asked for goes after a moment', async () => {
    const s = seed('hits');
    fake.state.hits = [{ session_id: s.id, seq: 1, kind: 'user', snippet: 'question of hits', title: 'hits' } as never];
    render(<App />);
    await userEvent.type(await screen.findByRole('searchbox', { name: 'Search sessions' }).catch(() => screen.getByLabelText('Search sessions')), 'question');
    await userEvent.click(await screen.findByText(/question of hits/, { selector: 'mark, button *, button' }).catch(() => screen.getAllByText(/question/)[0]));
    const row = await waitFor(() => {
      const el = document.querySelector('.conversation [data-seq="1"]');
      expect(el?.className).toMatch(/focused|hit-target/);
      return el!;
    });
    await waitFor(() => expect(document.querySelector('.conversation [data-seq="1"]')?.className).not.toMatch(/focused|hit-target/), { timeout: 5000 });
    expect(row).toBeTruthy();
  });

  it('a run stopped at its time limit still says so when the session opens again', async () => {
    const s = seed('slow');
    const run: Run = {
      run_id: 'run1', session_id: s.id, model: 'm', provider: 'default', system_prompt_hash: '', budgets: null, status: 'timeout',
      output: '', started_at: '', ended_at: '', error: 'the run took longer than 30m0s', mode: 'execute', instructions: null,
      turns: 1, tool_calls: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0,
    };
    fake.state.runs.set(s.id, [run]);
    render(<App />);
    await openSession(/slow/);
    const conv = await screen.findByRole('region', { name: 'Conversation' });
    expect(await within(conv).findByText('Stopped: the time limit was reached.')).toBeTruthy();
  });
});
