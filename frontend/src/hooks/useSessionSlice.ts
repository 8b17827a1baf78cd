import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { Row } from '../api/types';
import { indexOfSeq } from '../state/window';
import type { Paging } from './useSessionPages';

/** The most rows the conversation renders at once. */
export const SLICE = 120;
/** Rows the rendered slice moves by when the person nears one of its ends. */
const STEP = 40;

interface Args {
  rows: Row[];
  firstSeq: number;
  atEnd: boolean;
  paging?: Paging;
}

/** Where a row was on screen before the slice moved: it is put back there after. */
interface Anchor {
  seq: string;
  top: number;
}

/** The index in rows of the last row with a seq at or below seq (0 when none). */
function atOrBelow(rows: Row[], seq: number): number {
  const i = indexOfSeq(rows, seq);
  if (i >= 0) return i;
  let k = rows.length - 1;
  while (k > 0 && rows[k].seq > seq) k--;
  return k;
}

/** The index in rows of the first row with a seq at or above seq (the last index when none). */
function atOrAbove(rows: Row[], seq: number): number {
  const i = indexOfSeq(rows, seq);
  if (i >= 0) return i;
  let k = 0;
  while (k < rows.length - 1 && rows[k].seq < seq) k++;
  return k;
}

/** The rendered slice by seq: its first row, and its last (null: the window's last row). */
interface Range {
  from: number | null;
  to: number | null;
}

/**
 * The rows of the window the conversation renders: at most SLICE of them, the last ones while
 * the person reads the end. Nearing the top of the slice moves it up (and reads the page
 * before the window when the slice is at its top); nearing the bottom moves it down (and
 * reads the page after a window away from the end). The row at the top of the view stays
 * where it was on screen when the slice moves (rows measured as they rendered, before and
 * after), so nothing jumps when earlier rows come in above.
 */
export function useSessionSlice(scroller: RefObject<HTMLElement | null>, { rows, firstSeq, atEnd, paging }: Args) {
  const [range, setRange] = useState<Range>({ from: null, to: null });
  const anchor = useRef<Anchor | null>(null);
  const last = rows.length - 1;
  // A range outside the rows held (they were replaced: a jump, back to the latest) is no range.
  const held = (seq: number | null): seq is number => seq !== null && last >= 0 && seq >= rows[0].seq && seq <= rows[last].seq;
  const ie = held(range.to) ? atOrBelow(rows, range.to) : last;
  // Never more than SLICE rows: following the end, the oldest rendered go as rows come.
  const is = Math.max(held(range.from) ? atOrAbove(rows, range.from) : 0, ie - SLICE + 1, 0);
  const shown = useMemo(() => rows.slice(is, ie + 1), [rows, is, ie]);

  /** Remembers where the first row in view is, before the slice moves. */
  const hold = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top;
    for (const r of el.querySelectorAll<HTMLElement>('[data-seq]')) {
      const box = r.getBoundingClientRect();
      if (box.bottom > top) {
        anchor.current = { seq: r.dataset.seq ?? '', top: box.top };
        return;
      }
    }
  }, [scroller]);

  /** Renders rows a..b (indexes; following the end when b is the window's last row). */
  const span = useCallback(
    (a: number, b: number) => setRange({ from: rows[a]?.seq ?? null, to: b >= rows.length - 1 && atEnd ? null : (rows[b]?.seq ?? null) }),
    [rows, atEnd],
  );

  /** Moves the slice (or reads a page) when the view nears one of the slice's ends. */
  const check = useCallback(() => {
    const el = scroller.current;
    if (!el || rows.length === 0) return;
    const margin = Math.max(600, el.clientHeight * 1.5);
    const nearBottom = el.scrollHeight - el.scrollTop - el.clientHeight < margin;
    if (el.scrollTop < margin) {
      if (is > 0) {
        const a = Math.max(0, is - STEP);
        const b = Math.min(ie, a + SLICE - 1);
        // A slice short enough to be near both ends keeps the rows at its bottom (in view).
        if (b < ie && nearBottom) return;
        hold();
        span(a, b);
      } else if (rows[0].seq > firstSeq) paging?.earlier();
    } else if (nearBottom) {
      if (ie < last) {
        hold();
        const b = Math.min(last, ie + STEP);
        span(Math.max(is, b - SLICE + 1), b);
      } else if (!atEnd) paging?.later();
    }
  }, [scroller, rows, is, ie, last, firstSeq, atEnd, paging, hold, span]);

  // After the slice moved: the row that was at the top of the view goes back where it was.
  useLayoutEffect(() => {
    const el = scroller.current;
    const a = anchor.current;
    if (!el || !a) return;
    anchor.current = null;
    const row = el.querySelector<HTMLElement>(`[data-seq="${a.seq}"]`);
    if (row) el.scrollTop += row.getBoundingClientRect().top - a.top;
  }, [scroller, shown]);

  // Rows came (a page read, a jump): look again once they are laid out.
  const recheck = useRef(check);
  recheck.current = check;
  useEffect(() => {
    // A flag, not cancelAnimationFrame: tests that fake the clock fake one and not the other.
    let live = true;
    requestAnimationFrame(() => live && recheck.current());
    return () => {
      live = false;
    };
  }, [rows]);

  /** Renders the rows around seq (held already): the slice centred on it. */
  const reveal = useCallback(
    (seq: number): boolean => {
      const i = indexOfSeq(rows, seq);
      if (i < 0) return false;
      if (i < is || i > ie) {
        const a = Math.max(0, i - SLICE / 2);
        span(a, Math.min(last, a + SLICE - 1));
      }
      return true;
    },
    [rows, is, ie, last, span],
  );

  return { shown, check, reveal, following: !held(range.to), hasEarlier: is > 0 || (rows[0]?.seq ?? 0) > firstSeq };
}
