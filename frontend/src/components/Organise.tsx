import { useState, type DragEvent, type MouseEvent } from 'react';
import type { FileSize, SessionSummary, Size } from '../api/types';
import type { Organise } from '../hooks/useOrganise';
import { formatSize } from '../lib/format';
import { FocusTrap } from './FocusTrap';

/** What the session list needs to organise: selection, drag and drop, the bar and the archived. */
export interface ListOrganise {
  selected: ReadonlySet<string>;
  click: (e: MouseEvent, id: string, order: string[]) => void;
  dragStart: (e: DragEvent, id: string) => void;
  /** A drop on a group: its project ("" for a group of sessions in no project). */
  drop: (e: DragEvent, project: string) => void;
}

export function listOrganise(o: Organise): ListOrganise {
  return { selected: new Set(o.selection), click: o.click, dragStart: o.dragStart, drop: o.drop };
}

/** Over the list: what is selected and what can be done to it, "Show archived", and what an action did. */
export function OrganiseBar({ o }: { o: Organise }) {
  const [confirming, setConfirming] = useState(false);
  const ids = o.selection;
  return (
    <div className="organise-bar">
      {ids.length > 0 && (
        <div className="row selection" role="toolbar" aria-label="Selected sessions">
          <span className="count">{ids.length} selected</span>
          <button type="button" className="small" onClick={() => void o.archive(ids)}>
            Archive
          </button>
          <button type="button" className="small" onClick={() => void o.exportTo(ids)}>
            Export
          </button>
          <ProjectPicker label="Move to project" value={null} projects={o.projects} onPick={(p) => void o.move(ids, p)} />
          <button type="button" className="small danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
          <button type="button" className="small linklike" onClick={o.clear}>
            Clear
          </button>
        </div>
      )}
      {confirming && (
        <FocusTrap className="confirm" role="alertdialog" aria-label="Delete sessions?" aria-modal="true">
          <p>
            Delete {ids.length === 1 ? 'this session' : `these ${ids.length} sessions`} with their rows, images and checkpoints? Fork folders go too, unless they hold work
            neither committed nor brought back. This cannot be undone.
          </p>
          <div className="row">
            <button
              type="button"
              className="danger"
              onClick={() => {
                setConfirming(false);
                void o.remove(ids);
              }}
            >
              Delete {ids.length}
            </button>
            <button type="button" autoFocus onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </FocusTrap>
      )}
      <label className="show-archived">
        <input type="checkbox" checked={o.showArchived} onChange={(e) => o.setShowArchived(e.target.checked)} /> Show archived
      </label>
      {(o.note || o.error) && (
        <p role={o.error ? 'alert' : 'status'} className={o.error ? 'bad' : 'ok'} onClick={o.dismiss}>
          {o.error || o.note}
        </p>
      )}
    </div>
  );
}

/** The archived sessions, under the list while "Show archived" is on: open one, or bring it back. */
export function ArchivedGroup({ o, selected, onOpen }: { o: Organise; selected: string | null; onOpen: (id: string) => void }) {
  if (!o.showArchived) return null;
  return (
    <section aria-label="Archived" className="archived">
      <h2>Archived</h2>
      {o.archived.length === 0 && <p className="empty">No archived sessions.</p>}
      <ul>
        {o.archived.map((s: SessionSummary) => (
          <li key={s.id} className="row">
            <button type="button" className={s.id === selected ? 'session current' : 'session'} aria-current={s.id === selected ? 'page' : undefined} onClick={() => onOpen(s.id)}>
              <span className="session-title">{s.title || 'Untitled'}</span>
            </button>
            <button type="button" className="small" aria-label={`Unarchive ${s.title || 'Untitled'}`} onClick={() => void o.archive([s.id], false)}>
              Unarchive
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

const NEW = '\u0000new';
const NONE = '\u0000none';

/** A project chooser: the projects in use, "No project" and "New project…" (a name typed). */
export function ProjectPicker({ label, value, projects, onPick }: { label: string; value: string | null; projects: string[]; onPick: (project: string) => void }) {
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  if (naming) {
    return (
      <form
        className="row project-new"
        onSubmit={(e) => {
          e.preventDefault();
          setNaming(false);
          if (name.trim()) onPick(name.trim());
        }}
      >
        <input aria-label="New project name" value={name} autoFocus maxLength={80} onChange={(e) => setName(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && (e.preventDefault(), setNaming(false))} />
        <button type="submit" className="small primary" disabled={!name.trim()}>
          Move
        </button>
      </form>
    );
  }
  return (
    <select
      aria-label={label}
      className="project-picker"
      value={value === null ? '' : value || NONE}
      onChange={(e) => {
        const v = e.target.value;
        if (v === NEW) setNaming(true);
        else if (v) onPick(v === NONE ? '' : v);
      }}
    >
      {value === null && <option value="">{label}…</option>}
      <option value={NONE}>No project</option>
      {projects.map((p) => (
        <option key={p} value={p}>
          {p}
        </option>
      ))}
      {value && !projects.includes(value) && <option value={value}>{value}</option>}
      <option value={NEW}>New project…</option>
    </select>
  );
}

/** The open session's project (chosen here) and what it takes on disk, in its header. */
export function SessionPlace({ project, projects, size, onMove }: { project: string; projects: string[]; size: Size | null; onMove: (project: string) => void }) {
  return (
    <span className="session-place">
      <ProjectPicker label="Project" value={project} projects={projects} onPick={onMove} />
      {size && (
        <span className="muted session-size" title={`Rows ${formatSize(size.rows)}, images ${formatSize(size.images)}, checkpoints ${formatSize(size.checkpoints)}`}>
          {formatSize(size.total)} on disk
        </span>
      )}
    </span>
  );
}

/** Settings → Storage: what the database takes on disk, and Compact. */
export function DatabaseTotal({ size, busy, error, onCompact }: { size: FileSize | null; busy: boolean; error: string; onCompact: () => void }) {
  return (
    <>
      <h2>Storage</h2>
      {size && (
        <p className="database-size">
          The database takes <strong>{formatSize(size.bytes)}</strong> on disk{size.free > 0 ? `, ${formatSize(size.free)} of it free space` : ''}: <code>{size.path}</code>
        </p>
      )}
      <p className="hint">Deleting sessions gives their space back. Compact rewrites the whole file without free space; it waits for no run to be going.</p>
      <button type="button" disabled={busy} onClick={onCompact}>
        {busy ? 'Compacting…' : 'Compact database'}
      </button>
      {error && (
        <p role="alert" className="bad">
          {error}
        </p>
      )}
    </>
  );
}
