import ReactMarkdown, { type Components } from 'react-markdown';
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

/**
 * Model text rendered as markdown. Raw HTML in the text is dropped (skipHtml)
 * and never interpreted; react-markdown builds React elements, not HTML strings.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
