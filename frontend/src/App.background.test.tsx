// Runs that outlive the window (docs/ui.md, "Runs in the background"): the close question and
// "Run in a new session" from the message box.
import { act, render, screen, waitFor, within } from '@testing-library/react';
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

const openSession = async (title: string) => {
  const s = fake.session(title, { workspace: '/home/me/src/project', model: 'big-model', provider: 'work' });
  fake.state.sessions.push(s);
  render(<App />);
  await userEvent.click(await screen.findByRole('button', { name: new RegExp(title) }));
  await waitFor(() => expect(document.querySelector('main')?.getAttribute('data-session-id')).toBe(s.id));
  return s;
};

describe('closing the window while runs go', () => {
  it('asks, keeps the focus inside, and Esc cancels without stopping anything', async () => {
    render(<App />);
    await screen.findByRole('navigation', { name: 'Sessions' });
    act(() => fake.emitCloseRequested({ runs: 2 }));
    const dialog = await screen.findByRole('dialog', { name: '2 runs are going' });
    const keep = within(dialog).getByRole('button', { name: 'Keep them running' });
    expect(document.activeElement).toBe(keep);
    await userEvent.tab();
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await userEvent.tab(); // from the last control back to the first: the focus never leaves
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Stop them' }));
    await userEvent.tab({ shift: true });
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: /runs are going/ })).toBeNull());
    expect(fake.api.stopAndQuit).not.toHaveBeenCalled();
    expect(fake.api.keepRunning).not.toHaveBeenCalled();
  });

  it('Keep them running hides the window; Stop them stops and quits', async () => {
    render(<App />);
    await screen.findByRole('navigation', { name: 'Sessions' });
    act(() => fake.emitCloseRequested({ runs: 1 }));
    await userEvent.click(await screen.findByRole('button', { name: 'Keep it running' }));
    expect(fake.api.keepRunning).toHaveBeenCalledOnce();
    expect(screen.queryByRole('dialog', { name: '1 run is going' })).toBeNull();

    // Answered in another page of the window (the dev server's browser): put away here too.
    act(() => fake.emitCloseRequested({ runs: 2 }));
    await screen.findByRole('dialog', { name: '2 runs are going' });
    act(() => fake.emitCloseRequested({ runs: 0 }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: /runs are going/ })).toBeNull());

    act(() => fake.emitCloseRequested({ runs: 3 }));
    await userEvent.click(await screen.findByRole('button', { name: 'Stop them' }));
    expect(fake.api.stopAndQuit).toHaveBeenCalledOnce();
    expect(fake.api.keepRunning).toHaveBeenCalledOnce();
  });

  it('Ctrl+Q quits without a question', async () => {
    render(<App />);
    await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.keyboard('{Control>}q{/Control}');
    expect(fake.api.quit).toHaveBeenCalledOnce();
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('Run in a new session', () => {
  it('Ctrl+Shift+Enter starts the message in a new session and the person stays', async () => {
    const s = await openSession('the open one');
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'write the changelog');
    await userEvent.keyboard('{Control>}{Shift>}{Enter}{/Shift}{/Control}');
    await waitFor(() => expect(fake.api.runInNewSession).toHaveBeenCalledWith(s.id, 'write the changelog'));
    expect(fake.api.sendMessage).not.toHaveBeenCalled();
    expect(box).toHaveProperty('value', '');
    // Still here; the new one is in the list, running.
    expect(document.querySelector('main')?.getAttribute('data-session-id')).toBe(s.id);
    const list = screen.getByRole('navigation', { name: 'Sessions' });
    const item = await within(list).findByRole('button', { name: /write the changelog/ });
    expect(within(item.closest('li') ?? item).getByLabelText('running')).toBeTruthy();
    expect(screen.getAllByRole('status').some((el) => el.textContent?.includes('Started in a new session: write the changelog'))).toBe(true);
  });

  it('is offered in the send menu, and only with a message to send', async () => {
    const s = await openSession('menu one');
    await userEvent.click(screen.getByRole('button', { name: 'More ways to send' }));
    const item = screen.getByRole('menuitem', { name: /Run in a new session/ });
    expect(item.getAttribute('aria-disabled')).toBe('true');
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'try the other approach');
    await userEvent.click(screen.getByRole('button', { name: 'More ways to send' }));
    await userEvent.click(screen.getByRole('menuitem', { name: /Run in a new session/ }));
    await waitFor(() => expect(fake.api.runInNewSession).toHaveBeenCalledWith(s.id, 'try the other approach'));
    expect(document.querySelector('main')?.getAttribute('data-session-id')).toBe(s.id);
  });

  it('keeps the text and says why when Go refuses', async () => {
    await openSession('refused one');
    fake.api.runInNewSession.mockRejectedValueOnce({ code: 'invalid', message: 'the folder is gone' });
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'keep me');
    await userEvent.keyboard('{Control>}{Shift>}{Enter}{/Shift}{/Control}');
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', expect.stringContaining('the folder is gone'));
    expect(box).toHaveProperty('value', 'keep me');
  });
});
