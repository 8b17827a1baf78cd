import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Hunk } from '../api/types';
import { makeFakeApi } from '../test/fakeApi';

let fake = makeFakeApi();
vi.mock('../api/backend', () => ({
  get api() {
    return fake.api;
  },
}));

import { ChangesPanel } from './ChangesPanel';
import { CheckpointProvider } from './CheckpointContext';
import { FileHistory } from './FileChanges';
import { OrphanNotice } from './OrphanNotice';

const hunk = (n: number, state: Hunk['state'] = 'unreviewed'): Hunk => ({
  seq: 3, path: 'a.txt', hunk: n, old_start: n * 10, old_lines: 7, new_start: n * 10, new_lines: 7, state,
  patch: `@@ -${n * 10},7 +${n * 10},7 @@\n ctx\n-old ${n}\n+new ${n}\n`,
});

function panel() {
  return render(
    <CheckpointProvider sessionID="s1" rows={[]} live={{}} onForked={vi.fn()} onError={vi.fn()}>
      <ChangesPanel sessionID="s1" version="1" onOpenSession={vi.fn()} />
    </CheckpointProvider>,
  );
}

beforeEach(() => {
  fake = makeFakeApi();
  fake.state.hunks.set('s1', [hunk(1), hunk(2), hunk(3, 'kept')]);
});

describe('the Changes tab', () => {
  it('lists the unreviewed hunks; Keep and Revert hunk review them', async () => {
    panel();
    expect(await screen.findByText('2 unreviewed hunks')).toBeTruthy();
    expect(screen.queryByRole('listitem', { name: 'Hunk 3 of a.txt at row 3' })).toBeNull();
    const h1 = screen.getByRole('listitem', { name: 'Hunk 1 of a.txt at row 3' });
    await userEvent.click(within(h1).getByRole('button', { name: 'Keep' }));
    expect(fake.api.keepHunk).toHaveBeenCalledWith('s1', 3, 'a.txt', 1);
    expect(await screen.findByText('1 unreviewed hunk')).toBeTruthy();
    const h2 = screen.getByRole('listitem', { name: 'Hunk 2 of a.txt at row 3' });
    await userEvent.click(within(h2).getByRole('button', { name: 'Revert hunk' }));
    expect(fake.api.revertHunk).toHaveBeenCalledWith('s1', 3, 'a.txt', 2);
    expect(await screen.findByText(/Reverted hunk 2 of a.txt .* row #4/)).toBeTruthy();
    expect(await screen.findByText('Every hunk is reviewed.')).toBeTruthy();
  });

  it('shows a refused revert and keeps the hunk unreviewed', async () => {
    fake.state.revertError = { code: 'conflict', message: 'a.txt line(s) 12 (hunk 1 of row 3) changed since that row' };
    panel();
    const h1 = await screen.findByRole('listitem', { name: 'Hunk 1 of a.txt at row 3' });
    await userEvent.click(within(h1).getByRole('button', { name: 'Revert hunk' }));
    expect((await screen.findByRole('alert')).textContent).toContain('line(s) 12');
    expect(screen.getByText('2 unreviewed hunks')).toBeTruthy();
  });

  it("shows a fork's folder and applies its changes to the parent", async () => {
    fake.state.forkFolders.set('s1', { folder: '/data/forks/s1', branch: 'loopdesk/s1', bytes: 2048 });
    panel();
    const bar = await screen.findByLabelText('Fork folder');
    expect(bar.textContent).toContain('/data/forks/s1');
    expect(bar.textContent).toContain('loopdesk/s1');
    await userEvent.click(within(bar).getByRole('button', { name: 'Apply to parent folder' }));
    expect(fake.api.applyToParent).toHaveBeenCalledWith('s1');
    expect(await screen.findByText(/Applied a.txt to the parent's folder/)).toBeTruthy();
  });
});

describe('fork folders without a session', () => {
  it('are listed at start with their sizes and removed on request', async () => {
    fake.state.orphans = [
      { fork_id: 'f1', folder: '/data/forks/f1', bytes: 3 << 20, branch: 'loopdesk/f1' },
      { fork_id: 'f2', folder: '/data/forks/f2', bytes: 1024, branch: '' },
    ];
    render(<OrphanNotice />);
    const region = await screen.findByRole('region', { name: 'Fork folders without a session' });
    expect(region.textContent).toContain('2 fork folders whose session is gone');
    expect(region.textContent).toContain('/data/forks/f1');
    expect(region.textContent).toContain('branch loopdesk/f1');
    await userEvent.click(within(region).getAllByRole('button', { name: 'Remove' })[0]);
    expect(fake.api.removeOrphanFork).toHaveBeenCalledWith('f1');
    expect(await screen.findByText('1 fork folder whose session is gone (1.0 KiB)')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Remove all' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Fork folders without a session' })).toBeNull());
    expect(fake.api.removeOrphanFork).toHaveBeenCalledWith('f2');
  });
});

describe("a file's history", () => {
  it("tells the person's edits from the agent's", async () => {
    fake.state.changes.set('s1', [
      { seq: 3, path: 'a.txt', change: 'modified', size: 4, sha256: 'x', by: 'agent' },
      { seq: 4, path: 'a.txt', change: 'modified', size: 5, sha256: 'y', by: 'outside' },
    ]);
    render(
      <CheckpointProvider sessionID="s1" rows={[]} live={{}} onForked={vi.fn()} onError={vi.fn()}>
        <FileHistory path="a.txt" onShowRow={vi.fn()} />
      </CheckpointProvider>,
    );
    const history = await screen.findByRole('region', { name: 'Rows that changed a.txt' });
    await waitFor(() => expect(history.textContent).toContain('row #4 (modified, edited outside the agent)'));
    expect(history.textContent).toContain('row #3 (modified)');
  });
});
