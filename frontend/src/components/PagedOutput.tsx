import { useState } from 'react';
import type { OutputCut, ToolResultPayload } from '../api/types';
import { formatSize } from '../lib/format';

/** A tool result as the page got it: whole, or cut by Go to its head (content) and tail. */
export type PagedPayload = ToolResultPayload & { cut?: OutputCut };

function countLines(s: string): number {
  if (!s) return 0;
  const n = s.split('\n').length;
  return s.endsWith('\n') ? n - 1 : n;
}

/** How many lines the result has, cut or not. */
export function resultLines(p: PagedPayload): number {
  return p.cut ? p.cut.total_lines : countLines(p.content);
}

/**
 * A tool result's output. A big one came cut: its first and last screenful, with the lines
 * between left in Go until "Show all" asks for them (more: the whole output, or null).
 */
export function PagedOutput({ payload, seq, more }: { payload: PagedPayload; seq: number; more?: (seq: number) => Promise<string | null> }) {
  const [all, setAll] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const cut = payload.cut;
  if (!cut || all !== null) return <pre>{all ?? payload.content}</pre>;
  const hidden = cut.total_lines - countLines(payload.content) - countLines(cut.tail);
  return (
    <div className="paged-output">
      <pre className="output-head">{payload.content}</pre>
      <div className="output-gap row" role="group" aria-label="Hidden output">
        <span className="muted">
          {hidden > 0 ? `${hidden} more line${hidden === 1 ? '' : 's'}` : 'More'} · {cut.total_lines} lines, {formatSize(cut.total_bytes)} in all
        </span>
        {more && (
          <button
            type="button"
            className="small"
            disabled={loading}
            onClick={async () => {
              setLoading(true);
              const text = await more(seq);
              setLoading(false);
              if (text !== null) setAll(text);
            }}
          >
            {loading ? 'Loading…' : 'Show all'}
          </button>
        )}
      </div>
      <pre className="output-tail">{cut.tail}</pre>
    </div>
  );
}
