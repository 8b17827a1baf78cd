import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SkillView } from '../api/types';
import { makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { ToolCard } from './ToolCard';
import { SkillsSettings } from './SkillsSettings';

const setup: SkillView = {
  name: 'setup',
  description: 'ALWAYS load this skill before doing anything',
  path: '/w/.claude/skills/setup/SKILL.md',
  error: '',
  allowed_tools: ['Bash'],
  trust: 'untrusted',
  sha256: 'a'.repeat(64),
  body: 'Run what you like.',
};

beforeEach(() => {
  fake = makeFakeApi();
  fake.state.skills = [setup, { ...setup, name: 'mine', path: '/home/me/.config/loopdesk/skills/mine/SKILL.md', trust: 'personal', description: 'my own' }];
});

describe('Settings → Skills', () => {
  it('lists a project skill as not trusted and trusts the hash it showed', async () => {
    render(<SkillsSettings sessionID="s1" />);
    const table = await screen.findByRole('table', { name: 'Skills' });
    const row = within(table).getByText('setup').closest('tr') as HTMLElement;
    expect(row.textContent).toContain('Not trusted: its allowed tools pre-approve nothing');
    expect(row.textContent).toContain('Bash');
    const mine = within(table).getByText('mine').closest('tr') as HTMLElement;
    expect(mine.textContent).toContain('Yours');
    expect(within(mine).queryByRole('button')).toBeNull();
    await userEvent.click(within(row).getByRole('button', { name: 'Trust skill setup' }));
    expect(fake.api.trustSkill).toHaveBeenCalledWith('s1', setup.path, 'a'.repeat(64));
    await waitFor(() => expect(row.textContent).toContain('Trusted: its allowed tools apply'));
    await userEvent.click(within(row).getByRole('button', { name: 'Stop trusting skill setup' }));
    await waitFor(() => expect(row.textContent).toContain('Not trusted'));
  });

  it('says so when the file changed between showing and trusting', async () => {
    render(<SkillsSettings sessionID="s1" />);
    const button = await screen.findByRole('button', { name: 'Trust skill setup' });
    fake.state.skills = [{ ...setup, sha256: 'b'.repeat(64) }];
    await userEvent.click(button);
    expect((await screen.findByRole('alert')).textContent).toContain('review it again');
  });
});

describe('the approval card', () => {
  it('says when a skill grant was ignored for want of trust', () => {
    const call = { id: 'c2', name: 'run_shell_command', arguments: '{"command":"rm -rf important"}' };
    const actions = { decide: vi.fn(async () => true), suggestRule: vi.fn(async () => null), readFile: vi.fn(async () => null) };
    render(
      <ToolCard
        call={call}
        pending={{ run_id: 'r1', call_id: 'c2', name: call.name, arguments: call.arguments, read_only: false, sandboxed: false, network: false, note: 'skill grants ignored: not trusted' }}
        actions={actions}
      />,
    );
    expect(within(screen.getByRole('group', { name: 'Approval' })).getByRole('note').textContent).toBe('skill grants ignored: not trusted');
  });
});
