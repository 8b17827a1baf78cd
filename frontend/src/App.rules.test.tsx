// Rules read as rules: on the call a rule decided, and in Settings with the session named.
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
import { SettingsPanel } from './components/SettingsPanel';

beforeEach(() => {
  fake = makeFakeApi();
});

describe('rules', () => {
  it('a call a rule decided shows the rule, not its id', async () => {
    const s = fake.session('notes');
    fake.state.sessions.push(s);
    const call = { id: 'w2', name: 'write_file', arguments: '{"path":"notes.md","content":"a"}' };
    fake.state.rows.set(s.id, [
      chunk(s.id, 1, 'user', { text: 'again' }),
      chunk(s.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: [call] }),
      chunk(s.id, 3, 'approval', { call_id: 'w2', tool: 'write_file', decision: 'approved', by: 'rule:582d98a1c0ffee', reason: 'allow write_file *.md in this session' }),
      chunk(s.id, 4, 'tool_result', { call_id: 'w2', name: 'write_file', content: 'wrote notes.md', is_error: false }),
    ]);
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /notes/ }));
    const card = await screen.findByRole('region', { name: 'Tool call write_file' });
    const note = await within(card).findByText(/Approved by/);
    expect(note.textContent).toBe('Approved by the rule: allow write_file *.md in this session');
    expect(card.textContent).not.toContain('582d98a');
  });

  it('an "Always" answer shows the rule it saved as a rule, not as the person\'s words', async () => {
    const s = fake.session('always');
    fake.state.sessions.push(s);
    const write = { id: 'w1', name: 'write_file', arguments: '{"path":"notes.md","content":"a"}' };
    const shell = { id: 's1', name: 'run_shell_command', arguments: '{"command":"rm -rf build"}' };
    fake.state.rows.set(s.id, [
      chunk(s.id, 1, 'user', { text: 'write and clean' }),
      chunk(s.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: [write, shell] }),
      chunk(s.id, 3, 'approval', { call_id: 'w1', tool: 'write_file', decision: 'approved', by: 'person', reason: '', rule: 'allow write_file *.md in this session' }),
      chunk(s.id, 4, 'approval', {
        call_id: 's1', tool: 'run_shell_command', decision: 'denied', by: 'person', reason: 'never delete builds',
        rule: 'deny run_shell_command rm * in this folder',
      }),
      chunk(s.id, 5, 'tool_result', { call_id: 'w1', name: 'write_file', content: 'wrote notes.md', is_error: false }),
      chunk(s.id, 6, 'tool_result', { call_id: 's1', name: 'run_shell_command', content: 'denied: never delete builds', is_error: true }),
    ]);
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: 'Sessions' });
    await userEvent.click(await within(nav).findByRole('button', { name: /always/ }));
    const allowed = await within(await screen.findByRole('region', { name: 'Tool call write_file' })).findByText(/Approved by/);
    expect(allowed.textContent).toBe('Approved by you, and allowed from now on: allow write_file *.md in this session');
    const denied = await within(await screen.findByRole('region', { name: 'Tool call run_shell_command' })).findByText(/Denied by/);
    expect(denied.textContent).toBe('Denied by you: “never delete builds”, and denied from now on: deny run_shell_command rm * in this folder');
  });

  it('Settings names the session a rule applies to', async () => {
    const s = fake.session('Write the notes');
    fake.state.sessions.push(s);
    fake.state.rules = [{ id: 'r1', tool: 'write_file', pattern: '*.md', effect: 'allow', scope: 'session', scope_id: s.id, created_at: '' }];
    render(<SettingsPanel settings={fake.state.settings} onSaved={() => {}} />);
    const table = screen.getByRole('table', { name: 'Saved rules' });
    const row = (await within(table).findByText('*.md')).closest('tr')!;
    expect(within(row).getByText('session “Write the notes”')).toBeTruthy();
    expect(row.title).toBe('allow write_file *.md in this session');
  });
});
