import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

const openURL = vi.fn();
vi.mock('../api/backend', () => ({ api: { openURL: (u: string) => openURL(u) } }));

import { Markdown } from './Markdown';

describe('Markdown', () => {
  it('never interprets model text as HTML', () => {
    const { container } = render(
      <Markdown text={'hello <img src=x onerror="alert(1)"> <script>alert(2)</script> <b>bold?</b>'} />,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.textContent).toContain('hello');
  });

  it('renders GFM and opens links in the system browser, not the window', () => {
    const { container } = render(<Markdown text={'| a | b |\n|---|---|\n| 1 | 2 |\n\n[docs](https://example.com/x) [bad](javascript:alert(1))'} />);
    expect(container.querySelector('table')).not.toBeNull();
    const link = screen.getByRole('link', { name: 'docs' });
    const ev = new MouseEvent('click', { bubbles: true, cancelable: true });
    fireEvent(link, ev);
    expect(ev.defaultPrevented).toBe(true);
    expect(openURL).toHaveBeenCalledWith('https://example.com/x');
    openURL.mockClear();
    fireEvent.click(screen.getByText('bad'));
    expect(openURL).not.toHaveBeenCalled();
  });

  it('highlights fenced code as spans, not HTML, once its grammar has loaded', async () => {
    const { container } = render(<Markdown text={'```go\nfunc main() { fmt.Println("<b>hi</b>") }\n```'} />);
    // The code shows at once, as text; the Go grammar arrives on demand.
    expect(container.querySelector('pre code')?.textContent).toContain('func main()');
    await waitFor(() => expect(container.querySelector('pre code')?.className).toContain('hljs'));
    const code = container.querySelector('pre code')!;
    expect(code.querySelector('.hljs-keyword')?.textContent).toBe('func');
    expect(code.querySelector('b')).toBeNull();
    expect(code.textContent).toContain('"<b>hi</b>"');
  });

  it('leaves code in an unknown language as plain text', () => {
    const { container } = render(<Markdown text={'```klingon\nqapla\n```'} />);
    expect(container.querySelector('pre code')?.textContent).toBe('qapla\n');
    expect(container.querySelector('pre code')?.className).not.toContain('hljs');
  });
});
