import { act, render, screen, waitFor, within, fireEvent } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionSummary } from '../api/types';
import { chunk, makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { App } from '../App';

beforeEach(() => {
  fake = makeFakeApi();
});

function seed(title: string, extra: Partial<SessionSummary> = {}) {
  const s = fake.session(title, extra);
  fake.state.sessions.push(s);
  fake.state.rows.set(s.id, [chunk(s.id, 1, 'user', { text: `about ${title}` })]);
  return s;
}

const list = async () => screen.findByRole('navigation', { name: 'Sessions' });

describe('organising the session list', () => {
  it('groups sessions by project, then by recency', async () => {
    seed('alpha', { project: 'Web site' });
    seed('beta');
    seed('gamma', { project: 'Web site' });
    render(<App />);
    const nav = await list();
    const project = await within(nav).findByRole('region', { name: 'Project Web site' });
    expect(within(project).getAllByRole('button', { name: /alpha|gamma/ })).toHaveLength(2);
    expect(within(project).queryByRole('button', { name: /beta/ })).toBeNull();
    expect(within(nav).getByRole('region', { name: 'Today' })).toBeTruthy();
  });

  it('selects with Ctrl and Shift and archives the selection; Show archived lists them', async () => {
    const [a, b, c] = [seed('one'), seed('two'), seed('three')];
    const user = userEvent.setup();
    render(<App />);
    const nav = await list();
    await within(nav).findByRole('button', { name: /one/ });
    await user.keyboard('{Control>}');
    await user.click(within(nav).getByRole('button', { name: /one/ }));
    await user.keyboard('{/Control}{Shift>}');
    await user.click(within(nav).getByRole('button', { name: /three/ }));
    await user.keyboard('{/Shift}');
    const bar = within(nav).getByRole('toolbar', { name: 'Selected sessions' });
    expect(within(bar).getByText('3 selected')).toBeTruthy();
    expect(within(nav).getByRole('button', { name: /two/ }).getAttribute('aria-pressed')).toBe('true');
    // A selection opens nothing.
    expect(fake.api.openSession).not.toHaveBeenCalled();

    await user.click(within(bar).getByRole('button', { name: 'Archive' }));
    await waitFor(() => expect(fake.api.archiveSessions).toHaveBeenCalledWith([a.id, b.id, c.id], true));
    expect(await within(nav).findByText('Archived 3 sessions.')).toBeTruthy();
    expect(within(nav).queryByRole('button', { name: /one/ })).toBeNull();

    await user.click(within(nav).getByRole('checkbox', { name: 'Show archived' }));
    const archived = await within(nav).findByRole('region', { name: 'Archived' });
    await within(archived).findByRole('button', { name: /^two/ });
    await user.click(within(archived).getByRole('button', { name: 'Unarchive two' }));
    await waitFor(() => expect(fake.state.sessions.find((s) => s.id === b.id)?.archived).toBe(false));
    expect(await within(nav).findByRole('button', { name: /^two/ })).toBeTruthy();
  });

  it('deletes several at once after asking, and says what went', async () => {
    const [a, b] = [seed('old one'), seed('old two')];
    seed('kept');
    const user = userEvent.setup();
    render(<App />);
    const nav = await list();
    await within(nav).findByRole('button', { name: /old one/ });
    await user.keyboard('{Control>}');
    await user.click(within(nav).getByRole('button', { name: /old one/ }));
    await user.click(within(nav).getByRole('button', { name: /old two/ }));
    await user.keyboard('{/Control}');
    await user.click(within(nav).getByRole('button', { name: 'Delete' }));
    const confirm = within(nav).getByRole('alertdialog', { name: 'Delete sessions?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete 2' }));
    await waitFor(() => expect(fake.api.deleteSessions).toHaveBeenCalledWith([a.id, b.id]));
    expect(await within(nav).findByText(/Deleted 2 sessions: 2 rows/)).toBeTruthy();
    expect(within(nav).queryByRole('button', { name: /old one/ })).toBeNull();
    expect(within(nav).getByRole('button', { name: /kept/ })).toBeTruthy();
  });

  it('moves the selection to a new project, and a dragged session onto a project', async () => {
    const [a, b] = [seed('first'), seed('second')];
    const c = seed('third', { project: 'Docs' });
    const user = userEvent.setup();
    render(<App />);
    const nav = await list();
    await within(nav).findByRole('button', { name: /first/ });
    await user.keyboard('{Control>}');
    await user.click(within(nav).getByRole('button', { name: /first/ }));
    await user.keyboard('{/Control}');
    await user.selectOptions(within(nav).getByRole('combobox', { name: 'Move to project' }), 'New project…');
    await user.type(within(nav).getByRole('textbox', { name: 'New project name' }), 'Launch{Enter}');
    await waitFor(() => expect(fake.api.moveToProject).toHaveBeenCalledWith([a.id], 'Launch'));
    expect(await within(nav).findByRole('region', { name: 'Project Launch' })).toBeTruthy();

    // Drag "second" onto the Docs group.
    const data = new Map<string, string>();
    const dataTransfer = { setData: (k: string, v: string) => data.set(k, v), getData: (k: string) => data.get(k) ?? '', effectAllowed: '' };
    fireEvent.dragStart(within(nav).getByRole('button', { name: /second/ }), { dataTransfer });
    fireEvent.drop(within(nav).getByRole('region', { name: 'Project Docs' }), { dataTransfer });
    await waitFor(() => expect(fake.api.moveToProject).toHaveBeenCalledWith([b.id], 'Docs'));
    const docs = await within(nav).findByRole('region', { name: 'Project Docs' });
    await waitFor(() => expect(within(docs).getAllByRole('button', { name: /second|third/ })).toHaveLength(2));
    expect(c.project).toBe('Docs');
  });

  it("shows the open session's project and size in its header, and moves it from there", async () => {
    const s = seed('mine');
    render(<App />);
    await userEvent.click(await within(await list()).findByRole('button', { name: /mine/ }));
    const head = await screen.findByRole('banner');
    expect(await within(head).findByText('100 B on disk')).toBeTruthy();
    await userEvent.selectOptions(within(head).getByRole('combobox', { name: 'Project' }), 'New project…');
    await userEvent.type(within(head).getByRole('textbox', { name: 'New project name' }), 'Side{Enter}');
    await waitFor(() => expect(fake.api.moveToProject).toHaveBeenCalledWith([s.id], 'Side'));
    expect(await within(await list()).findByRole('region', { name: 'Project Side' })).toBeTruthy();
  });
});

describe('a big tool output', () => {
  it('shows its head and tail, and loads the rest only on Show all', async () => {
    const s = seed('build');
    const all = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}\n`).join('');
    const head = all.split('\n').slice(0, 60).join('\n') + '\n';
    const tail = all.split('\n').slice(4940, 5000).join('\n') + '\n';
    fake.state.rows.set(s.id, [
      chunk(s.id, 1, 'user', { text: 'build it' }),
      chunk(s.id, 2, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'c1', name: 'run_shell_command', arguments: '{"command":"make"}' }] }),
      chunk(s.id, 3, 'tool_result', { call_id: 'c1', name: 'run_shell_command', content: head, is_error: false, cut: { tail, total_lines: 5000, total_bytes: all.length } } as never),
    ]);
    fake.state.fullOutputs.set(`${s.id}:3`, all);
    render(<App />);
    await userEvent.click(await within(await list()).findByRole('button', { name: /build/ }));
    const card = await screen.findByRole('region', { name: 'Tool call run_shell_command' });
    expect(within(card).getByText(/Result · 5000 lines/)).toBeTruthy();
    const gap = within(card).getByRole('group', { name: 'Hidden output' });
    expect(within(gap).getByText(/4880 more lines/)).toBeTruthy();
    expect(card.textContent).toContain('line 60\n');
    expect(card.textContent).toContain('line 4941\n');
    expect(card.textContent).not.toContain('line 2500\n');
    expect(fake.api.toolOutput).not.toHaveBeenCalled();

    await userEvent.click(within(gap).getByRole('button', { name: 'Show all' }));
    await waitFor(() => expect(card.textContent).toContain('line 2500\n'));
    expect(fake.api.toolOutput).toHaveBeenCalledWith(s.id, 3, 0, 0);
    expect(within(card).queryByRole('group', { name: 'Hidden output' })).toBeNull();
    act(() => undefined);
  });
});
