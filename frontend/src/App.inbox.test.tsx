// The inbox in the window: the Inbox button with its count, Ctrl+I, a notification's click on
// a waiting call, opening a session from a card; the board's filters over the session list.
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeFakeApi } from './test/fakeApi';
import { inboxApproval } from './test/inbox';

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

describe('the inbox in the window', () => {
  it('counts on its button and the title, opens with Ctrl+I and a click, and opens a session from a card', async () => {
    const a = fake.session('first');
    const b = fake.session('second');
    fake.state.sessions.push(a, b);
    fake.state.inbox = { approvals: [inboxApproval(b.id, 'c2', '2026-12-07T05:00:02Z', { session_title: 'second' }), inboxApproval(a.id, 'c1', '2026-12-07T05:00:01Z', { session_title: 'first' })], ended: [] };
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    const button = await within(nav).findByRole('button', { name: 'Inbox: 2 waiting' });
    expect(fake.state.title).toBe('Loopdesk (2 waiting)');

    await userEvent.keyboard('{Control>}i{/Control}');
    const inbox = await screen.findByRole('main', { name: 'Inbox' });
    const cards = within(inbox).getAllByRole('article');
    expect(cards.map((c) => c.getAttribute('aria-label'))).toEqual(['run_shell_command waiting in first', 'run_shell_command waiting in second']);
    // Opening it puts the keyboard on the oldest card.
    await waitFor(() => expect(document.activeElement).toBe(cards[0]));
    await userEvent.keyboard('{Control>}i{/Control}');
    await waitFor(() => expect(screen.queryByRole('main', { name: 'Inbox' })).toBeNull());

    await userEvent.click(button);
    await userEvent.click(within(screen.getAllByRole('article')[1]).getByRole('button', { name: 'Open session' }));
    await waitFor(() => expect(document.querySelector('main[data-session-id]')?.getAttribute('data-session-id')).toBe(b.id));
    expect(screen.queryByRole('main', { name: 'Inbox' })).toBeNull();
  });

  it('a click on an approval notification opens the inbox on its card', async () => {
    const a = fake.session('first');
    const b = fake.session('second');
    fake.state.sessions.push(a, b);
    fake.state.inbox = { approvals: [inboxApproval(a.id, 'c1', '2026-12-07T05:00:01Z'), inboxApproval(b.id, 'c9', '2026-12-07T05:00:02Z')], ended: [] };
    render(<App />);
    await within(await screen.findByRole('navigation', { name: 'Sessions' })).findByRole('button', { name: 'Inbox: 2 waiting' });
    act(() => fake.emitFocusCard({ session_id: b.id, run_id: 'run1', call_id: 'c9' }));
    await screen.findByRole('main', { name: 'Inbox' });
    await waitFor(() => expect(document.activeElement?.getAttribute('data-key')).toBe(`${b.id}:c9`));
    expect(document.querySelector('main[data-session-id]')).toBeNull();
  });

  it('filters the session list by the board state Go sends', async () => {
    const a = fake.session('asks');
    const b = fake.session('runs');
    const c = fake.session('finished');
    fake.state.sessions.push(a, b, c);
    const act_ = (id: string, state: 'needs_you' | 'working' | 'done', step = '') => ({ session_id: id, state, step, waiting: state === 'needs_you' ? 1 : 0, run_id: 'r', cost_usd: 0.5, status: '', started_at: new Date().toISOString(), version: 1 });
    fake.state.activity = [act_(a.id, 'needs_you', 'Waiting for approval'), act_(b.id, 'working', 'Running npm test'), act_(c.id, 'done')];
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    const filters = within(nav).getByRole('radiogroup', { name: 'Show sessions' });
    await within(filters).findByRole('radio', { name: 'Needs you 1' });
    expect(within(nav).getByRole('button', { name: /runs/ }).textContent).toContain('Running npm test');
    expect(within(nav).getByRole('button', { name: /runs/ }).textContent).toContain('$0.50');
    await userEvent.click(within(filters).getByRole('radio', { name: 'Working 1' }));
    await waitFor(() => expect(within(nav).queryByRole('button', { name: /asks/ })).toBeNull());
    expect(within(nav).getByRole('button', { name: /runs/ })).toBeTruthy();
    await userEvent.click(within(filters).getByRole('radio', { name: 'Done 1' }));
    await within(nav).findByRole('button', { name: /finished/ });
    expect(within(nav).queryByRole('button', { name: /runs/ })).toBeNull();
  });
});
