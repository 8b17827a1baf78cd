// The keyboard around a call waiting for approval: y and n from anywhere in its card, the
// shortcuts to the call and to the message box, and the skip links Tab reaches first.
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { SHORTCUTS } from './hooks/useShortcuts';
import { chunk, makeFakeApi } from './test/fakeApi';
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

/** A session with earlier rows (each with its Copy and Edit) and one call waiting. */
async function openWaiting() {
  const s = fake.session('waiting');
  fake.state.sessions.push(s);
  const call = { id: 'c1', name: 'run_shell_command', arguments: '{"command":"ls"}' };
  fake.state.rows.set(s.id, [
    chunk(s.id, 1, 'user', { text: 'first' }),
    chunk(s.id, 2, 'assistant', { text: 'an answer', reasoning: '', tool_calls: [] }),
    chunk(s.id, 3, 'user', { text: 'list the files' }),
    chunk(s.id, 4, 'assistant', { text: '', reasoning: '', tool_calls: [call] }),
  ]);
  fake.state.pending.set(s.id, [{ call_id: 'c1', name: call.name, arguments: call.arguments, read_only: false, sandboxed: false, network: false }]);
  fake.state.running.set(s.id, 'run1');
  render(<App />);
  const nav = await screen.findByRole('navigation', { name: 'Sessions' });
  await userEvent.click(await within(nav).findByRole('button', { name: /waiting/ }));
  return screen.findByRole('region', { name: 'Tool call run_shell_command' });
}

describe('keyboard and the call waiting for approval', () => {
  it('y approves while one of the card’s buttons has the focus', async () => {
    const card = await openWaiting();
    within(card).getByRole('button', { name: /Deny with reason/ }).focus();
    await userEvent.keyboard('y');
    await waitFor(() => expect(fake.api.decide).toHaveBeenCalledTimes(1));
    expect(fake.api.decide.mock.calls[0][2].approved).toBe(true);
  });

  it('n and y typed into the card’s reason field are text, not decisions', async () => {
    const card = await openWaiting();
    await userEvent.click(within(card).getByRole('button', { name: /Deny with reason/ }));
    const reason = within(card).getByRole('textbox', { name: 'Reason' });
    await userEvent.type(reason, 'no way');
    expect((reason as HTMLInputElement).value).toBe('no way');
    expect(fake.api.decide).not.toHaveBeenCalled();
  });

  it('Ctrl+J goes to the waiting call and Ctrl+L back to the message box', async () => {
    const card = await openWaiting();
    const box = screen.getByRole('textbox', { name: 'Message' });
    box.focus();
    await userEvent.keyboard('{Control>}j{/Control}');
    expect(document.activeElement).toBe(card);
    await userEvent.keyboard('y');
    await waitFor(() => expect(fake.api.decide).toHaveBeenCalledTimes(1));
    await userEvent.keyboard('{Control>}l{/Control}');
    expect(document.activeElement).toBe(box);
  });

  it('the first Tab stops are skip links past every row’s controls', async () => {
    const card = await openWaiting();
    (document.activeElement as HTMLElement | null)?.blur();
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Skip to the call waiting for approval' }));
    await userEvent.keyboard('{Enter}');
    expect(document.activeElement).toBe(card);
    (document.activeElement as HTMLElement).blur();
    await userEvent.tab();
    await userEvent.tab();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Skip to the message box' }));
    await userEvent.keyboard('{Enter}');
    expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Message' }));
  });

  it('Esc in the message box stops the running reply; an open palette closes first', async () => {
    const s = fake.session('busy');
    fake.state.sessions.push(s);
    fake.state.running.set(s.id, 'run1');
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /busy/ }));
    await screen.findByRole('button', { name: 'Stop' });
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, '/');
    await screen.findByRole('listbox', { name: 'Commands and skills' });
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('listbox', { name: 'Commands and skills' })).toBeNull();
    expect(fake.api.cancel).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(box);
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(fake.api.cancel).toHaveBeenCalledWith(s.id));
  });

  it('a new approval does not take the focus from the message box; it is announced', async () => {
    const card = await openWaiting();
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'still typ');
    act(() => fake.emitInbox({ approvals: [inboxApproval('s9', 'c9', '2026-12-07T05:00:01Z', { session_title: 'other work', arguments: { command: 'make deploy' } })], ended: [] }));
    await waitFor(() => expect(screen.getByTestId('announce-assertive').textContent).toBe('Approval needed in other work: run_shell_command — make deploy'));
    await userEvent.keyboard('ing');
    expect(document.activeElement).toBe(box);
    expect((box as HTMLTextAreaElement).value).toBe('still typing');
    expect(card.contains(document.activeElement)).toBe(false);
  });

  it('j and k move the focus between the messages and the tool cards, not while typing', async () => {
    const card = await openWaiting();
    const items = () => [...document.querySelectorAll<HTMLElement>('.conversation article.msg, .conversation .tool-card')];
    card.focus();
    await userEvent.keyboard('k');
    const before = items().indexOf(card) - 1;
    expect(document.activeElement).toBe(items()[before]);
    await userEvent.keyboard('j');
    expect(document.activeElement).toBe(card);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'jk');
    expect(document.activeElement).toBe(box);
    expect((box as HTMLTextAreaElement).value).toBe('jk');
  });

  it('the shortcuts sheet lists the two jumps', () => {
    const does = SHORTCUTS.map((s) => `${s.keys.join('+')} ${s.does}`);
    expect(does).toContain('Ctrl+J Go to the tool call waiting for approval');
    expect(does).toContain('Ctrl+L Go to the message box');
  });
});
