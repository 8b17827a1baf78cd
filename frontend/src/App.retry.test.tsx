// What the window says while the provider retries, and about a model call that failed for good.
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

describe('a model call that fails', () => {
  it('shows each retry with its cause, then the answer streaming', async () => {
    const s = fake.session('flaky endpoint');
    fake.state.sessions.push(s);
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /flaky endpoint/ }));
    await screen.findByRole('heading', { name: 'flaky endpoint' });
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}');
    await waitFor(() => expect(fake.api.sendMessage).toHaveBeenCalled());
    act(() => fake.emit({ type: 'run_started', session_id: s.id }));
    const status = screen.getByRole('status', { name: 'Run status' });
    expect(status.textContent).toContain('Waiting for the model…');

    act(() => fake.emit({ type: 'model_retrying', session_id: s.id, attempt: 2, of: 3, wait_ms: 2000, cause: 'HTTP 500', error: '500 internal server error' }));
    expect(status.textContent).toContain('Retrying (2 of 3) after HTTP 500');
    expect(status.textContent).not.toContain('Waiting for the model');

    act(() => fake.emit({ type: 'text_delta', session_id: s.id, text: 'Hi' }));
    await waitFor(() => expect(status.textContent).toContain('The model is answering…'));
  });

  it('says in words what happened to a call that left no answer', async () => {
    const s = fake.session('failed call');
    fake.state.sessions.push(s);
    fake.state.rows.set(s.id, [
      chunk(s.id, 1, 'user', { text: 'hello' }),
      chunk(s.id, 2, 'usage', {
        usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0, unreported: true },
        reason: 'The model call failed: the provider answered with an error or the connection broke, and no reply arrived',
      }),
    ]);
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /failed call/ }));
    const row = await screen.findByLabelText('Model call without an answer');
    expect(row.textContent).toBe(
      'The model call failed: the provider answered with an error or the connection broke, and no reply arrived. The provider did not report the tokens it used.',
    );
    expect(row.textContent).not.toMatch(/provider_error|usage unreported/);
  });
});
