import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api/backend';
import type { FileDiff, McpName, RestorePlan, Row, Session } from '../api/types';
import { errorMessage } from '../api/types';
import { groupChanges, type ChangesBySeq } from '../state/checkpoints';

const NONE: ChangesBySeq = {};

/**
 * What each row of the open session changed: Workspace.Changes when the session is opened (or
 * a restore row arrives), merged with the live files_changed events the session's reducer
 * keeps. reload() reads them again (after a restore made here).
 */
export function useChanges(sessionID: string | null, rows: Row[], live: ChangesBySeq) {
  const [loaded, setLoaded] = useState<{ id: string | null; bySeq: ChangesBySeq }>({ id: null, bySeq: {} });
  const [wanted, setWanted] = useState(0);
  const reload = useCallback(() => setWanted((n) => n + 1), []);

  useEffect(() => {
    if (!sessionID) return;
    let live = true;
    api.changes(sessionID).then(
      (list) => live && setLoaded({ id: sessionID, bySeq: groupChanges(list) }),
      () => live && setLoaded({ id: sessionID, bySeq: {} }),
    );
    return () => {
      live = false;
    };
  }, [sessionID, wanted]);

  // A restore or note row (a hunk revert, a fork applied: ours, the CLI's) carries changes no
  // files_changed event announced.
  const last = rows.at(-1);
  const restoreSeq = last?.kind === 'restore' || last?.kind === 'note' ? last.seq : 0;
  const seenRestore = useRef(0);
  useEffect(() => {
    if (restoreSeq > seenRestore.current) {
      seenRestore.current = restoreSeq;
      reload();
    }
  }, [restoreSeq, reload]);

  const base = loaded.id === sessionID ? loaded.bySeq : NONE;
  const changes = useMemo(() => ({ ...base, ...live }), [base, live]);
  return { changes, reload };
}

/**
 * Go's mapping of model-facing MCP tool names to their servers, read at start and again when
 * a server's status changes (its tools may have changed).
 */
export function useMcpNames(): ReadonlyMap<string, McpName> {
  const [names, setNames] = useState<ReadonlyMap<string, McpName>>(new Map());
  useEffect(() => {
    let live = true;
    let reading = false;
    let again = false;
    const read = async () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          const v = await api.mcpServers();
          if (live) setNames(new Map((v.names ?? []).map((n) => [n.name, n])));
        } while (again && live);
      } catch {
        // No MCP (or no Go): tool names still show their server through their mcp__ form.
      } finally {
        reading = false;
      }
    };
    void read();
    const off = api.onMCPStatus(() => void read());
    return () => {
      live = false;
      off();
    };
  }, []);
  return names;
}

/**
 * A file's diff at a row, and forking at a row with the fork's own copy of the folder (the
 * new session goes to onForked; a refusal's message to onError).
 */
export function useCheckpointActions(sessionID: string | null, onForked: (s: Session) => void, onError: (message: string) => void) {
  const forkWithFiles = useCallback(
    async (seq: number) => {
      if (!sessionID) return;
      try {
        onForked(await api.forkSessionWithFiles(sessionID, seq));
      } catch (e) {
        onError(errorMessage(e));
      }
    },
    [sessionID, onForked, onError],
  );
  const fileDiff = useCallback(
    (seq: number, path: string): Promise<FileDiff> => (sessionID ? api.fileDiff(sessionID, seq, path) : Promise.reject(new Error('no session'))),
    [sessionID],
  );
  return { forkWithFiles, fileDiff };
}

/**
 * "Restore files to before this row": Go's preview (RestorePreview), the conflicting files the
 * person chose to overwrite, and the restore itself. Go restores all or nothing, so with a
 * conflicting file kept the others are restored one by one, each its own restore row.
 */
export function useRestore(sessionID: string, seq: number, path: string, onRestored: (plan: RestorePlan) => void) {
  const [plan, setPlan] = useState<RestorePlan | null>(null);
  const [error, setError] = useState('');
  const [overwrite, setOverwrite] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    api.restorePreview(sessionID, seq, path).then(
      (p) => live && setPlan(p),
      (e) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [sessionID, seq, path]);

  const restored = plan?.restored ?? [];
  const conflicts = plan?.conflicts ?? [];
  const kept = conflicts.filter((c) => !overwrite.has(c.path)).map((c) => c.path);
  const toggle = (p: string) => {
    const next = new Set(overwrite);
    if (next.has(p)) next.delete(p);
    else next.add(p);
    setOverwrite(next);
  };

  const run = async () => {
    setBusy(true);
    setError('');
    try {
      let last: RestorePlan | null = null;
      if (kept.length === 0) {
        last = await api.restore(sessionID, seq, path, [...overwrite]);
      } else {
        for (const r of restored.filter((r) => !kept.includes(r.path))) last = await api.restore(sessionID, seq, r.path, [...overwrite]);
      }
      onRestored(last ?? { restored: [], dry_run: false });
    } catch (e) {
      setError(errorMessage(e));
      setBusy(false);
    }
  };
  return { plan, error, busy, overwrite, restored, conflicts, kept, toggle, run };
}
