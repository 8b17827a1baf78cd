import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api/backend';
import type { McpName, Row } from '../api/types';
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
