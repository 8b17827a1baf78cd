import { useCallback, useEffect, useMemo, useState } from 'react';
import { api } from '../api/backend';
import { errorMessage, type Branch } from '../api/types';
import type { ConversationControls } from '../components/MessageControls';

/** The ends of a run Retry is offered after (Go's desktop.retryable says the same). */
export const RETRYABLE = ['provider_error', 'timeout', 'error', 'cancelled', 'interrupted'];

/**
 * The conversation controls of the open session: its versions (re-read when its rows or the
 * list of sessions change, since a version is a session), Edit message and Regenerate (each
 * opens the fork it made, at the row it is a version of), and Retry.
 */
export function useControls(sessionID: string | null, changed: unknown, open: (id: string, seq: number) => void, refresh: () => Promise<unknown>, onError: (msg: string) => void) {
  const [branches, setBranches] = useState<{ of: string; list: Branch[] }>({ of: '', list: [] });
  useEffect(() => {
    if (!sessionID) return;
    let live = true;
    api
      .branches(sessionID)
      .then((list) => live && setBranches({ of: sessionID, list }))
      .catch(() => {}); // no switcher is shown; the lineage tree still has every version
    return () => {
      live = false;
    };
  }, [sessionID, changed]);

  const controls = useMemo<ConversationControls | undefined>(() => {
    if (!sessionID) return undefined;
    const forked = async (seq: number, make: () => Promise<{ session: { id: string } }>) => {
      try {
        const f = await make();
        await refresh();
        open(f.session.id, seq);
        return true;
      } catch (e) {
        onError(errorMessage(e));
        return false;
      }
    };
    return {
      edit: (seq, text, restoreFiles) => forked(seq, () => api.editAndResend(sessionID, seq, text, restoreFiles)),
      regenerate: (seq, restoreFiles) => forked(seq, () => api.regenerate(sessionID, seq, restoreFiles)),
      editFiles: (seq) => api.editFiles(sessionID, seq),
      regenerateFiles: (seq) => api.regenerateFiles(sessionID, seq),
      showVersion: (id, seq) => open(id, seq),
    };
  }, [sessionID, open, refresh, onError]);

  const retry = useCallback(async () => {
    if (!sessionID) return;
    try {
      await api.retry(sessionID);
    } catch (e) {
      onError(errorMessage(e));
    }
  }, [sessionID, onError]);

  return { branches: branches.of === sessionID ? branches.list : [], controls, retry };
}
