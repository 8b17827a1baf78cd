import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { Session } from '../api/types';
import { errorMessage } from '../api/types';

/** The session list, newest first, with create and refresh. */
export function useSessions() {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [error, setError] = useState('');

  const refresh = useCallback(async () => {
    try {
      setSessions(await api.listSessions());
      setError('');
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const create = useCallback(async (): Promise<Session | null> => {
    try {
      const s = await api.newSession();
      await refresh();
      return s;
    } catch (e) {
      setError(errorMessage(e));
      return null;
    }
  }, [refresh]);

  return { sessions, error, refresh, create };
}
