// A reply the person stopped while it streamed stays in the conversation, marked as stopped.
import { render, screen, within } from '@testing-library/react';
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

describe('a stopped reply', () => {
  it('shows the text that had streamed, marked as stopped; a finished reply has no mark', async () => {
    const s = fake.session('build');
    fake.state.sessions.push(s);
    fake.state.rows.set(s.id, [
      chunk(s.id, 1, 'user', { text: 'explain the build' }),
      chunk(s.id, 2, 'assistant', { text: 'The build has three stages: fetch, compile and', reasoning: '', tool_calls: [], stopped: true }),
      chunk(s.id, 3, 'user', { text: 'go on' }),
      chunk(s.id, 4, 'assistant', { text: 'Link, at the end.', reasoning: '', tool_calls: [] }),
    ]);
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /build/ }));
    const conv = await screen.findByRole('region', { name: 'Conversation' });
    const replies = await within(conv).findAllByRole('article', { name: 'Assistant' });
    expect(replies).toHaveLength(2);
    expect(replies[0].textContent).toContain('The build has three stages: fetch, compile and');
    expect(within(replies[0]).getByRole('note', { name: 'Reply stopped' }).textContent).toMatch(/you stopped the run/);
    expect(within(replies[1]).queryByRole('note', { name: 'Reply stopped' })).toBeNull();
  });
});
