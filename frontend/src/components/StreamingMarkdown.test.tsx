import { render, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

vi.mock('../api/backend', () => ({ api: { openURL: () => {} } }));

import { StreamingMarkdown, splitBlocks } from './StreamingMarkdown';

describe('StreamingMarkdown', () => {
  it('splits at blank lines outside code fences only', () => {
    expect(splitBlocks('a\nb\n\nc')).toEqual(['a\nb\n', 'c']);
    expect(splitBlocks('x\n\n```\none\n\ntwo\n```\n\ny')).toEqual(['x\n', '```\none\n\ntwo\n```\n', 'y']);
    expect(splitBlocks('only')).toEqual(['only']);
    expect(splitBlocks('end\n\n')).toEqual(['end\n']);
  });

  it('renders the same as the whole text would, and never HTML', async () => {
    const text = '# Title\n\nsome *text* <img src=x onerror=alert(1)>\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n- a\n- b';
    const { container } = render(<StreamingMarkdown text={text} />);
    // Plain text (never HTML) until the markdown renderer has loaded.
    expect(container.querySelector('img')).toBeNull();
    await waitFor(() => expect(container.querySelector('h1')?.textContent).toBe('Title'));
    expect(container.querySelector('em')?.textContent).toBe('text');
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('pre code')?.textContent).toBe('const a = 1;\n\nconst b = 2;\n');
    expect(container.querySelectorAll('li')).toHaveLength(2);
  });
});
