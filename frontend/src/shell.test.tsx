// index.html paints the app's frame before the script runs (docs/benchmarks.md, "The frame
// before the script"). React replaces it on its first commit, so it must look exactly like
// what replaces it: the same elements, classes and words as SessionBrowser's fixed parts.
import { render } from '@testing-library/react';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SessionBrowser } from './components/SessionBrowser';

const html = readFileSync(resolve(__dirname, '..', 'index.html'), 'utf8');

function shell(): HTMLElement {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const root = doc.getElementById('root');
  if (!root?.firstElementChild) throw new Error('index.html has no frame in #root');
  return root.firstElementChild as HTMLElement;
}

/** What a person sees of an element: tag, classes, input type and placeholder, own text; the
 * session list's contents (which React fills in) left out. */
function outline(el: Element): unknown {
  const classes = [...el.classList].sort().join(' ');
  const own = [...el.childNodes]
    .filter((n) => n.nodeType === 3)
    .map((n) => n.textContent)
    .join('')
    .trim();
  const kids = el.classList.contains('session-groups') ? [] : [...el.children].map(outline);
  return [el.tagName.toLowerCase(), classes, el.getAttribute('type') ?? '', el.getAttribute('placeholder') ?? '', own, kids];
}

describe("index.html's frame", () => {
  it('is the session list SessionBrowser renders, with nothing React would move', () => {
    const { container } = render(
      <SessionBrowser
        sessions={[]}
        selected={null}
        query=""
        onQuery={vi.fn()}
        hits={[]}
        searching={false}
        searchError=""
        onSelect={vi.fn()}
        onOpenHit={vi.fn()}
        onNew={vi.fn()}
        onImport={vi.fn()}
        onSettings={vi.fn()}
      />,
    );
    const nav = shell().querySelector('nav');
    expect(nav).not.toBeNull();
    expect(outline(nav!)).toEqual(outline(container.querySelector('nav')!));
  });

  it('cannot be used or read out before the page has started, and lays out as the app does', () => {
    const frame = shell();
    expect(frame.getAttribute('aria-hidden')).toBe('true');
    expect(frame.hasAttribute('inert')).toBe(true);
    // The columns App uses while Settings shows (its first frame on a new install); the
    // main area is empty until React fills it.
    expect([...frame.classList]).toEqual(expect.arrayContaining(['app', 'settings-open', 'shell']));
    expect(frame.querySelector('main.main')?.childElementCount).toBe(0);
  });
});
