import { act, render, screen, within } from '@testing-library/react';
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

describe('the rows shown of a long session', () => {
  it('keep their oldest row while new rows are stored, and Show earlier adds the rest', async () => {
    const s = fake.session('long one');
    fake.state.sessions.push(s);
    fake.state.rows.set(s.id, Array.from({ length: 250 }, (_, i) => chunk(s.id, i + 1, 'user', { text: `message ${i + 1}` })));
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /long one/ }));
    expect(await screen.findByText('message 250')).toBeTruthy();
    // The last 200 rows: 51 to 250.
    expect(screen.getByText('message 51')).toBeTruthy();
    expect(screen.queryByText('message 50')).toBeNull();
    expect(screen.getByRole('button', { name: 'Show earlier messages (50 more)' })).toBeTruthy();

    // Rows stored while the session is open extend what is shown: the oldest row shown stays
    // (it is not unmounted, and the column does not move under the person reading it).
    act(() => {
      fake.store(s.id, [chunk(s.id, 251, 'user', { text: 'message 251' })]);
      fake.store(s.id, [chunk(s.id, 252, 'user', { text: 'message 252' })]);
    });
    expect(await screen.findByText('message 252')).toBeTruthy();
    expect(screen.getByText('message 51')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Show earlier messages (50 more)' })).toBeTruthy();

    await userEvent.click(screen.getByRole('button', { name: 'Show earlier messages (50 more)' }));
    expect(await screen.findByText('message 1')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Show earlier messages/ })).toBeNull();
  });
});
