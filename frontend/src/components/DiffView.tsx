import { diffLines } from 'diff';
import { memo, useMemo } from 'react';

const MAX_LINES = 400;

interface Line {
  text: string;
  op: ' ' | '+' | '-';
}

function lines(before: string, after: string): Line[] {
  const out: Line[] = [];
  for (const part of diffLines(before, after)) {
    const op = part.added ? '+' : part.removed ? '-' : ' ';
    const ls = part.value.replace(/\n$/, '').split('\n');
    for (const text of ls) out.push({ text, op });
  }
  return out;
}

/** A line diff of before → after, as text in the page (never HTML). */
export const DiffView = memo(function DiffView({ before, after, label }: { before: string; after: string; label: string }) {
  const all = useMemo(() => lines(before, after), [before, after]);
  const shown = all.slice(0, MAX_LINES);
  const added = all.filter((l) => l.op === '+').length;
  const removed = all.filter((l) => l.op === '-').length;
  return (
    <figure className="diff" aria-label={label}>
      <figcaption>
        <span className="add">+{added}</span> <span className="del">−{removed}</span>
      </figcaption>
      <pre>
        {shown.map((l, i) => (
          <div key={i} className={l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'ctx'}>
            {l.op} {l.text}
          </div>
        ))}
        {all.length > MAX_LINES && <div className="ctx">… {all.length - MAX_LINES} more lines</div>}
      </pre>
    </figure>
  );
});
