import { describe, expect, it } from 'vitest';
import type { Row } from '../api/types';
import { chunk } from '../test/fakeApi';
import { extend, indexOfSeq, prepend } from './window';
import { initialSession, reduceSession, type SessionState } from './session';

const rows = (from: number, to: number): Row[] => Array.from({ length: to - from + 1 }, (_, i) => chunk('s1', from + i, 'user', { text: `m${from + i}` }));
const seqs = (rs: Row[]) => [rs[0]?.seq, rs.at(-1)?.seq, rs.length];

describe('the window of rows held', () => {
  it('prepends earlier rows and drops the newest past the bound, leaving the end', () => {
    const w = prepend({ rows: rows(801, 1000), atEnd: true }, rows(601, 800), 300);
    expect(seqs(w.rows)).toEqual([601, 900, 300]);
    expect(w.atEnd).toBe(false);
    // Rows already held, or after the first, are not added again.
    expect(prepend(w, rows(650, 700), 300)).toBe(w);
  });

  it('extends a window away from the end, dropping the oldest, and joins the end when it reaches it', () => {
    const w = extend({ rows: rows(1, 200), atEnd: false }, rows(201, 400), 1000, 300);
    expect(seqs(w.rows)).toEqual([101, 400, 300]);
    expect(w.atEnd).toBe(false);
    expect(extend(w, rows(401, 1000), 1000, 300).atEnd).toBe(true);
  });

  it('finds a seq by bisection', () => {
    const r = rows(5, 104);
    expect(indexOfSeq(r, 5)).toBe(0);
    expect(indexOfSeq(r, 77)).toBe(72);
    expect(indexOfSeq(r, 104)).toBe(99);
    expect(indexOfSeq(r, 4)).toBe(-1);
  });
});

describe('the session state with a window', () => {
  const opened = (): SessionState => {
    const s = reduceSession(initialSession('s1'), { type: 'switched', id: 's1' });
    const view = { session: { id: 's1' }, rows: rows(801, 1000), row_count: 1000, first_seq: 1, runs: [], pending: [], running_run_id: '', running: [], meters: [], queued: [] };
    return reduceSession(s, { type: 'opened', view: view as never });
  };
  const stored = (s: SessionState, r: Row[]) => reduceSession(s, { type: 'rows_stored', session_id: 's1', run_id: 'run1', seq: 1, rows: r } as never);

  it('appends live rows at the end, and away from it only learns how far the session goes', () => {
    let s = opened();
    expect([s.firstSeq, s.atEnd, s.rows.length]).toEqual([1, true, 200]);
    s = stored(s, rows(1001, 1001));
    expect(s.rows.at(-1)?.seq).toBe(1001);
    s = reduceSession(s, { type: 'rows_jumped', rows: rows(1, 200) });
    expect([s.rows[0].seq, s.atEnd]).toEqual([1, false]);
    s = stored(s, rows(1002, 1002));
    expect([s.rows.at(-1)?.seq, s.seenSeq, s.missingAfter]).toEqual([200, 1002, null]);
    // Back to the end: the last rows, and live rows append again.
    s = reduceSession(s, { type: 'rows_jumped', rows: rows(803, 1002) });
    expect(s.atEnd).toBe(true);
    s = stored(s, rows(1003, 1003));
    expect(s.rows.at(-1)?.seq).toBe(1003);
  });

  it('prepends a page read before the window', () => {
    const s = reduceSession(opened(), { type: 'rows_before', rows: rows(601, 800) });
    expect([s.rows[0].seq, s.rows.length, s.atEnd]).toEqual([601, 400, true]);
  });
});
