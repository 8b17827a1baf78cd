import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { FileEntry } from '../api/types';
import { WorkspacePanel, buildTree } from './WorkspacePanel';

const files: FileEntry[] = [
  { path: 'src', dir: true, size: 0 },
  { path: 'src/main.go', dir: false, size: 120 },
  { path: 'README.md', dir: false, size: 2048 },
  { path: 'docs/a/deep.md', dir: false, size: 3 },
];

function setup(over: Partial<Parameters<typeof WorkspacePanel>[0]> = {}) {
  const p = {
    workspace: '/home/me/p', files, touched: [], preview: null, warning: '', error: '',
    onChoose: vi.fn(), onOpen: vi.fn(), onClosePreview: vi.fn(), onShowRow: vi.fn(), ...over,
  };
  render(<WorkspacePanel {...p} />);
  return p;
}

describe('WorkspacePanel', () => {
  it('builds folders first, creating parents the list leaves implicit', () => {
    const t = buildTree(files);
    expect(t.map((n) => n.name)).toEqual(['docs', 'src', 'README.md']);
    expect(t[0].children[0].children[0].path).toBe('docs/a/deep.md');
  });

  it('shows the tree, expands folders and previews files', async () => {
    const p = setup();
    const tree = screen.getByRole('tree', { name: 'Workspace files' });
    const src = within(tree).getByRole('treeitem', { name: 'src' });
    expect(src.getAttribute('aria-expanded')).toBe('false');
    expect(within(tree).queryByRole('treeitem', { name: /^main\.go / })).toBeNull();
    await userEvent.click(within(src).getByText('src'));
    expect(src.getAttribute('aria-expanded')).toBe('true');
    await userEvent.click(within(tree).getByText('main.go'));
    expect(p.onOpen).toHaveBeenCalledWith('src/main.go');
    await userEvent.click(screen.getByRole('button', { name: 'Choose folder' }));
    expect(p.onChoose).toHaveBeenCalled();
  });

  it('marks touched files and links them to the row that touched them', async () => {
    const p = setup({ touched: [{ path: 'README.md', seq: 4, tool: 'read_file', changed: false }, { path: 'README.md', seq: 9, tool: 'edit_file', changed: true }] });
    const item = screen.getByRole('treeitem', { name: /^README\.md / });
    expect(item.className).toContain('touched');
    await userEvent.click(within(item).getByRole('button', { name: /^changed #9\W+show row 9$/ }));
    expect(p.onShowRow).toHaveBeenCalledWith(9);
    expect(within(screen.getByRole('region', { name: 'Touched files' })).getByText('changed')).toBeTruthy();
  });

  it('shows a preview as text', () => {
    setup({ preview: { path: 'x.html', content: '<script>alert(1)</script>', truncated: true, binary: false } });
    const prev = screen.getByRole('region', { name: 'Preview of x.html' });
    expect(prev.querySelector('script')).toBeNull();
    expect(prev.textContent).toContain('<script>alert(1)</script>');
    expect(prev.textContent).toContain('Only the beginning');
  });
});
