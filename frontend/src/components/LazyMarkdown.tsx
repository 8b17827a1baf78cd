import { lazy, memo, Suspense } from 'react';

// The markdown renderer (react-markdown, remark-gfm, the highlighter) is the largest part of
// the page's script: it loads after the first paint, and the text shows as plain text until
// it is in.
const Impl = lazy(() => import('./Markdown').then((m) => ({ default: m.Markdown })));

/** Markdown, loaded on first use; until then the text, unformatted (never as HTML). */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <Suspense fallback={<div className="markdown plain">{text}</div>}>
      <Impl text={text} />
    </Suspense>
  );
});
