import { useCallback, useEffect, useState, type DragEvent, type MouseEvent } from 'react';
import { api } from '../api/backend';
import type { FileSize, SessionSummary, Size } from '../api/types';
import { errorMessage } from '../api/types';
import { clickSelect, describeDeleted, noSelection, type Selection } from '../state/organise';

/** How many archived sessions "Show archived" lists. */
export const ARCHIVED_SHOWN = 200;

/** The drag's data: the ids of the sessions dragged. */
export const DRAG_TYPE = 'application/x-loopdesk-sessions';

interface Args {
  /** The open session. */
  selected: string | null;
  open: (id: string) => void;
  /** Reads the session list again. */
  refresh: () => Promise<unknown>;
  /** The open session went (deleted): the window shows none. */
  onClosed: () => void;
}

/**
 * The session list's organising: the selection (Shift and Ctrl/⌘ clicks), the actions on it
 * (archive, delete, export, move to a project), dragging onto a project, the archived sessions
 * ("Show archived") and the project names. What an action did is `note`; why it failed, `error`.
 */
export function useOrganise({ selected, open, refresh, onClosed }: Args) {
  const [sel, setSel] = useState<Selection>(noSelection);
  const [showArchived, setShowArchived] = useState(false);
  const [archived, setArchived] = useState<SessionSummary[]>([]);
  const [projects, setProjects] = useState<string[]>([]);
  const [note, setNote] = useState('');
  const [error, setError] = useState('');

  const reload = useCallback(async () => {
    setProjects(await api.projects());
    // The most recent archived sessions: search finds the others.
    setArchived(showArchived ? (await api.listSessionsPage(true, '', ARCHIVED_SHOWN)).sessions : []);
  }, [showArchived]);
  useEffect(() => {
    reload().catch((e) => setError(errorMessage(e)));
  }, [reload]);

  const run = useCallback(
    async (fn: () => Promise<string>) => {
      try {
        setNote(await fn());
        setError('');
        setSel(noSelection);
      } catch (e) {
        setError(errorMessage(e));
      }
      await Promise.all([refresh(), reload()]).catch((e) => setError(errorMessage(e)));
    },
    [refresh, reload],
  );

  const archive = (ids: string[], on = true) =>
    run(async () => {
      await api.archiveSessions(ids, on);
      return `${on ? 'Archived' : 'Brought back'} ${ids.length === 1 ? '1 session' : `${ids.length} sessions`}.`;
    });
  const move = (ids: string[], project: string) =>
    run(async () => {
      await api.moveToProject(ids, project);
      const n = ids.length === 1 ? '1 session' : `${ids.length} sessions`;
      return project ? `Moved ${n} to “${project}”.` : `Took ${n} out of their project.`;
    });
  const remove = (ids: string[]) =>
    run(async () => {
      const ds = await api.deleteSessions(ids);
      if (selected && ds.some((d) => d.deleted === selected)) onClosed();
      return describeDeleted(ds);
    });
  const exportTo = (ids: string[]) =>
    run(async () => {
      const dir = await api.exportSessions(ids);
      return dir ? `Exported ${ids.length} to ${dir}.` : '';
    });

  /** A click on a session: Shift selects a range, Ctrl or ⌘ one more; a plain click opens it. */
  const click = (e: MouseEvent, id: string, order: string[]) => {
    if (e.shiftKey || e.ctrlKey || e.metaKey) {
      e.preventDefault();
      setNote('');
      setSel((s) => clickSelect(s, id, e.shiftKey ? 'range' : 'toggle', order, selected));
      return;
    }
    setSel(noSelection);
    open(id);
  };
  /** Dragging a selected session drags the whole selection. */
  const dragStart = (e: DragEvent, id: string) => {
    const ids = sel.ids.includes(id) ? sel.ids : [id];
    e.dataTransfer.setData(DRAG_TYPE, JSON.stringify(ids));
    e.dataTransfer.effectAllowed = 'move';
  };
  const drop = (e: DragEvent, project: string) => {
    const data = e.dataTransfer.getData(DRAG_TYPE);
    if (!data) return;
    e.preventDefault();
    void move(JSON.parse(data) as string[], project);
  };

  return {
    selection: sel.ids,
    clear: () => setSel(noSelection),
    showArchived,
    setShowArchived,
    archived,
    projects,
    note,
    error,
    dismiss: () => {
      setNote('');
      setError('');
    },
    archive,
    move,
    remove,
    exportTo,
    click,
    dragStart,
    drop,
  };
}

export type Organise = ReturnType<typeof useOrganise>;

/**
 * The open session's place for its header: what it takes on disk (read again when version,
 * its row count, moves), the project names, and a move to another project.
 */
export function useSessionPlace(id: string | null, version: number, refresh: () => Promise<unknown>) {
  const [size, setSize] = useState<Size | null>(null);
  const [projects, setProjects] = useState<string[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    setSize(null);
    if (!id) return;
    api.sessionSize(id).then(
      (s) => live && setSize(s),
      () => live && setSize(null),
    );
    api.projects().then(
      (p) => live && setProjects(p),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [id, version]);
  const move = async (project: string) => {
    if (!id) return;
    try {
      await api.moveToProject([id], project);
      setError('');
      await refresh();
      setProjects(await api.projects());
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return { size, projects, move, error };
}

/** The database's size on disk for Settings, and Compact (a full rewrite without free space). */
export function useDatabaseSize() {
  const [size, setSize] = useState<FileSize | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  useEffect(() => {
    api.databaseSize().then(setSize, (e) => setError(errorMessage(e)));
  }, []);
  const compact = async () => {
    setBusy(true);
    try {
      setSize(await api.compactDatabase());
      setError('');
    } catch (e) {
      setError(errorMessage(e));
    }
    setBusy(false);
  };
  return { size, busy, error, compact };
}
