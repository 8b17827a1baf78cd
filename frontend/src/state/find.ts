// Find in the session (Ctrl+F): where a query occurs in the text the conversation shows.
// WebKitGTK has no find bar of its own, so the page finds in its own text nodes.

/** One match: the index of the text it is in and its offset there. */
export interface Match {
  text: number;
  offset: number;
}

/**
 * Every occurrence of query in texts, in order, case-insensitive (as people expect of a
 * find bar), not overlapping. An empty or blank query matches nothing.
 */
export function findMatches(texts: string[], query: string): Match[] {
  const q = query.toLocaleLowerCase();
  if (q.trim() === '') return [];
  const out: Match[] = [];
  texts.forEach((t, i) => {
    const low = t.toLocaleLowerCase();
    // A lowercased character of another length would shift offsets: match on the original then.
    const hay = low.length === t.length ? low : t;
    for (let at = hay.indexOf(q); at >= 0; at = hay.indexOf(q, at + q.length)) out.push({ text: i, offset: at });
  });
  return out;
}

/** The next match after current (Enter) or before it (Shift+Enter), wrapping around. */
export function step(current: number, count: number, back: boolean): number {
  if (count === 0) return -1;
  if (current < 0) return back ? count - 1 : 0;
  return (current + (back ? count - 1 : 1)) % count;
}
