import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Hit, SessionSummary } from '../api/types';
import { makeFakeApi } from '../test/fakeApi';
import { SessionBrowser } from './SessionBrowser';

const days = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

function setup(sessions: SessionSummary[], extra: Partial<Parameters<typeof SessionBrowser>[0]> = {}) {
  const p = {
    sessions, selected: null, query: '', onQuery: vi.fn(), hits: [] as Hit[], searching: false, searchError: '',
    onSelect: vi.fn(), onOpenHit: vi.fn(), onNew: vi.fn(), onSettings: vi.fn(), ...extra,
  };
  render(<SessionBrowser {...p} />);
  return p;
}

describe('SessionBrowser', () => {
  it('groups sessions by recency and shows forks under their parent with the fork point', async () => {
    const f = makeFakeApi();
    const today = f.session('fix the build', { updated_at: days(0) });
    const old = f.session('old idea', { updated_at: days(40) });
    const fork = f.session('fix the build, take two', { parent_id: today.id, fork_seq: 7, updated_at: days(40) });
    const p = setup([old, fork, today]);
    const nav = screen.getByRole('navigation', { name: 'Sessions' });
    const todayGroup = within(nav).getByRole('region', { name: 'Today' });
    expect(within(todayGroup).getByRole('button', { name: /^fix the build(?!,)/ })).toBeTruthy();
    const forks = within(todayGroup).getByRole('list', { name: 'Forks of fix the build' });
    expect(within(forks).getByRole('button', { name: /take two.*fork @#7/ })).toBeTruthy();
    expect(within(within(nav).getByRole('region', { name: 'Older' })).getByRole('button', { name: /old idea/ })).toBeTruthy();
    await userEvent.click(within(forks).getByRole('button', { name: /take two/ }));
    expect(p.onSelect).toHaveBeenCalledWith(fork.id);
    await userEvent.click(screen.getByRole('button', { name: 'New session' }));
    expect(p.onNew).toHaveBeenCalled();
  });

  it('shows task children under their parent in the order of the rows that started them', () => {
    const f = makeFakeApi();
    const parent = f.session('split the work', { updated_at: days(0) });
    const late = f.session('count files', { parent_id: parent.id, parent_call_id: 't9', fork_seq: 12, created_at: days(0) });
    const early = f.session('read notes', { parent_id: parent.id, parent_call_id: 't1', fork_seq: 2, created_at: days(0) });
    const fork = f.session('split, again', { parent_id: parent.id, fork_seq: 5, created_at: days(1) });
    setup([late, parent, fork, early]);
    const under = screen.getByRole('list', { name: 'Forks of split the work' });
    const names = within(under).getAllByRole('button').map((b) => b.textContent);
    expect(names).toEqual([expect.stringMatching(/read notes.*task @#2/), expect.stringMatching(/split, again.*fork @#5/), expect.stringMatching(/count files.*task @#12/)]);
    expect(within(under).getByText('task @#2').getAttribute('title')).toBe('Started by the task call t1 in row 2 of its parent');
  });

  it('shows hits with their matches marked, as text', async () => {
    const hit: Hit = { session_id: 's9', session_title: 'deploy', seq: 12, kind: 'tool_result', snippet: 'ran \u0001make<b>\u0002 then \u0001deploy\u0002 ok', rank: 1 };
    const p = setup([], { query: 'make deploy', hits: [hit] });
    const results = screen.getByLabelText('Search results');
    const marks = results.querySelectorAll('mark');
    expect([...marks].map((m) => m.textContent)).toEqual(['make<b>', 'deploy']);
    expect(results.querySelector('b')).toBeNull();
    await userEvent.click(within(results).getByRole('button', { name: /deploy/ }));
    expect(p.onOpenHit).toHaveBeenCalledWith(hit);
  });

  it('types into the search box', async () => {
    const p = setup([]);
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search sessions' }), 'x');
    expect(p.onQuery).toHaveBeenCalledWith('x');
  });
});
