import { memo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { api } from '../api/backend';

// Links never navigate the app's own window: a click opens the system
// browser, and only for http(s) and mailto addresses.
const components: Components = {
  a: ({ href, children }) => (
    <a
      href={href}
      onClick={(e) => {
        e.preventDefault();
        if (href && /^(https?:|mailto:)/i.test(href)) api.openURL(href);
      }}
      rel="noreferrer noopener"
    >
      {children}
    </a>
  ),
  // No remote images: the CSP blocks them anyway; show the alt text instead.
  img: ({ alt }) => <span className="md-img">[image: {alt}]</span>,
};

const remarkPlugins = [remarkGfm];
// Highlighting builds hast nodes (class names on spans), never HTML strings.
const rehypePlugins = [rehypeHighlight];

/**
 * Model text rendered as markdown. Raw HTML in the text is dropped (skipHtml)
 * and never interpreted; react-markdown builds React elements, not HTML strings.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} skipHtml components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
