import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { HooksBanner } from './HooksBanner';
import { HooksSettings } from './HooksSettings';

const guard = { event: 'PreToolUse', matcher: 'Bash', command: './guard.sh', source: 'project' as const, file: '/w/.claude/settings.json', timeout_seconds: 60, ignore_failure: false, trusted: false };

beforeEach(() => {
  fake = makeFakeApi();
  fake.state.hooks = {
    workspace: '/w',
    hooks: [guard, { ...guard, command: 'notify-send done', event: 'Stop', matcher: '', source: 'personal', trusted: true }],
    sha256: 'a'.repeat(64),
    trusted: false,
    changed: true,
    diff: '  // .claude/settings.json\n+ "command": "./guard.sh"\n',
    errors: [],
    recent: [
      { session_id: 's1', seq: 3, at: '2026-12-01T10:00:00Z', hook: { event: 'PreToolUse', command: './guard.sh', source: 'project', exit_code: 2, duration_ms: 12, decision: 'deny', reason: 'no rm -rf', stderr: 'no rm -rf\n', tool: 'run_shell_command' } },
    ],
  };
});

describe('Settings → Hooks', () => {
  it('asks to trust the folder’s hooks, shows what changed, and trusts the hash it showed', async () => {
    render(<HooksSettings sessionID="s1" />);
    const prompt = await screen.findByRole('region', { name: 'This folder has hooks' });
    expect(within(prompt).getByText('./guard.sh')).toBeTruthy();
    expect(within(prompt).getByLabelText('What changed').textContent).toContain('+ "command": "./guard.sh"');
    expect(screen.getByRole('table', { name: 'Recent hook runs' }).textContent).toContain('no rm -rf');
    await userEvent.click(within(prompt).getByRole('button', { name: 'Trust' }));
    expect(fake.api.trustHooks).toHaveBeenCalledWith('s1', 'a'.repeat(64));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'This folder has hooks' })).toBeNull());
    expect(screen.getByText('Project hooks (trusted)')).toBeTruthy();
  });

  it('says so when the hooks changed between showing and trusting', async () => {
    render(<HooksSettings sessionID="s1" />);
    const prompt = await screen.findByRole('region', { name: 'This folder has hooks' });
    fake.state.hooks = { ...fake.state.hooks, sha256: 'b'.repeat(64) };
    await userEvent.click(within(prompt).getByRole('button', { name: 'Trust' }));
    expect((await screen.findAllByRole('alert'))[0].textContent).toContain('review them again');
  });
});

describe('Import from Claude Code', () => {
  it('says how many hooks it brought in', async () => {
    fake.api.importClaudeCodeHooks.mockResolvedValueOnce({ added: 2, view: fake.state.hooks });
    render(<HooksSettings sessionID="s1" />);
    await userEvent.click(await screen.findByRole('button', { name: 'Import from Claude Code' }));
    expect((await screen.findByRole('status')).textContent).toBe('Imported 2 hooks from Claude Code.');
    expect(fake.api.importClaudeCodeHooks).toHaveBeenCalledWith('s1');
  });
});


describe('the banner above the conversation', () => {
  it('asks about untrusted hooks, trusts the hash shown, and Not now hides it', async () => {
    const { unmount } = render(<HooksBanner sessionID="s1" refreshKey="0" />);
    const prompt = await screen.findByRole('region', { name: 'This folder has hooks' });
    await userEvent.click(within(prompt).getByRole('button', { name: 'Trust' }));
    expect(fake.api.trustHooks).toHaveBeenCalledWith('s1', 'a'.repeat(64));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'This folder has hooks' })).toBeNull());
    unmount();

    fake.state.hooks = { ...fake.state.hooks, trusted: false, sha256: 'c'.repeat(64) };
    render(<HooksBanner sessionID="s1" refreshKey="1" />);
    const again = await screen.findByRole('region', { name: 'This folder has hooks' });
    await userEvent.click(within(again).getByRole('button', { name: 'Not now' }));
    expect(screen.queryByRole('region', { name: 'This folder has hooks' })).toBeNull();
  });
});
