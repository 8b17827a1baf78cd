import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { SandboxInput, SandboxStatus, SandboxView } from '../api/types';
import { errorMessage } from '../api/types';

/** What was detected at start-up, asked once; the notice can be dismissed for this window. */
export function useSandboxStatus() {
  const [status, setStatus] = useState<SandboxStatus | null>(null);
  const [dismissed, setDismissed] = useState(false);
  useEffect(() => {
    api.sandboxStatus().then(setStatus, () => setStatus(null));
  }, []);
  return { notice: dismissed ? '' : (status?.notice ?? ''), dismiss: () => setDismissed(true) };
}

/** The open session's sandbox (its own, its folder's, or the default), with save. */
export function useSandbox(sessionID: string | null, runs: number) {
  const [view, setView] = useState<SandboxView | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    if (!sessionID) {
      setView(null);
      return;
    }
    let live = true;
    api.sessionSandbox(sessionID).then(
      (v) => live && setView(v),
      (e) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [sessionID, runs]);
  const save = useCallback(
    async (in_: Omit<SandboxInput, 'session_id'>) => {
      if (!sessionID) return;
      try {
        setView(await api.saveSandbox({ ...in_, session_id: sessionID }));
        setError('');
      } catch (e) {
        setError(errorMessage(e));
      }
    },
    [sessionID],
  );
  return { view, error, save };
}
