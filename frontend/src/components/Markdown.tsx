import { memo, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { openLink } from '../hooks/useSystem';
import { CopyButton } from './MessageControls';
import { fenceLanguages, languagesReady, loadLanguages, onHighlightLoaded, rehypeLazyHighlight } from '../lib/highlight';

// Links never navigate the app's own window: a click opens the system
// browser, and only for http(s) and mailto addresses.
const components: Components = {
  a: ({ href, children }) => (
    <a
      href={href}
      onClick={(e) => {
        e.preventDefault();
        openLink(href);
      }}
      rel="noreferrer noopener"
    >
      {children}
    </a>
  ),
  // No remote images: the CSP blocks them anyway; show the alt text instead.
  img: ({ alt }) => <span className="md-img">[image: {alt}]</span>,
  pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
};

/** A code block with "Copy code": it copies the code as shown, without the highlighting. */
function CodeBlock({ children }: { children?: ReactNode }) {
  const pre = useRef<HTMLPreElement>(null);
  return (
    <div className="code-block">
      <pre ref={pre}>{children}</pre>
      <CopyButton label="Copy code" text={() => pre.current?.textContent ?? ''} />
    </div>
  );
}

const remarkPlugins = [remarkGfm];
// Highlighting builds hast nodes (class names on spans), never HTML strings; a language's
// grammar is loaded the first time a fence names it (lib/highlight.ts).
const rehypePlugins = [rehypeLazyHighlight];

/** Loads the grammars text's fences need; re-renders (once each) as they arrive. */
function useGrammars(text: string) {
  const langs = useMemo(() => fenceLanguages(text), [text]);
  const [, setLoaded] = useState(0);
  const ready = languagesReady(langs);
  useEffect(() => {
    if (ready) return;
    const off = onHighlightLoaded(() => languagesReady(langs) && setLoaded((n) => n + 1));
    loadLanguages(langs);
    return off;
  }, [langs, ready]);
  return ready;
}

/**
 * Model text rendered as markdown. Raw HTML in the text is dropped (skipHtml)
 * and never interpreted; react-markdown builds React elements, not HTML strings.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const ready = useGrammars(text);
  return (
    <div className="markdown" data-highlighted={ready || undefined}>
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} skipHtml components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
