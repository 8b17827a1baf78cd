// The desktop behaviour of the page: a folder from the command line, notification clicks,
// the remembered window, keyboard shortcuts and their sheet (docs/ui.md, "Desktop").
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
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


describe('desktop behaviour', () => {
  it('opens a new session in the folder the window was launched with, and in one a later launch names', async () => {
    fake.state.launchFolder = '/home/me/src/project';
    render(<App />);
    await waitFor(() => expect(fake.api.newSession).toHaveBeenCalledWith('/home/me/src/project'));
    await waitFor(() => expect(document.querySelector('main[data-session-id]')?.getAttribute('data-session-id')).toBe('s1'));

    act(() => fake.emitOpenFolder({ path: '/home/me/other' }));
    await waitFor(() => expect(fake.api.newSession).toHaveBeenLastCalledWith('/home/me/other'));
    await waitFor(() => expect(document.querySelector('main')?.getAttribute('data-session-id')).toBe('s2'));
    expect(fake.api.newSession).toHaveBeenCalledTimes(2);
  });

  it('tells Go when the window loses and regains the focus', async () => {
    render(<App />);
    await waitFor(() => expect(fake.api.setFocused).toHaveBeenCalled());
    const hasFocus = vi.spyOn(document, 'hasFocus').mockReturnValue(false);
    act(() => void window.dispatchEvent(new Event('blur')));
    hasFocus.mockReturnValue(true);
    act(() => void window.dispatchEvent(new Event('focus')));
    expect(fake.state.focused.slice(-2)).toEqual([false, true]);
    hasFocus.mockRestore();
  });

  it('a click on an approval notification opens its session with the keyboard on the waiting card', async () => {
    const a = fake.session('elsewhere');
    const s = fake.session('waiting one');
    fake.state.sessions.push(a, s);
    fake.state.rows.set(s.id, [
      chunk(s.id, 1, 'user', { text: 'go' }),
      chunk(s.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'c7', name: 'run_shell_command', arguments: '{"command":"make test"}' }] }),
    ]);
    fake.state.pending.set(s.id, [{ call_id: 'c7', name: 'run_shell_command', arguments: '{"command":"make test"}', read_only: false, sandboxed: false, network: false }]);
    render(<App />);
    await screen.findByRole('navigation', { name: 'Sessions' });
    act(() => fake.emitFocusCard({ session_id: s.id, run_id: 'run1', call_id: 'c7' }));
    await waitFor(() => expect(document.querySelector('main')?.getAttribute('data-session-id')).toBe(s.id));
    await screen.findAllByRole('region', { name: 'Tool call run_shell_command' });
    await waitFor(() => expect(document.activeElement?.getAttribute('data-call-id')).toBe('c7'));
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Tool call run_shell_command');
    // y approves the focused card.
    await userEvent.keyboard('y');
    await waitFor(() => expect(fake.api.decide).toHaveBeenCalledWith(s.id, 'c7', expect.objectContaining({ approved: true })));
  });

  it('reopens the last session with the panel width and zoom it had, and saves changes', async () => {
    const s = fake.session('yesterday’s work');
    fake.state.sessions.push(fake.session('other'), s);
    fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: 'where we left off' })]);
    fake.state.ui = { panel_width: 520, last_session: s.id, zoom: 1.25 };
    // Wide enough that 125 % still leaves the page 1100 px or more: the side panel stays unfolded.
    (window as unknown as { happyDOM: { setViewport: (v: { width: number; height: number }) => void } }).happyDOM.setViewport({ width: 1600, height: 900 });
    const { container } = render(<App />);
    expect(await screen.findByText('where we left off')).toBeTruthy();
    const app = container.querySelector<HTMLElement>('.app')!;
    expect(app.style.getPropertyValue('--side-width')).toBe('520px');
    expect(document.documentElement.style.getPropertyValue('zoom')).toBe('1.25');

    const handle = screen.getByRole('separator', { name: 'Resize side panel' });
    handle.focus();
    await userEvent.keyboard('{ArrowLeft}{ArrowLeft}');
    expect(app.style.getPropertyValue('--side-width')).toBe('560px');
    // Saved once, after the last key.
    await waitFor(() => expect(fake.state.ui).toEqual({ panel_width: 560, last_session: s.id, zoom: 1.25 }), { timeout: 2000 });

    // The window's own geometry is Go's to read; the page says when it changed.
    act(() => void window.dispatchEvent(new Event('resize')));
    act(() => void window.dispatchEvent(new Event('resize')));
    await waitFor(() => expect(fake.api.saveGeometry).toHaveBeenCalledTimes(1), { timeout: 2000 });
  });

  it('does not reopen a session that is gone', async () => {
    fake.state.sessions.push(fake.session('still here'));
    fake.state.ui = { panel_width: 0, last_session: 'deleted-one', zoom: 1 };
    render(<App />);
    await screen.findByText('still here');
    await waitFor(() => expect(fake.api.uiState).toHaveBeenCalled());
    expect(fake.api.openSession).not.toHaveBeenCalled();
  });

  it('keyboard: Ctrl+N, Ctrl+K, Ctrl+, and zoom; ? opens the sheet but not while typing', async () => {
    render(<App />);
    const box = await screen.findByRole('textbox', { name: 'Message' });

    await userEvent.keyboard('{Control>}n{/Control}');
    await waitFor(() => expect(fake.api.newSession).toHaveBeenCalledTimes(1));

    await userEvent.keyboard('{Control>}k{/Control}');
    expect(document.activeElement).toBe(screen.getByRole('searchbox', { name: 'Search sessions' }));

    await userEvent.keyboard('{Control>}={/Control}{Control>}={/Control}');
    expect(document.documentElement.style.getPropertyValue('zoom')).toBe('1.25');
    await userEvent.keyboard('{Control>}-{/Control}');
    expect(document.documentElement.style.getPropertyValue('zoom')).toBe('1.1');
    await waitFor(() => expect(fake.state.ui.zoom).toBe(1.1), { timeout: 2000 });
    await userEvent.keyboard('{Control>}0{/Control}');
    expect(document.documentElement.style.getPropertyValue('zoom')).toBe('1');

    // Typing a question mark in the message box types it.
    await userEvent.click(box);
    await userEvent.keyboard('why?');
    expect(box).toHaveProperty('value', 'why?');
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).toBeNull();

    // Elsewhere it opens the sheet, which lists the shortcuts; Escape closes it.
    (document.activeElement as HTMLElement).blur();
    fireEvent.keyDown(document.body, { key: '?' });
    const sheet = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const does of ['New session', 'Search sessions', 'Settings', 'Zoom in', 'Zoom out']) {
      expect(within(sheet).getByText(does)).toBeTruthy();
    }
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog', { name: 'Keyboard shortcuts' })).toBeNull();

    await userEvent.keyboard('{Control>},{/Control}');
    expect(await screen.findByRole('region', { name: 'Settings' })).toBeTruthy();
  });

  it('turns notifications off in Settings, saved with the other settings', async () => {
    render(<App />);
    await userEvent.keyboard('{Control>},{/Control}');
    const box = await screen.findByRole('checkbox', { name: /Desktop notifications/ });
    expect(box).toHaveProperty('checked', true);
    await userEvent.click(box);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(fake.api.saveSettings).toHaveBeenCalledWith(expect.objectContaining({ notifications: false })));
  });
});

describe('the approval report from the palette', () => {
  it('"/approvals" opens the report of every session instead of sending a message', async () => {
    const s = fake.session('one');
    fake.state.sessions.push(s);
    render(<App />);
    await userEvent.click(await screen.findByRole('button', { name: /one/ }));
    const box = await screen.findByRole('textbox', { name: 'Message' });
    await userEvent.type(box, '/appr');
    await screen.findByRole('option', { name: /approvals.*view.*approval report/ });
    await userEvent.keyboard('{Enter}');
    expect(box).toHaveProperty('value', '/approvals ');
    await userEvent.keyboard('{Enter}');
    await screen.findByRole('dialog', { name: 'Approvals in every session' });
    expect(box).toHaveProperty('value', '');
    expect(fake.api.approvalReport).toHaveBeenCalledWith('', '7d');
    expect(fake.api.sendMessage).not.toHaveBeenCalled();
    expect(fake.api.sendCommand).not.toHaveBeenCalled();
  });
});
