import { useCallback } from 'react';
import { api } from '../api/backend';

/**
 * What the find bar searches beyond the rows the conversation renders: Go finds the text in
 * the session's rows outside from..to (the page holds only a window of them), one seq per match.
 */
export function useSessionFind(sessionID: string | null) {
  return useCallback(
    async (query: string, from: number, to: number): Promise<{ seq: number }[]> => {
      if (!sessionID || query.trim() === '') return [];
      return (await api.findInSession(sessionID, query, from, to)).map((seq) => ({ seq }));
    },
    [sessionID],
  );
}
