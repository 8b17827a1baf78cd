import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type WireEvent } from '../api/backend';
import type { FileEntry, FilePreview, Touched } from '../api/types';
import { errorMessage } from '../api/types';

/**
 * The workspace of one session: its files (re-listed, debounced, when the
 * watcher reports changes to that folder), the files the agent touched
 * (re-read when a tool finishes), and a preview of one file.
 */
export function useWorkspace(sessionID: string | null, workspace: string, debounceMs = 150) {
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

  const loadTouched = useCallback(async () => {
    const id = current.current.sessionID;
    if (!id) {
      setTouched([]);
      return;
    }
    try {
      const t = await api.touchedFiles(id);
      if (current.current.sessionID === id) setTouched(t);
    } catch {
      // A session without a workspace has touched nothing; nothing to show.
    }
  }, []);

  useEffect(() => {
    setPreview(null);
    setWarning('');
    setError('');
    void loadFiles();
    void loadTouched();
  }, [sessionID, workspace, loadFiles, loadTouched]);

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
    const offLoop = api.onEvent((ev: WireEvent) => {
      if (ev.session_id === current.current.sessionID && (ev.type === 'tool_finished' || ev.type === 'run_finished')) {
        void loadTouched();
      }
    });
    return () => {
      if (timer) clearTimeout(timer);
      offChanged();
      offWarning();
      offLoop();
    };
  }, [loadFiles, loadTouched, debounceMs]);

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
