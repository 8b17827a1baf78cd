import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Change, Row } from '../api/types';
import { chunk, makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { CheckpointProvider } from './CheckpointContext';
import { ChunkTable } from './ChunkTable';
import { RestoreRow } from './FileChanges';
import { ToolCard } from './ToolCard';
import { WorkspacePanel } from './WorkspacePanel';

const noActions = { decide: async () => true, suggestRule: async () => null, readFile: async () => null };
const change = (seq: number, path: string, c: Change['change'], size = 10): Change => ({ seq, path, change: c, size, sha256: 'x', by: 'agent' });
const shell = { id: 'c1', name: 'run_shell_command', arguments: JSON.stringify({ command: "sed -i 's/one/ONE/' a.txt && rm b.txt && echo new > c.txt" }) };
const result = { seq: 3, payload: { call_id: 'c1', name: 'run_shell_command', content: '', is_error: false } };

function rows(): Row[] {
  return [
    chunk('s1', 1, 'user', { text: 'change files' }),
    chunk('s1', 2, 'assistant', { text: '', reasoning: '', tool_calls: [shell] }),
    chunk('s1', 3, 'tool_result', result.payload),
  ];
}

function wrap(ui: React.ReactNode, live: Record<number, Change[]> = {}, onForked = vi.fn()) {
  return render(
    <CheckpointProvider sessionID="s1" rows={rows()} live={live} onForked={onForked} onError={vi.fn()}>
      {ui}
    </CheckpointProvider>,
  );
}

beforeEach(() => {
  fake = makeFakeApi();
  fake.state.changes.set('s1', [change(3, 'a.txt', 'modified'), change(3, 'b.txt', 'deleted'), change(3, 'c.txt', 'created', 4)]);
  fake.state.diffs.set('3:a.txt', { path: 'a.txt', change: 'modified', before: 'one\ntwo\n', after: 'ONE\ntwo\n', note: '' });
  fake.state.restorePlan = {
    restored: [
      { path: 'a.txt', change: 'modified' },
      { path: 'b.txt', change: 'deleted' },
      { path: 'c.txt', change: 'created' },
    ],
    dry_run: true,
    conflicts: [{ path: 'a.txt', by: 'outside' }],
    others: [{ path: 'c.txt', session_id: 's9', seq: 7 }],
    seq: 4,
  };
});

describe('checkpoints in the window', () => {
  it("lists a shell call's changes on its card with a per-file diff", async () => {
    wrap(<ToolCard call={shell} result={result} actions={noActions} />);
    const list = await screen.findByRole('region', { name: 'Files changed by row 3' });
    expect(within(list).getByText('3 files changed')).toBeTruthy();
    expect(within(list).getByRole('button', { name: / a\.txt$/ }).textContent).toBe('modified a.txt');
    expect(within(list).getByRole('button', { name: / b\.txt$/ }).textContent).toBe('deleted b.txt');
    expect(within(list).getByRole('button', { name: / c\.txt$/ }).textContent).toBe('created c.txt');
    await userEvent.click(within(list).getByRole('button', { name: / a\.txt$/ }));
    const diff = await screen.findByRole('figure', { name: 'Diff of a.txt at row 3' });
    expect(within(diff).getByText('- one')).toBeTruthy();
    expect(within(diff).getByText('+ ONE')).toBeTruthy();
    expect(fake.api.fileDiff).toHaveBeenCalledWith('s1', 3, 'a.txt');
  });

  it('shows changes announced live (files_changed) before any reload', async () => {
    fake.state.changes.set('s1', []);
    wrap(<ToolCard call={shell} result={result} actions={noActions} />, { 3: [{ seq: 3, path: 'x.go', change: 'mode', size: 1, sha256: '', by: 'agent' }] });
    const list = await screen.findByRole('region', { name: 'Files changed by row 3' });
    expect(within(list).getByRole('button', { name: / x\.go$/ }).textContent).toBe('mode x.go');
  });

  it('previews a restore with conflicts and other sessions, then restores with the files chosen', async () => {
    wrap(<ToolCard call={shell} result={result} actions={noActions} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Restore files to before this row' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore files' });
    expect(fake.api.restorePreview).toHaveBeenCalledWith('s1', 3, '');
    const files = await within(dialog).findByRole('list', { name: 'Files to restore' });
    expect(files.textContent).toContain('a.txt — content put back (it was modified)');
    expect(files.textContent).toContain('b.txt — re-created (it was deleted)');
    expect(files.textContent).toContain('c.txt — removed (it was created)');
    expect(within(dialog).getByRole('region', { name: 'Changed since' }).textContent).toContain('a.txt changed by someone outside this session');
    expect(within(dialog).getByRole('region', { name: "Other sessions' changes" }).textContent).toContain('c.txt — session s9, row #7');

    // a.txt unchecked: it is kept, the others are restored one by one.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Restore' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fake.api.restore.mock.calls.map((c) => c[2])).toEqual(['b.txt', 'c.txt']);
  });

  it('overwrites a conflicting file only when the person checks it', async () => {
    wrap(<ToolCard call={shell} result={result} actions={noActions} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Restore files to before this row' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore files' });
    await userEvent.click(await within(dialog).findByRole('checkbox', { name: 'Overwrite a.txt' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Restore' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fake.api.restore).toHaveBeenCalledTimes(1);
    expect(fake.api.restore).toHaveBeenCalledWith('s1', 3, '', ['a.txt']);
    // The changes are read again (the restore row carries its own).
    await waitFor(() => expect(fake.api.changes).toHaveBeenCalledTimes(2));
  });

  it('restores a single file from its diff, and shows a failed restore', async () => {
    fake.state.restoreError = { code: 'error', message: 'the folder /w was moved or deleted' };
    wrap(<ToolCard call={shell} result={result} actions={noActions} />);
    await userEvent.click(await screen.findByRole('button', { name: / b\.txt$/ }));
    await userEvent.click(await screen.findByRole('button', { name: 'Restore this file to before this row' }));
    const dialog = await screen.findByRole('dialog', { name: 'Restore files' });
    expect(within(dialog).getByRole('heading', { level: 2 }).textContent).toBe('Restore b.txt to before row #3');
    expect(fake.api.restorePreview).toHaveBeenCalledWith('s1', 3, 'b.txt');
    expect((await within(dialog).findByRole('list', { name: 'Files to restore' })).textContent).toBe('b.txt — re-created (it was deleted)');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Restore' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('the folder /w was moved or deleted');
  });

  it('shows a restore row readably', () => {
    wrap(<RestoreRow seq={4} payload={{ to_seq: 3, restored: [{ path: 'b.txt', change: 'deleted' }], overridden: ['a.txt'] }} />);
    const row = screen.getByRole('article', { name: 'Restore' });
    expect(row.textContent).toContain('Restored 1 file to before row #3');
    expect(row.textContent).toContain('b.txt — re-created (it was deleted)');
    expect(row.textContent).toContain('Overwritten although changed outside: a.txt');
  });

  it('marks rows in the chunk table and forks with its own copy of the folder', async () => {
    fake.state.sessions.push(fake.session('parent', { id: 's1', workspace: '/w' } as never));
    fake.state.rows.set('s1', rows());
    fake.state.mcpNames = [{ name: 'mcp__docs__search', server: 'docs', tool: 'search' }];
    const onForked = vi.fn();
    const r = [...rows(), chunk('s1', 4, 'tool_result', { call_id: 'c2', name: 'mcp__docs__search', content: 'hit', is_error: false })];
    render(
      <CheckpointProvider sessionID="s1" rows={r} live={{}} onForked={onForked} onError={vi.fn()}>
        <ChunkTable rows={r} onFork={vi.fn()} />
      </CheckpointProvider>,
    );
    const table = screen.getByRole('table', { name: 'Chunk table' });
    const row3 = table.querySelector('[data-seq="3"]') as HTMLElement;
    await waitFor(() => expect(within(row3).getByText('3 files')).toBeTruthy());
    const row4 = table.querySelector('[data-seq="4"]') as HTMLElement;
    await waitFor(() => expect(within(row4).getByTitle('MCP server docs').textContent).toBe('docs'));

    await userEvent.click(row3);
    const detail = screen.getByRole('region', { name: 'Row 3' });
    expect(within(detail).getByRole('region', { name: 'Files changed by row 3' })).toBeTruthy();
    await userEvent.click(within(detail).getByRole('button', { name: 'Fork with its own copy of the folder' }));
    await waitFor(() => expect(onForked).toHaveBeenCalled());
    expect(fake.api.forkSessionWithFiles).toHaveBeenCalledWith('s1', 3);
    expect(onForked.mock.calls[0][0].workspace).toMatch(/^\/data\/forks\//);
  });

  it('shows the MCP server a call went to on its card', async () => {
    fake.state.mcpNames = [{ name: 'mcp__every_thing__echo', server: 'every.thing', tool: 'echo' }];
    wrap(<ToolCard call={{ id: 'c9', name: 'mcp__every_thing__echo', arguments: '{"message":"hi"}' }} actions={noActions} />);
    // Go's mapping, not the name's form: the server's own name, dot included.
    expect((await screen.findByText('MCP server: every.thing')).className).toBe('tool-server');
  });

  it('lists the rows that changed a file in the Workspace tab', async () => {
    fake.state.changes.set('s1', [change(3, 'a.txt', 'modified'), change(9, 'a.txt', 'deleted')]);
    const onShowRow = vi.fn();
    wrap(
      <WorkspacePanel
        workspace="/w"
        files={[{ path: 'a.txt', dir: false, size: 3 }]}
        touched={[]}
        preview={{ path: 'a.txt', content: 'one', truncated: false, binary: false }}
        warning=""
        error=""
        onChoose={vi.fn()}
        onOpen={vi.fn()}
        onClosePreview={vi.fn()}
        onShowRow={onShowRow}
      />,
    );
    const hist = await screen.findByRole('region', { name: 'Rows that changed a.txt' });
    expect(hist.textContent).toBe('Changed by row #3 (modified), row #9 (deleted)');
    await userEvent.click(within(hist).getByRole('button', { name: 'row #9' }));
    expect(onShowRow).toHaveBeenCalledWith(9);
  });
});
