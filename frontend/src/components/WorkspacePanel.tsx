import { useId, useMemo, useState, type KeyboardEvent } from 'react';
import type { FileEntry, FilePreview, Touched } from '../api/types';
import { formatSize } from '../lib/format';
import { FileHistory } from './FileChanges';

interface Props {
  workspace: string;
  files: FileEntry[];
  touched: Touched[];
  preview: FilePreview | null;
  warning: string;
  error: string;
  onChoose: () => void;
  onOpen: (path: string) => void;
  onClosePreview: () => void;
  onShowRow: (seq: number) => void;
}

interface TreeNode {
  name: string;
  path: string;
  dir: boolean;
  size: number;
  children: TreeNode[];
}

/** Builds the folder tree from the flat "/"-separated list (folders first, then by name). */
export function buildTree(files: FileEntry[]): TreeNode[] {
  const root: TreeNode = { name: '', path: '', dir: true, size: 0, children: [] };
  const dirs = new Map<string, TreeNode>([['', root]]);
  const ensureDir = (path: string): TreeNode => {
    const found = dirs.get(path);
    if (found) return found;
    const cut = path.lastIndexOf('/');
    const parent = ensureDir(cut < 0 ? '' : path.slice(0, cut));
    const node: TreeNode = { name: path.slice(cut + 1), path, dir: true, size: 0, children: [] };
    parent.children.push(node);
    dirs.set(path, node);
    return node;
  };
  for (const f of files) {
    if (f.dir) {
      ensureDir(f.path);
      continue;
    }
    const cut = f.path.lastIndexOf('/');
    ensureDir(cut < 0 ? '' : f.path.slice(0, cut)).children.push({ name: f.path.slice(cut + 1), path: f.path, dir: false, size: f.size, children: [] });
  }
  const sort = (n: TreeNode) => {
    n.children.sort((a, b) => (a.dir === b.dir ? a.name.localeCompare(b.name) : a.dir ? -1 : 1));
    n.children.forEach(sort);
  };
  sort(root);
  return root.children;
}

/**
 * The workspace tab: the folder (native picker), its file tree kept live by
 * the watcher, files the agent touched (marked, linked to the row that
 * touched them) and a preview of the chosen file.
 */
export function WorkspacePanel({ workspace, files, touched, preview, warning, error, onChoose, onOpen, onClosePreview, onShowRow }: Props) {
  const tree = useMemo(() => buildTree(files), [files]);
  const byPath = useMemo(() => {
    const m = new Map<string, Touched[]>();
    for (const t of touched) m.set(t.path, [...(m.get(t.path) ?? []), t]);
    return m;
  }, [touched]);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (path: string) =>
    setOpen((s) => {
      const n = new Set(s);
      if (n.has(path)) n.delete(path);
      else n.add(path);
      return n;
    });

  return (
    <div className="workspace">
      <div className="row">
        <span className="ws-path" title={workspace}>
          {workspace || 'No folder chosen'}
        </span>
        <button type="button" onClick={onChoose}>
          Choose folder
        </button>
      </div>
      {warning && (
        <p role="alert" className="warn">
          {warning}
        </p>
      )}
      {error && (
        <p role="alert" className="bad">
          {error}
        </p>
      )}
      {touched.length > 0 && (
        <section aria-label="Touched files" className="touched">
          <h3>Touched by the agent</h3>
          <ul>
            {uniqueLatest(touched).map((t) => (
              <li key={t.path}>
                <button type="button" className="linklike" onClick={() => onOpen(t.path)}>
                  {t.path}
                </button>{' '}
                <span className={t.changed ? 'badge changed' : 'badge'}>{t.changed ? 'changed' : 'read'}</span>{' '}
                <button type="button" className="linklike" aria-label={`Show row ${t.seq}`} onClick={() => onShowRow(t.seq)}>
                  #{t.seq}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {workspace && (
        <ul role="tree" aria-label="Workspace files" className="tree">
          {tree.map((n) => (
            <TreeItem key={n.path} node={n} level={1} open={open} toggle={toggle} byPath={byPath} onOpen={onOpen} onShowRow={onShowRow} />
          ))}
          {files.length === 0 && <li className="empty">The folder is empty.</li>}
        </ul>
      )}
      {preview && (
        <section className="preview" aria-label={`Preview of ${preview.path}`}>
          <header className="row">
            <strong>{preview.path}</strong>
            <button type="button" aria-label="Close preview" onClick={onClosePreview}>
              ×
            </button>
          </header>
          <FileHistory path={preview.path} onShowRow={onShowRow} />
          {preview.binary ? <p className="muted">A binary file: not shown.</p> : <pre>{preview.content}</pre>}
          {preview.truncated && <p className="muted">Only the beginning of the file is shown.</p>}
        </section>
      )}
    </div>
  );
}

function uniqueLatest(touched: Touched[]): Touched[] {
  const m = new Map<string, Touched>();
  for (const t of touched) {
    const prev = m.get(t.path);
    if (!prev || t.seq > prev.seq) m.set(t.path, { ...t, changed: t.changed || Boolean(prev?.changed) });
  }
  return [...m.values()].sort((a, b) => b.seq - a.seq);
}

function TreeItem({
  node,
  level,
  open,
  toggle,
  byPath,
  onOpen,
  onShowRow,
}: {
  node: TreeNode;
  level: number;
  open: Set<string>;
  toggle: (path: string) => void;
  byPath: Map<string, Touched[]>;
  onOpen: (path: string) => void;
  onShowRow: (seq: number) => void;
}) {
  const id = useId();
  const expanded = open.has(node.path);
  const touched = byPath.get(node.path);
  const last = touched?.reduce((a, b) => (b.seq > a.seq ? b : a));
  const activate = () => (node.dir ? toggle(node.path) : onOpen(node.path));
  const onKeyDown = (e: KeyboardEvent<HTMLLIElement>) => {
    if (e.target !== e.currentTarget) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      activate();
    } else if (node.dir && e.key === 'ArrowRight' && !expanded) toggle(node.path);
    else if (node.dir && e.key === 'ArrowLeft' && expanded) toggle(node.path);
  };
  return (
    <li
      role="treeitem"
      aria-level={level}
      aria-expanded={node.dir ? expanded : undefined}
      // A folder is named by its name alone (its children are items of their own); a file by all
      // it shows (name, size, last change), so the name holds the visible label.
      aria-labelledby={node.dir ? `${id}-label` : undefined}
      tabIndex={0}
      className={`${node.dir ? 'dir' : 'file'}${touched ? ' touched' : ''}`}
      onKeyDown={onKeyDown}
    >
      <span
        className="tree-label"
        onClick={(e) => {
          e.stopPropagation();
          activate();
        }}
      >
        <span aria-hidden="true">{node.dir ? (expanded ? '▾ ' : '▸ ') : '  '}</span>
        <span id={`${id}-label`}>{node.name}</span>
        {!node.dir && (
          <span className="muted size">
            {' '}
            {formatSize(node.size)}
          </span>
        )}
      </span>
      {last && (
        <button type="button" className="linklike touched-link" title={`${last.tool} at row ${last.seq}`} onClick={() => onShowRow(last.seq)}>
          <span aria-hidden="true">{last.changed ? '●' : '○'}</span> {last.changed ? 'changed' : 'read'} #{last.seq}
          <span className="sr-only">: show row {last.seq}</span>
        </button>
      )}
      {node.dir && expanded && (
        <ul role="group">
          {node.children.map((c) => (
            <TreeItem key={c.path} node={c} level={level + 1} open={open} toggle={toggle} byPath={byPath} onOpen={onOpen} onShowRow={onShowRow} />
          ))}
        </ul>
      )}
    </li>
  );
}
