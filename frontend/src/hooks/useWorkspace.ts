import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { api } from '../api/backend';
import type { FileEntry, FilePreview, Row, Touched } from '../api/types';
import { errorMessage } from '../api/types';

/**
 * Whether a row after seq through may add touched files: a call's row (what it reads) or a
 * result row (what it changed: Go reads the checkpoints, which link changes to the result).
 */
function callsAfter(rows: Row[], through: number): boolean {
  for (let i = rows.length - 1; i >= 0 && rows[i].seq > through; i--) {
    const r = rows[i];
    if (r.kind === 'tool_result') return true;
    if (r.kind === 'assistant' && (r.payload.tool_calls?.length ?? 0) > 0) return true;
  }
  return false;
}

/**
 * The workspace of one session: its files (re-listed, debounced, when the
 * watcher reports changes to that folder), the files the agent touched
 * (read once when the session or folder changes, then only for the calls in
 * rows stored since), and a preview of one file.
 */
export function useWorkspace(sessionID: string | null, workspace: string, rows: Row[], debounceMs = 150) {
  const [files, setFiles] = useState<FileEntry[]>([]);
  const [touched, setTouched] = useState<Touched[]>([]);
  const [preview, setPreview] = useState<FilePreview | null>(null);
  const [warning, setWarning] = useState('');
  const [error, setError] = useState('');
  const current = useRef({ sessionID, workspace });
  current.current = { sessionID, workspace };

  const loadFiles = useCallback(async () => {
    const id = current.current.sessionID;
    if (!id || !current.current.workspace) {
      setFiles([]);
      return;
    }
    try {
      const f = await api.listFiles(id);
      if (current.current.sessionID === id) {
        setFiles(f);
        setError('');
      }
    } catch (e) {
      if (current.current.sessionID === id) setError(errorMessage(e));
    }
  }, []);

  // Touched files are read through `through` (a row seq); one read in flight at a time.
  const touchedThrough = useRef(0);
  const touchedBusy = useRef(false);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;

  const loadTouched = useCallback(async (fresh: boolean) => {
    const id = current.current.sessionID;
    if (fresh) {
      touchedThrough.current = 0;
      setTouched([]);
    }
    if (!id || touchedBusy.current) return;
    const after = touchedThrough.current;
    // After a fresh read the rows held may still be another session's: trust only Go's answer.
    const upTo = fresh ? 0 : (rowsRef.current.at(-1)?.seq ?? 0);
    if (!fresh && !callsAfter(rowsRef.current, after)) {
      touchedThrough.current = Math.max(after, upTo);
      return;
    }
    touchedBusy.current = true;
    try {
      const t = await api.touchedFiles(id, after);
      if (current.current.sessionID !== id) return;
      touchedThrough.current = Math.max(after, upTo, ...t.map((x) => x.seq));
      if (t.length > 0) setTouched((old) => (after === 0 ? t : [...old, ...t]));
    } catch {
      // A session without a workspace has touched nothing; nothing to show.
    } finally {
      touchedBusy.current = false;
    }
    // Rows stored while the read was in flight.
    if (current.current.sessionID === id && callsAfter(rowsRef.current, touchedThrough.current)) void loadTouched(false);
  }, []);

  useEffect(() => {
    setPreview(null);
    setWarning('');
    setError('');
    void loadFiles();
    touchedBusy.current = false;
    void loadTouched(true);
  }, [sessionID, workspace, loadFiles, loadTouched]);

  const newest = rows.at(-1)?.seq ?? 0;
  useEffect(() => {
    if (newest > touchedThrough.current) void loadTouched(false);
  }, [newest, loadTouched]);

  useWatcher(current, loadFiles, setWarning, debounceMs);

  const open = useCallback(async (path: string) => {
    const id = current.current.sessionID;
    if (!id) return;
    try {
      setPreview(await api.readFile(id, path));
      setError('');
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);

  return { files, touched, preview, setPreview, open, warning, error, reload: loadFiles };
}

/**
 * Follows Go's watcher of the session's folder: a change re-lists the files (debounced); a
 * warning about the folder is shown.
 */
function useWatcher(current: RefObject<{ workspace: string }>, loadFiles: () => Promise<void>, setWarning: (w: string) => void, debounceMs: number) {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const offChanged = api.onWorkspaceChanged((ev) => {
      if (!current.current.workspace || ev.workspace !== current.current.workspace) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        void loadFiles();
      }, debounceMs);
    });
    const offWarning = api.onWorkspaceWarning((ev) => {
      if (ev.workspace === current.current.workspace) setWarning(ev.message);
    });
    return () => {
      if (timer) clearTimeout(timer);
      offChanged();
      offWarning();
    };
  }, [current, loadFiles, setWarning, debounceMs]);

}
