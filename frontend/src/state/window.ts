// The rows the page holds of a long session: one contiguous run of rows (a window), never
// every row. Opening reads the last rows; scrolling up prepends a page read with RowsBefore,
// scrolling down in a window away from the end appends one read with RowsAround, a jump to a
// row not held replaces the window. Whatever is added, the far end is trimmed so the window
// stays under MAX_ROWS: memory stays bounded however long the person scrolls.
import type { Row } from '../api/types';

/** Rows read when a session opens, and per page read after. */
export const PAGE = 200;
/** The most rows the page holds of one session. */
export const MAX_ROWS = 3000;

/** A window of rows and whether it reaches the session's last row. */
export interface Window {
  rows: Row[];
  /** The window holds the last row stored: live rows append to it. */
  atEnd: boolean;
}

/** Rows before the first one held, added in front; the newest rows go when over MAX_ROWS. */
export function prepend(w: Window, rows: Row[], max = MAX_ROWS): Window {
  const first = w.rows[0]?.seq ?? Infinity;
  const fresh = rows.filter((r) => r.seq < first);
  if (fresh.length === 0) return w;
  const all = [...fresh, ...w.rows];
  return all.length > max ? { rows: all.slice(0, max), atEnd: false } : { rows: all, atEnd: w.atEnd };
}

/**
 * Rows after the last one held, added at the end; the oldest rows go when over MAX_ROWS.
 * tail is the highest seq the session is known to have: reaching it joins the live end.
 */
export function extend(w: Window, rows: Row[], tail: number, max = MAX_ROWS): Window {
  const last = w.rows.at(-1)?.seq ?? 0;
  const fresh = rows.filter((r) => r.seq > last);
  const all = fresh.length === 0 ? w.rows : [...w.rows, ...fresh];
  const atEnd = (all.at(-1)?.seq ?? 0) >= tail;
  return { rows: all.length > max ? all.slice(all.length - max) : all, atEnd: w.atEnd || atEnd };
}

/** The index of the row with seq in rows (ascending), or -1. */
export function indexOfSeq(rows: Row[], seq: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = rows[mid].seq;
    if (s === seq) return mid;
    if (s < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
