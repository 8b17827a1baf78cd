import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { SessionSummary } from '../api/types';
import { errorMessage } from '../api/types';

/**
 * Closing the window while runs go (backend/desktop/lifecycle.go): Go asks (app:close-requested)
 * and the window stays until the person answers — Stop them (they stop as Stop does, then the
 * app quits), Keep them running (the window hides, the runs go on) or Cancel (Esc: nothing
 * happens). Ctrl+Q quits at once, stopping what runs.
 */
export function useCloseRequest() {
  const [runs, setRuns] = useState<number | null>(null);
  // runs 0: answered elsewhere (another page of the window), nothing to ask any more.
  useEffect(() => api.onCloseRequested((r) => setRuns(r.runs > 0 ? r.runs : null)), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'q') {
        e.preventDefault();
        void api.quit().catch(() => {});
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  const answer = useCallback((choice: 'stop' | 'keep' | 'cancel') => {
    setRuns(null);
    if (choice === 'stop') void api.stopAndQuit().catch(() => {});
    if (choice === 'keep') void api.keepRunning().catch(() => {});
  }, []);
  return { runs, answer };
}

/**
 * "Run in a new session" (Ctrl+Shift+Enter): the message starts in a new session beside the
 * open one, which stays open; the list is read again so the new session shows, running.
 * started is the last one started, until dismissed; error what Go refused.
 */
export function useRunInNewSession(selected: string | null, refresh: () => Promise<unknown>) {
  const [started, setStarted] = useState<SessionSummary | null>(null);
  const [error, setError] = useState('');
  const send = useCallback(
    async (text: string): Promise<boolean> => {
      if (!selected) return false;
      try {
        const s = await api.runInNewSession(selected, text);
        setStarted(s);
        setError('');
        await refresh();
        return true;
      } catch (e) {
        setError(errorMessage(e));
        return false;
      }
    },
    [selected, refresh],
  );
  const dismiss = useCallback(() => {
    setStarted(null);
    setError('');
  }, []);
  return { send: selected ? send : undefined, started, error, dismiss };
}
