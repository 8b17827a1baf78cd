import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../api/types';
import { clickSelect, describeDeleted, groupByProject, noSelection, shownOrder } from './organise';

const s = (id: string, project = '', updated = '2026-12-07T10:00:00Z'): { session: SessionSummary; forks: never[] } => ({
  session: { id, title: id, project, updated_at: updated } as SessionSummary,
  forks: [],
});

describe('groupByProject', () => {
  it('puts each project in a group, most recent first, then the rest by recency', () => {
    const nodes = [s('a', 'Web'), s('b'), s('c', 'CLI'), s('d', 'Web'), s('e', '', '2020-01-01T00:00:00Z')];
    const recency = (iso: string) => (iso.startsWith('2026') ? 'Today' : 'Older');
    const groups = groupByProject(nodes, recency, ['Today', 'Older']);
    expect(groups.map((g) => [g.name, g.project, g.nodes.map((n) => n.session.id).join('')])).toEqual([
      ['Web', 'Web', 'ad'],
      ['CLI', 'CLI', 'c'],
      ['Today', null, 'b'],
      ['Older', null, 'e'],
    ]);
    expect(shownOrder(groups)).toEqual(['a', 'd', 'c', 'b', 'e']);
  });
});

describe('clickSelect', () => {
  const order = ['a', 'b', 'c', 'd', 'e'];
  it('adds and takes out one with Ctrl, starting from the open session', () => {
    let sel = clickSelect(noSelection, 'c', 'toggle', order, 'a');
    expect(sel.ids).toEqual(['a', 'c']);
    sel = clickSelect(sel, 'a', 'toggle', order, 'a');
    expect(sel.ids).toEqual(['c']);
  });
  it('selects a range with Shift from the last one clicked, either way', () => {
    let sel = clickSelect(noSelection, 'b', 'toggle', order, null);
    sel = clickSelect(sel, 'd', 'range', order, null);
    expect(sel.ids).toEqual(['b', 'c', 'd']);
    sel = clickSelect(sel, 'a', 'range', order, null);
    expect(sel.ids).toEqual(['a', 'b']);
  });
});

describe('describeDeleted', () => {
  it('says what went and which folder stayed, and why', () => {
    const text = describeDeleted([
      { deleted: 'a', rows: 10, bytes: 2048, images: 0, removed_folder: '/f/a', branch: 'loopdesk/a' },
      { deleted: 'b', rows: 1, bytes: 0, images: 0, kept_folder: '/f/b', kept_reason: '1 uncommitted change not brought back: x.go' },
    ]);
    expect(text).toBe(
      'Deleted 2 sessions: 11 rows, 2.0 KiB. Removed its folder /f/a and branch loopdesk/a. Kept the folder /f/b: 1 uncommitted change not brought back: x.go.',
    );
  });
});
