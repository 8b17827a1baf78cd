import { useMemo } from 'react';
import { Markdown } from './LazyMarkdown';

/**
 * Splits text into blocks at blank lines that are outside code fences. Every
 * block but the last is complete: it will not change as more text streams in.
 */
export function splitBlocks(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  let fence = false;
  let lineStart = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i] !== '\n') continue;
    const line = text.slice(lineStart, i);
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    else if (!fence && line.trim() === '' && lineStart > start) {
      blocks.push(text.slice(start, lineStart));
      start = i + 1;
    }
    lineStart = i + 1;
  }
  if (start < text.length) blocks.push(text.slice(start));
  return blocks;
}

/**
 * Markdown that is still streaming in. Finished blocks are rendered once
 * (Markdown is memoized on its text); each frame re-parses only the last,
 * growing block, so the cost of a frame does not grow with the reply.
 */
export function StreamingMarkdown({ text }: { text: string }) {
  const blocks = useMemo(() => splitBlocks(text), [text]);
  return (
    <div className="streaming-md">
      {blocks.map((b, i) => (
        <Markdown key={i} text={b} />
      ))}
    </div>
  );
}
