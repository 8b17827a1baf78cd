// The window at its smallest (760x480, main.go) and at its default size (1280x800): what is
// there and reachable. Widths themselves are measured in the browser (e2e/tests/ui-layout).
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { chunk, makeFakeApi } from './test/fakeApi';
import { setViewport } from './test/setup';

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

function seedFork() {
  const parent = fake.session('a parent session with a rather long title');
  const fork = fake.session('the fork of it, with a title long enough to need room', { parent_id: parent.id, fork_seq: 12 });
  fake.state.sessions.push(parent, fork);
  fake.state.rows.set(parent.id, []);
  const call = { id: 'c1', name: 'run_shell_command', arguments: '{"command":"ls -la"}' };
  fake.state.rows.set(fork.id, [chunk(fork.id, 1, 'user', { text: 'list it' }), chunk(fork.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: [call] })]);
  fake.state.pending.set(fork.id, [{ call_id: 'c1', name: call.name, arguments: call.arguments, read_only: false, sandboxed: false, network: false }]);
  fake.state.running.set(fork.id, 'run1');
  return { parent, fork };
}

async function openFork() {
  const nav = await screen.findByRole('navigation', { name: 'Sessions' });
  await userEvent.click(await within(nav).findByRole('button', { name: /the fork of it/ }));
  await screen.findByRole('heading', { name: /the fork of it/ });
}

describe('layout', () => {
  it('at 1280x800 the side panel is open beside the conversation, and the lineage link works', async () => {
    const { parent } = seedFork();
    render(<App />);
    await openFork();
    expect(screen.getByRole('tabpanel')).toBeTruthy();
    const link = screen.getByRole('button', { name: /forked from a parent session with a rather long title at #12/ });
    await userEvent.click(link);
    expect(await screen.findByRole('heading', { name: parent.title })).toBeTruthy();
  });

  it('at 760x480 the side panel folds to its tabs; a tab opens it and Close folds it again', async () => {
    setViewport(760, 480);
    seedFork();
    render(<App />);
    await openFork();
    expect(document.querySelector('.app')!.className).toContain('narrow');
    // Folded: the tabs are there, no panel covers the conversation.
    expect(screen.queryByRole('tabpanel')).toBeNull();
    expect(screen.getAllByRole('tab')).toHaveLength(5);
    // The conversation, its card with the approval controls, the header and the lineage link are all there.
    const card = screen.getByRole('region', { name: 'Tool call run_shell_command' });
    expect(within(card).getByRole('button', { name: 'Approve' })).toBeTruthy();
    expect(screen.getByRole('button', { name: /forked from .* at #12/ })).toBeTruthy();
    for (const name of ['Rename', 'Export', 'Delete']) expect(screen.getByRole('button', { name })).toBeTruthy();

    await userEvent.click(screen.getByRole('tab', { name: 'Chunks' }));
    expect(await screen.findByRole('table', { name: 'Chunk table' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Close side panel' }));
    expect(screen.queryByRole('tabpanel')).toBeNull();
    // The open tab clicked again folds it too; Escape as well.
    await userEvent.click(screen.getByRole('tab', { name: 'Budget' }));
    expect(screen.getByRole('tabpanel')).toBeTruthy();
    await userEvent.click(screen.getByRole('tab', { name: 'Budget' }));
    expect(screen.queryByRole('tabpanel')).toBeNull();
    await userEvent.click(screen.getByRole('tab', { name: 'Workspace' }));
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('tabpanel')).toBeNull();
  });

  it('widening the window unfolds the side panel', async () => {
    setViewport(760, 480);
    seedFork();
    render(<App />);
    await openFork();
    expect(screen.queryByRole('tabpanel')).toBeNull();
    setViewport(1280, 800);
    expect(await screen.findByRole('tabpanel')).toBeTruthy();
  });
});
