import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Row } from '../api/types';
import { findMatches, hiddenMatches, step } from '../state/find';

interface Props {
  /** The element to search: the conversation (messages, tool arguments and output). */
  root: () => HTMLElement | null;
  /** Changes when the conversation does, so the matches are found again. */
  version: unknown;
  onClose: () => void;
  /** Rows of the open session: the ones not rendered are searched here (without search). */
  rows?: Row[];
  /** Finds the query in the session's rows outside from..to (Go reads them): one entry per match. */
  search?: (query: string, from: number, to: number) => Promise<{ seq: number }[]>;
  /** Renders and scrolls to a row not rendered yet (the conversation widens to include it). */
  onReveal?: (seq: number) => void;
}

/** The seqs of the first and last rows the conversation renders (Infinity, -Infinity when none). */
function shownSpan(root: HTMLElement): [number, number] {
  const all = root.querySelectorAll<HTMLElement>('[data-seq]');
  if (all.length === 0) return [Infinity, -Infinity];
  return [Number(all[0].dataset.seq), Number(all[all.length - 1].dataset.seq)];
}

type Highlights = { set: (name: string, h: unknown) => void; delete: (name: string) => void };
// CSS Custom Highlights mark the matches without touching the DOM React owns; where the
// engine lacks them the element of the current match is outlined instead.
const highlights = (): Highlights | undefined => (globalThis.CSS as unknown as { highlights?: Highlights } | undefined)?.highlights;
const Highlight = (globalThis as unknown as { Highlight?: new (...r: Range[]) => unknown }).Highlight;

/** The text nodes under root, in document order. */
function textNodes(root: HTMLElement): Text[] {
  const out: Text[] = [];
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) out.push(n as Text);
  return out;
}

/**
 * The find bar (Ctrl+F): a textbox named "Find in session", the match count, Enter and
 * Shift+Enter for the next and previous match, Esc to close. WebKitGTK has no find bar of
 * its own. It finds in the whole session: the rendered rows in the page's text, the rows
 * not rendered (a long session holds and renders a window of them) in their stored text, found
 * by Go; moving to one of those renders it first. Matches run oldest first; the first is the
 * first match on screen.
 */
export function FindBar({ root, version, onClose, rows, search, onReveal }: Props) {
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(-1);
  // The matches current was chosen among: a row is revealed only for the current of these
  // (the page's matches and Go's arrive apart, and a stale current must not move the view).
  const [chosenFor, setChosenFor] = useState<unknown>(null);
  // tick re-reads the page after a row was revealed; kept is the row whose match stays current.
  const [tick, setTick] = useState(0);
  const kept = useRef<number | null>(null);
  // The row of the current match, for the query: the matches found again (rows came or went)
  // keep the same match current.
  const currentRow = useRef<{ query: string; seq: number } | null>(null);
  const found = useFound(
    useMemo(
      () => pageMatches(root(), query, search ? undefined : rows),
      // version: the conversation's rows changed, so its text did; tick: more rows rendered.
      // eslint-disable-next-line react-hooks/exhaustive-deps
      [query, version, root, rows, tick, search],
    ),
    query,
    search,
  );
  const { ranges, before, after } = found;
  const total = before.length + ranges.length + after.length;

  useEffect(() => {
    // A row revealed is looked for once the page renders it.
    if (kept.current !== null && !(found.from <= kept.current && kept.current <= found.to)) return;
    setChosenFor(found);
    const prev = currentRow.current;
    const seq = kept.current ?? (prev && prev.query === query ? prev.seq : null);
    kept.current = null;
    // After a reveal: the first match of the row revealed; else the first match on screen,
    // or with none on screen the newest of the older rows.
    const i = seq === null ? -1 : indexOfRow(found, seq);
    const next = i >= 0 ? i : ranges.length > 0 || before.length === 0 ? before.length : before.length - 1;
    setCurrent(next);
    const row = rowOf(found, next);
    currentRow.current = row === null ? null : { query, seq: row };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [found, ranges, before]);
  /** Moves to the next (or previous) match, remembering its row. */
  const move = (back: boolean) => {
    const next = step(current, total, back);
    const row = rowOf(found, next);
    currentRow.current = row === null ? null : { query, seq: row };
    // The person moved on: a row revealed before is no longer the one to keep current.
    kept.current = null;
    setChosenFor(found);
    setCurrent(next);
  };

  // A match in a row not rendered: render it, wait until the page shows it, then read again.
  const target = chosenFor === found ? seqOf(found, current) : null;
  useReveal(target, root, onReveal, (seq) => {
    kept.current = seq;
    setTick((t) => t + 1);
  });

  useShowMatches(ranges, before.length, current);

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      move(e.shiftKey);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation(); // Esc closes the bar and stops no run
      onClose();
    }
  };
  const count = query.trim() === '' ? '' : total === 0 ? 'No matches' : `${current + 1} of ${total}`;
  return (
    <div className="find-bar" role="search">
      <input aria-label="Find in session" placeholder="Find in session" value={query} autoFocus onChange={(e) => setQuery(e.target.value)} onKeyDown={onKeyDown} />
      <span className="find-count" role="status" aria-label="Matches">
        {count}
      </span>
      <button type="button" className="small" aria-label="Previous match" disabled={total === 0} onClick={() => move(true)}>
        ↑
      </button>
      <button type="button" className="small" aria-label="Next match" disabled={total === 0} onClick={() => move(false)}>
        ↓
      </button>
      <button type="button" className="small" aria-label="Close find" onClick={onClose}>
        ×
      </button>
    </div>
  );
}

/** Has the row of target rendered (onReveal), then calls shown once the page shows it. */
function useReveal(target: number | null, root: () => HTMLElement | null, onReveal: ((seq: number) => void) | undefined, shown: (seq: number) => void) {
  const done = useRef(shown);
  done.current = shown;
  useEffect(() => {
    if (target === null || !onReveal) return;
    onReveal(target);
    let frame = 0;
    const wait = () => {
      const el = root();
      const [first, last] = el ? shownSpan(el) : [Infinity, -Infinity];
      if (first <= target && target <= last) done.current(target);
      else frame = requestAnimationFrame(wait);
    };
    frame = requestAnimationFrame(wait);
    return () => cancelAnimationFrame(frame);
  }, [target, onReveal, root]);
}

/** How long the query rests before Go searches the rows not rendered. */
const SEARCH_AFTER_MS = 150;

interface Found {
  ranges: Range[];
  /** The seq of the row each range is in (its nearest row before, for text outside one). */
  rangeSeqs: number[];
  /** Matches in rows before and after the ones rendered (one entry per match). */
  before: { seq: number }[];
  after: { seq: number }[];
  /** The first and last seqs rendered: the rows outside them are searched by search. */
  from: number;
  to: number;
}

/** The matches in the page's text, and in rows (when given) before the ones rendered. */
function pageMatches(el: HTMLElement | null, query: string, rows: Row[] | undefined): Found {
  if (!el) return { ranges: [], rangeSeqs: [], before: [], after: [], from: Infinity, to: -Infinity };
  const nodes = textNodes(el);
  const [from, to] = shownSpan(el);
  let seq = from;
  const rangeSeqs: number[] = [];
  const ranges = findMatches(
    nodes.map((n) => n.data),
    query,
  ).map((m) => {
    const r = document.createRange();
    r.setStart(nodes[m.text], m.offset);
    r.setEnd(nodes[m.text], m.offset + query.length);
    const row = nodes[m.text].parentElement?.closest<HTMLElement>('[data-seq]');
    seq = row ? Number(row.dataset.seq) : seq;
    rangeSeqs.push(seq);
    return r;
  });
  return { ranges, rangeSeqs, before: rows ? hiddenMatches(rows, from, query) : [], after: [], from, to };
}

/** The seq of the row of match i when it is not rendered (null for one on the page). */
function seqOf(f: Found, i: number): number | null {
  if (i < 0) return null;
  if (i < f.before.length) return f.before[i].seq;
  const j = i - f.before.length - f.ranges.length;
  return j >= 0 && j < f.after.length ? f.after[j].seq : null;
}

/** The seq of the row of match i (null for none). */
function rowOf(f: Found, i: number): number | null {
  const j = i - f.before.length;
  return j >= 0 && j < f.ranges.length ? f.rangeSeqs[j] : seqOf(f, i);
}

/** The index of the first match in the row seq (-1 when none). */
function indexOfRow(f: Found, seq: number): number {
  const b = f.before.findIndex((m) => m.seq === seq);
  if (b >= 0) return b;
  const r = f.rangeSeqs.findIndex((s) => s >= seq);
  if (r >= 0) return f.before.length + r;
  const a = f.after.findIndex((m) => m.seq === seq);
  return a >= 0 ? f.before.length + f.ranges.length + a : -1;
}

/**
 * The matches on the page with those in the rows outside them: with search, those come from
 * Go and the page's matches wait for them, so both change together.
 */
function useFound(page: Found, query: string, search: Props['search']): Found {
  const [found, setFound] = useState<Found>(page);
  useEffect(() => {
    if (!search || query.trim() === '') {
      setFound(page);
      return;
    }
    let live = true;
    // Nothing rendered: every row is outside.
    const [from, to] = Number.isFinite(page.from) ? [page.from, page.to] : [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    // Go reads the rows not rendered: once per pause in the typing, not per key.
    const t = setTimeout(() => {
      search(query, from, to).then(
        (hidden) => live && setFound({ ...page, before: hidden.filter((m) => m.seq < from), after: hidden.filter((m) => m.seq > to) }),
        () => live && setFound(page),
      );
    }, SEARCH_AFTER_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [page, query, search]);
  return found;
}

/**
 * Marks the matches on the page (CSS highlights, where the engine has them) and brings the
 * current one into view; current counts the hidden rows' matches first.
 */
function useShowMatches(ranges: Range[], hiddenCount: number, current: number) {
  useEffect(() => {
    const hl = highlights();
    if (hl && Highlight) hl.set('find', new Highlight(...ranges));
    const r = current >= hiddenCount ? ranges[current - hiddenCount] : undefined;
    const el = r?.startContainer.parentElement;
    if (hl && Highlight) hl.set('find-current', r ? new Highlight(r) : new Highlight());
    if (!el) return;
    // A match in a folded result opens it, so it can be seen.
    for (let d = el.closest('details'); d; d = d.parentElement?.closest('details') ?? null) d.open = true;
    el.classList.add('find-current');
    el.scrollIntoView?.({ block: 'center' });
    return () => el.classList.remove('find-current');
  }, [ranges, hiddenCount, current]);

  useEffect(
    () => () => {
      highlights()?.delete('find');
      highlights()?.delete('find-current');
    },
    [],
  );
}
