import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { App } from '../App';
import { LIST_PAGE } from '../hooks/useSessions';

beforeEach(() => {
  fake = makeFakeApi();
});

const items = (nav: HTMLElement) => nav.querySelectorAll('button.session').length;

describe('the session list with many sessions', () => {
  it('holds a page of them, reads more as the person scrolls, and counts projects from Go', async () => {
    for (let i = 0; i < 1000; i++) fake.state.sessions.push(fake.session(`session ${i}`, i % 10 === 0 ? { project: 'Big project' } : {}));
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await within(nav).findByRole('button', { name: /^session 0\b/ });
    expect(items(nav)).toBe(LIST_PAGE);
    expect(fake.api.listSessionsPage).toHaveBeenCalledWith(false, '', LIST_PAGE);
    expect(fake.api.listSessions).not.toHaveBeenCalled();
    // The project's size is Go's count, not the ten of it read so far.
    const project = within(nav).getByRole('region', { name: 'Project Big project' });
    expect(within(project).getByTitle('100 sessions in Big project').textContent).toBe('100');

    within(nav).getByRole('button', { name: 'Show more sessions (900 more)' }).click();
    await waitFor(() => expect(items(nav)).toBe(2 * LIST_PAGE));

    // Scrolling near the end reads the next page.
    const groups = nav.querySelector('.session-groups') as HTMLElement;
    Object.defineProperty(groups, 'scrollHeight', { value: 5000, configurable: true });
    Object.defineProperty(groups, 'clientHeight', { value: 600, configurable: true });
    groups.scrollTop = 4200;
    fireEvent.scroll(groups);
    await waitFor(() => expect(items(nav)).toBe(3 * LIST_PAGE));
    expect(within(nav).getByRole('button', { name: 'Show more sessions (700 more)' })).toBeTruthy();
  });
});
