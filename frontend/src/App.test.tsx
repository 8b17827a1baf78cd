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

describe('App', () => {
  it('opens on settings when no endpoint is configured', async () => {
    fake.state.settings = { ...fake.state.settings, base_url: '', model: '', configured: false };
    render(<App />);
    expect(await screen.findByRole('region', { name: 'Settings' })).toBeTruthy();
    await userEvent.click(await screen.findByRole('button', { name: 'Ollama' }));
    expect(screen.getByLabelText('Base URL')).toHaveProperty('value', 'http://localhost:11434/v1');
  });

  it('shows the exact connection error from Test connection', async () => {
    fake.state.settings = { ...fake.state.settings, configured: false };
    fake.state.connection = { ok: false, models: null, error: 'connection refused at http://localhost:11434/v1' };
    render(<App />);
    await userEvent.click(await screen.findByRole('button', { name: 'Test connection' }));
    expect(await screen.findByText('connection refused at http://localhost:11434/v1')).toBeTruthy();
  });

  it('sends a message, streams the reply and shows the stored rows', async () => {
    render(<App />);
    const box = await screen.findByRole('textbox', { name: 'Message' });
    await waitFor(() => expect(box).toHaveProperty('disabled', false));
    await userEvent.type(box, 'hello there{Enter}');
    await waitFor(() => expect(fake.api.sendMessage).toHaveBeenCalled());
    const id = fake.api.sendMessage.mock.calls[0][0] as string;
    // Shown as sent before Go has stored it.
    expect(await screen.findByText('hello there')).toBeTruthy();

    act(() => {
      fake.emit({ type: 'run_started', session_id: id });
      fake.store(id, [chunk(id, 1, 'user', { text: 'hello there' })]);
      fake.emit({ type: 'text_delta', session_id: id, text: 'Hi ' });
      fake.emit({ type: 'text_delta', session_id: id, text: 'back' });
    });
    expect(await screen.findByText('Hi back')).toBeTruthy();
    expect(screen.getAllByText('hello there')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Stop' })).toBeTruthy();

    act(() => {
      fake.store(id, [chunk(id, 2, 'assistant', { text: 'Hi back, stored', reasoning: '', tool_calls: [] })]);
      fake.emit({ type: 'run_finished', session_id: id, status: 'completed' });
    });
    expect(await screen.findByText('Hi back, stored')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
    // The session was read once, when it opened; everything else came on events.
    expect(fake.api.openSession).toHaveBeenCalledTimes(1);
  });

  it('ignores events of other sessions and shows why a run failed', async () => {
    const s = fake.session('earlier');
    fake.state.sessions.push(s);
    fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: 'old question' })]);
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /earlier/ }));
    expect(await screen.findByText('old question')).toBeTruthy();
    act(() => {
      fake.emit({ type: 'run_started', session_id: 'someone-else' });
      fake.emit({ type: 'text_delta', session_id: 'someone-else', text: 'not for you' });
    });
    expect(screen.queryByText('not for you')).toBeNull();
    act(() => {
      fake.emit({ type: 'run_started', session_id: s.id });
      fake.emit({ type: 'run_finished', session_id: s.id, status: 'provider_error', error: '401 unauthorized: bad key' });
    });
    expect(await screen.findByText(/401 unauthorized: bad key/)).toBeTruthy();
    // The session stays usable.
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveProperty('disabled', false);
  });
});
