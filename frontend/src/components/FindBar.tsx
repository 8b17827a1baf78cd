import { useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { findMatches, step } from '../state/find';

interface Props {
  /** The element to search: the conversation (messages, tool arguments and output). */
  root: () => HTMLElement | null;
  /** Changes when the conversation does, so the matches are found again. */
  version: unknown;
  onClose: () => void;
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
 * its own. It searches the rows on screen ("Show earlier messages" brings older ones in).
 */
export function FindBar({ root, version, onClose }: Props) {
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(-1);
  const ranges = useMemo(() => {
    const el = root();
    if (!el) return [];
    const nodes = textNodes(el);
    return findMatches(
      nodes.map((n) => n.data),
      query,
    ).map((m) => {
      const r = document.createRange();
      r.setStart(nodes[m.text], m.offset);
      r.setEnd(nodes[m.text], m.offset + query.length);
      return r;
    });
    // version: the conversation's rows changed, so its text did.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [query, version, root]);

  useEffect(() => setCurrent(ranges.length > 0 ? 0 : -1), [ranges]);

  useEffect(() => {
    const hl = highlights();
    if (hl && Highlight) hl.set('find', new Highlight(...ranges));
    const r = ranges[current];
    const el = r?.startContainer.parentElement;
    if (hl && Highlight) hl.set('find-current', r ? new Highlight(r) : new Highlight());
    if (!el) return;
    // A match in a folded result opens it, so it can be seen.
    for (let d = el.closest('details'); d; d = d.parentElement?.closest('details') ?? null) d.open = true;
    el.classList.add('find-current');
    el.scrollIntoView?.({ block: 'center' });
    return () => el.classList.remove('find-current');
  }, [ranges, current]);

  useEffect(
    () => () => {
      highlights()?.delete('find');
      highlights()?.delete('find-current');
    },
    [],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      setCurrent((c) => step(c, ranges.length, e.shiftKey));
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation(); // Esc closes the bar and stops no run
      onClose();
    }
  };
  const count = query.trim() === '' ? '' : ranges.length === 0 ? 'No matches' : `${current + 1} of ${ranges.length}`;
  return (
    <div className="find-bar" role="search">
      <input aria-label="Find in session" placeholder="Find in session" value={query} autoFocus onChange={(e) => setQuery(e.target.value)} onKeyDown={onKeyDown} />
      <span className="find-count" role="status" aria-label="Matches">
        {count}
      </span>
      <button type="button" className="small" aria-label="Previous match" disabled={ranges.length === 0} onClick={() => setCurrent((c) => step(c, ranges.length, true))}>
        ↑
      </button>
      <button type="button" className="small" aria-label="Next match" disabled={ranges.length === 0} onClick={() => setCurrent((c) => step(c, ranges.length, false))}>
        ↓
      </button>
      <button type="button" className="small" aria-label="Close find" onClick={onClose}>
        ×
      </button>
    </div>
  );
}
