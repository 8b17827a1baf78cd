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
  it('holds a page of them, renders only those in view once many are read, reads more as the person scrolls, and counts projects from Go', async () => {
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
    await waitFor(() => expect(fake.api.listSessionsPage).toHaveBeenCalledWith(false, String(LIST_PAGE), LIST_PAGE));
    // 200 sessions read: the list renders those in view and a margin, not all of them.
    await waitFor(() => expect(within(nav).getByRole('button', { name: 'Show more sessions (800 more)' })).toBeTruthy());
    expect(items(nav)).toBeLessThan(LIST_PAGE);

    // Scrolling: the sessions in view are rendered, those far above are not, and near the
    // end the next page is read.
    const groups = nav.querySelector('.session-groups') as HTMLElement;
    Object.defineProperty(groups, 'clientHeight', { value: 600, configurable: true });
    Object.defineProperty(groups, 'scrollHeight', { value: 210 * 33, configurable: true });
    const top = nav.querySelector('button.session .session-title')!.textContent;
    groups.scrollTop = 190 * 33;
    fireEvent.scroll(groups);
    await waitFor(() => expect([...nav.querySelectorAll('button.session .session-title')].map((e) => e.textContent)).not.toContain(top));
    expect(items(nav)).toBeGreaterThan(20);
    await waitFor(() => expect(within(nav).getByRole('button', { name: 'Show more sessions (700 more)' })).toBeTruthy());
    expect(items(nav)).toBeLessThan(LIST_PAGE);
  }, 30_000);
});
