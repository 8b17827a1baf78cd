// The folder under Edit and Regenerate: when the rows a new version abandons changed files,
// the edit form and the Regenerate dialog offer "Also restore files to before this message"
// (on by default, as Go says), list the files and any conflict, and pass the box to Go.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AbandonedFiles } from './api/types';
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

const wrote: AbandonedFiles = {
  changed: [{ path: 'notes.txt', change: 'modified' }, { path: 'made.txt', change: 'created' }],
  conflicts: [],
  offer: true,
  restore: true,
};

function seed() {
  const s = fake.session('files');
  fake.state.sessions.push(s);
  fake.state.rows.set(s.id, [
    chunk(s.id, 1, 'user', { text: 'change the notes' }),
    { ...chunk(s.id, 2, 'assistant', { text: 'wrote them', reasoning: '', tool_calls: [] }), run_id: 'r1' },
  ]);
  return s;
}

async function openSession() {
  const nav = await screen.findByRole('navigation', { name: 'Sessions' });
  await userEvent.click(await within(nav).findByRole('button', { name: /files/ }));
  return screen.findByRole('article', { name: 'Assistant' });
}

describe('restore files on Edit and Regenerate', () => {
  it('Regenerate asks when the run changed files: restore is on by default, unticked it keeps them', async () => {
    const s = seed();
    fake.state.abandoned.set(`${s.id}:2`, wrote);
    render(<App />);
    const reply = await openSession();
    await userEvent.click(within(reply).getByRole('button', { name: 'Regenerate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Regenerate reply' });
    const box = within(dialog).getByRole('checkbox', { name: 'Also restore files to before this message' }) as HTMLInputElement;
    expect(box.checked).toBe(true);
    expect(dialog.textContent).toContain('Goes back: notes.txt (modified), made.txt (created)');
    expect(fake.api.regenerate).not.toHaveBeenCalled();

    await userEvent.click(box);
    expect(dialog.textContent).toContain('Kept as they are, and the model is told: notes.txt (modified)');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Regenerate' }));
    await waitFor(() => expect(fake.api.regenerate).toHaveBeenCalledWith(s.id, 2, false));
  });

  it('shows a conflict the restore would refuse, and sends the ticked box', async () => {
    const s = seed();
    fake.state.abandoned.set(`${s.id}:2`, { ...wrote, conflicts: [{ path: 'notes.txt', by: 'outside' }] });
    render(<App />);
    const reply = await openSession();
    await userEvent.click(within(reply).getByRole('button', { name: 'Regenerate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Regenerate reply' });
    expect(dialog.textContent).toContain('the restore will refuse: notes.txt (by outside)');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Regenerate' }));
    await waitFor(() => expect(fake.api.regenerate).toHaveBeenCalledWith(s.id, 2, true));
  });

  it('Cancel closes the dialog and regenerates nothing', async () => {
    const s = seed();
    fake.state.abandoned.set(`${s.id}:2`, wrote);
    render(<App />);
    const reply = await openSession();
    await userEvent.click(within(reply).getByRole('button', { name: 'Regenerate' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Regenerate reply' })).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog', { name: 'Regenerate reply' })).toBeNull();
    expect(fake.api.regenerate).not.toHaveBeenCalled();
  });

  it('the edit form offers the same box and sends it with the edit', async () => {
    const s = seed();
    fake.state.abandoned.set(`${s.id}:1`, wrote);
    render(<App />);
    await openSession();
    await userEvent.click(within(await screen.findByRole('article', { name: 'You' })).getByRole('button', { name: 'Edit message' }));
    const box = (await screen.findByRole('checkbox', { name: 'Also restore files to before this message' })) as HTMLInputElement;
    expect(box.checked).toBe(true);
    await userEvent.type(screen.getByRole('textbox', { name: 'Edit message text' }), ' again');
    await userEvent.click(screen.getByRole('button', { name: 'Send edit' }));
    await waitFor(() => expect(fake.api.editAndResend).toHaveBeenCalledWith(s.id, 1, 'change the notes again', true));
  });
});
