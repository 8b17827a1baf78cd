import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MemoryView } from '../api/types';
import { makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { MemorySettings } from './MemorySettings';
import { ToolCard } from './ToolCard';

const proposed: MemoryView = {
  id: 'm1',
  scope: 'project',
  text: 'Run make types after changing a bound Go type.',
  workspace: '/w',
  source: { session_id: 's9', seq: 7 },
  updated_at: '2026-12-07T12:00:00Z',
  from: 'proposed by the agent, approved by you',
  source_title: 'Fix the build',
};

beforeEach(() => {
  fake = makeFakeApi();
  fake.state.memories = [proposed];
  fake.state.memoryProposals = [{ id: 'p1', scope: 'project', text: 'Tests use a real SQLite file.', workspace: '/w', origin: '/h/MEMORY.md', created_at: '' }];
});

describe('the Memory view', () => {
  it('says where each memory came from, and Show source opens that session at its row', async () => {
    const show = vi.fn();
    render(<MemorySettings sessionID="s1" onShowSource={show} />);
    const list = await screen.findByRole('list', { name: 'Memories' });
    const item = within(list).getByText(proposed.text).closest('li') as HTMLElement;
    expect(item.textContent).toContain('from “Fix the build”, row 7');
    await userEvent.click(within(item).getByRole('button', { name: /^Show source of memory/ }));
    expect(show).toHaveBeenCalledWith('s9', 7);
  });

  it('adds, edits and removes the person’s own memories, and answers a proposal', async () => {
    render(<MemorySettings sessionID="s1" />);
    await screen.findByRole('list', { name: 'Memories' });
    await userEvent.type(screen.getByRole('textbox', { name: 'New memory' }), 'Answer in British English.');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Where the new memory applies' }), 'personal');
    await userEvent.click(screen.getByRole('button', { name: 'Add memory' }));
    expect(fake.api.addMemory).toHaveBeenCalledWith('s1', 'personal', 'Answer in British English.', 's1');
    const added = (await screen.findByText('Answer in British English.')).closest('li') as HTMLElement;
    expect(added.textContent).toContain('Every folder · added by you');
    await userEvent.click(within(added).getByRole('button', { name: /^Edit memory/ }));
    const box = within(added).getByRole('textbox');
    await userEvent.clear(box);
    await userEvent.type(box, 'Answer briefly.');
    await userEvent.click(within(added).getByRole('button', { name: 'Save memory' }));
    await screen.findByText('Answer briefly.');
    await userEvent.click(screen.getByRole('button', { name: /^Remove memory Answer briefly/ }));
    await waitFor(() => expect(screen.queryByText('Answer briefly.')).toBeNull());
    const proposals = screen.getByRole('region', { name: 'Proposed memories' });
    await userEvent.click(within(proposals).getByRole('button', { name: /^Reject proposed memory/ }));
    expect(fake.api.answerMemoryProposal).toHaveBeenCalledWith('p1', false);
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Proposed memories' })).toBeNull());
  });
});

describe('the card of a remember call', () => {
  it('approves the memory with the text the person edited', async () => {
    const call = { id: 'c1', name: 'remember', arguments: '{"text":"tests need make types","scope":"project"}' };
    const actions = { decide: vi.fn(async () => true), suggestRule: vi.fn(async () => null), readFile: vi.fn(async () => null) };
    render(
      <ToolCard
        call={call}
        pending={{ run_id: 'r1', call_id: 'c1', name: 'remember', arguments: call.arguments, read_only: false, sandboxed: false, network: false, note: '' }}
        actions={actions}
      />,
    );
    const box = screen.getByRole('textbox', { name: 'Memory text' });
    expect((box as HTMLTextAreaElement).value).toBe('tests need make types');
    await userEvent.clear(box);
    await userEvent.type(box, 'Run make types after changing a bound Go type.');
    await userEvent.click(screen.getByRole('button', { name: 'Remember this text' }));
    expect(actions.decide).toHaveBeenCalledWith('c1', expect.objectContaining({ approved: true, arguments: '{"text":"Run make types after changing a bound Go type.","scope":"project"}' }));
  });
});
