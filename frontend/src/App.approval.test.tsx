// Each session's approval mode on its mode line: kept in Go per session, shown again when the
// session is opened, and another session keeps following the saved default.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeFakeApi } from './test/fakeApi';

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

async function open(title: string) {
  const nav = await screen.findByRole('navigation', { name: 'Sessions' });
  await userEvent.click(await within(nav).findByRole('button', { name: new RegExp(title) }));
  return (await screen.findByRole('combobox', { name: 'Approval mode' })) as HTMLSelectElement;
}

describe('the approval mode of a session', () => {
  it('is set on the mode line in execute mode and kept per session', async () => {
    const a = fake.session('first task');
    const b = fake.session('second task');
    fake.state.sessions.push(a, b);
    render(<App />);

    let select = await open('first task');
    expect(select.value).toBe('');
    expect(within(select).getByRole('option', { name: 'Default: Ask for every call' })).toBeTruthy();
    await userEvent.selectOptions(select, 'review');
    await waitFor(() => expect(fake.api.setMode).toHaveBeenCalledWith(a.id, 'execute', 'review'));
    await waitFor(() => expect((screen.getByRole('combobox', { name: 'Approval mode' }) as HTMLSelectElement).value).toBe('review'));

    select = await open('second task');
    await waitFor(() => expect((screen.getByRole('combobox', { name: 'Approval mode' }) as HTMLSelectElement).value).toBe(''));

    select = await open('first task');
    await waitFor(() => expect((screen.getByRole('combobox', { name: 'Approval mode' }) as HTMLSelectElement).value).toBe('review'));
  });
});
