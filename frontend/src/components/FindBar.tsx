import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { Row } from '../api/types';
import { findMatches, hiddenMatches, step } from '../state/find';

interface Props {
  /** The element to search: the conversation (messages, tool arguments and output). */
  root: () => HTMLElement | null;
  /** Changes when the conversation does, so the matches are found again. */
  version: unknown;
  onClose: () => void;
  /** Every row of the open session: the rows not rendered are searched here. */
  rows?: Row[];
  /** Renders and scrolls to a row not rendered yet (the conversation widens to include it). */
  onReveal?: (seq: number) => void;
}

/** The seq of the first row the conversation renders (Infinity when none). */
function firstShown(root: HTMLElement): number {
  const el = root.querySelector<HTMLElement>('[data-seq]');
  return el ? Number(el.dataset.seq) : Infinity;
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
 * its own. It finds in the whole session: the rendered rows in the page's text, the older
 * rows (not rendered in a long session) in their stored text; moving to one of those renders
 * it first. Matches run oldest first; the first is the first match on screen.
 */
export function FindBar({ root, version, onClose, rows, onReveal }: Props) {
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(-1);
  // tick re-reads the page after a row was revealed; keep holds the current match through it.
  const [tick, setTick] = useState(0);
  const keep = useRef(false);
  const { ranges, hidden } = useMemo(() => {
    const el = root();
    if (!el) return { ranges: [], hidden: [] };
    const nodes = textNodes(el);
    const ranges = findMatches(
      nodes.map((n) => n.data),
      query,
    ).map((m) => {
      const r = document.createRange();
      r.setStart(nodes[m.text], m.offset);
      r.setEnd(nodes[m.text], m.offset + query.length);
      return r;
    });
    return { ranges, hidden: rows ? hiddenMatches(rows, firstShown(el), query) : [] };
    // version: the conversation's rows changed, so its text did; tick: more rows rendered.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query, version, root, rows, tick]);
  const total = hidden.length + ranges.length;

  useEffect(() => {
    if (keep.current) {
      keep.current = false;
      setCurrent((c) => Math.min(c, total - 1));
      return;
    }
    // The first match on screen; with none on screen, the newest of the older rows.
    setCurrent(ranges.length > 0 ? hidden.length : hidden.length - 1);
  }, [ranges, hidden, total]);

  // A match in a row not rendered: render it, wait until the page shows it, then read again.
  const target = current >= 0 && current < hidden.length ? hidden[current].seq : null;
  useEffect(() => {
    if (target === null || !onReveal) return;
    onReveal(target);
    let frame = 0;
    const wait = () => {
      const el = root();
      if (el && firstShown(el) <= target) {
        keep.current = true;
        setTick((t) => t + 1);
      } else frame = requestAnimationFrame(wait);
    };
    frame = requestAnimationFrame(wait);
    return () => cancelAnimationFrame(frame);
  }, [target, onReveal, root]);

  useShowMatches(ranges, hidden.length, current);

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      setCurrent((c) => step(c, total, e.shiftKey));
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
      <button type="button" className="small" aria-label="Previous match" disabled={total === 0} onClick={() => setCurrent((c) => step(c, total, true))}>
        ↑
      </button>
      <button type="button" className="small" aria-label="Next match" disabled={total === 0} onClick={() => setCurrent((c) => step(c, total, false))}>
        ↓
      </button>
      <button type="button" className="small" aria-label="Close find" onClick={onClose}>
        ×
      </button>
    </div>
  );
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
