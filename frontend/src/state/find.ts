// Find in the session (Ctrl+F): where a query occurs in the text the conversation shows.
// WebKitGTK has no find bar of its own, so the page finds in its own text nodes, and in the
// rows of the session it has not rendered (long sessions render their last rows only).

import type { Row } from '../api/types';

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

/** What a row shows that find searches: messages, reasoning, tool arguments and output, notes. */
export function rowTexts(row: Row): string[] {
  if (!row.payload) return []; // an old row may hold null
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? [v] : []);
  switch (row.kind) {
    case 'assistant': {
      const a = row.payload;
      return [...str(a.reasoning), ...str(a.text), ...(a.tool_calls ?? []).flatMap((c) => str(c.arguments))];
    }
    case 'tool_result':
      return str(row.payload.content);
    case 'approval':
      return str(row.payload.reason);
    case 'user':
    case 'note':
    case 'summary':
    case 'system':
      return str(row.payload.text);
    default:
      return [];
  }
}

/**
 * The matches in rows the conversation has not rendered (seq < firstShown): one entry per
 * match, with its row, oldest first. The rendered rows are searched in the page's own text.
 */
export function hiddenMatches(rows: Row[], firstShown: number, query: string): { seq: number }[] {
  if (query.trim() === '') return [];
  const out: { seq: number }[] = [];
  for (const r of rows) {
    if (r.seq >= firstShown) break;
    for (let n = findMatches(rowTexts(r), query).length; n > 0; n--) out.push({ seq: r.seq });
  }
  return out;
}
