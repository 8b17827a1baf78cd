// What a screen reader is told of the reply streaming in and of a call that needs the person:
// whole sentences, never tokens, and plain words rather than Markdown's marks.

/** Where a sentence ends: its stop (and closing quotes) before a space, a CJK stop, or a line's end. */
const END = /[.!?…]+["'”’)\]]*(?=\s)|[。！？]|\n/g;

/**
 * The sentences of text completed after from: what to say now and where the next call starts.
 * With final, the rest is said too (the reply ended mid-sentence).
 */
export function nextSentences(text: string, from: number, final: boolean): { say: string; to: number } {
  let to = from;
  if (final) to = text.length;
  else {
    END.lastIndex = from;
    for (let m = END.exec(text); m; m = END.exec(text)) to = m.index + m[0].length;
  }
  return { say: plain(text.slice(from, to)), to };
}

/** Markdown as words: no emphasis marks, code fences, heading marks or link targets. */
export function plain(md: string): string {
  return md
    .replace(/^```.*$/gm, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|[-*+]|>)\s+/gm, '')
    .replace(/[*_`~]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A call waiting for the person, as announced: where, which tool, and what it would run. */
export interface ApprovalNotice {
  session: string;
  tool: string;
  /** The command of a shell call, the path of a file call, else the arguments (shortened). */
  what: string;
}

const WHAT_MAX = 300;

/** What an approval announcement names from a call's arguments. */
export function approvalWhat(args: unknown): string {
  if (args && typeof args === 'object') {
    const a = args as Record<string, unknown>;
    for (const k of ['command', 'path', 'url']) if (typeof a[k] === 'string') return short(a[k] as string);
  }
  return short(typeof args === 'string' ? args : JSON.stringify(args ?? {}));
}

function short(s: string): string {
  return s.length > WHAT_MAX ? `${s.slice(0, WHAT_MAX)}…` : s;
}
