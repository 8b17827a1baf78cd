import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../api/backend';
import type { Hit, Session, SessionSummary } from '../api/types';
import { errorCode, errorMessage } from '../api/types';
import { useLoaded } from './useLoaded';

/** The session list with its actions, and full-text search over every session. */
export function useSessions() {
  const { value: sessions, error, setError, refresh } = useLoaded<SessionSummary[]>(api.listSessions, []);

  /** Runs an action, reports its error, refreshes the list; null on failure. */
  const act = useCallback(
    async <T>(fn: () => Promise<T>): Promise<T | null> => {
      try {
        const v = await fn();
        await refresh();
        return v;
      } catch (e) {
        setError(errorMessage(e));
        return null;
      }
    },
    [refresh],
  );

  const create = useCallback((workspace = ''): Promise<Session | null> => act(() => api.newSession(workspace)), [act]);
  const rename = useCallback(async (id: string, title: string) => (await act(() => api.renameSession(id, title).then(() => true))) ?? false, [act]);
  const remove = useCallback(async (id: string) => (await act(() => api.deleteSession(id).then(() => true))) ?? false, [act]);
  /** A fork with files, and the folder (worktree, branch) made for it. */
  const removeWithFolder = useCallback(
    async (id: string) => (await act(() => api.deleteSessionAndFolder(id).then(() => true))) ?? false,
    [act],
  );
  const exportTo = useCallback((id: string): Promise<string | null> => act(() => api.exportSession(id)), [act]);
  const exportMarkdown = useCallback((id: string): Promise<string | null> => act(() => api.exportMarkdown(id)), [act]);
  const fork = useCallback((id: string, seq: number): Promise<Session | null> => act(() => api.forkSession(id, seq)), [act]);

  /** Sets the provider and model of the session's next run; the error text, or "" when set. */
  const setModel = useCallback(
    async (id: string, provider: string, model: string): Promise<string> => {
      try {
        await api.setSessionModel(id, provider, model);
        await refresh();
        return '';
      } catch (e) {
        return errorMessage(e);
      }
    },
    [refresh],
  );

  return { sessions, error, setError, refresh, create, rename, remove, removeWithFolder, exportTo, exportMarkdown, fork, setModel };
}

/** Debounced full-text search: hits for the latest query only. */
export function useSearch(delayMs = 200) {
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<Hit[]>([]);
  const [error, setError] = useState('');
  const [searching, setSearching] = useState(false);
  const latest = useRef('');

  useEffect(() => {
    latest.current = query;
    const q = query.trim();
    if (!q) {
      setHits([]);
      setError('');
      setSearching(false);
      return;
    }
    setSearching(true);
    const t = setTimeout(() => {
      // The query is FTS syntax for those who want it; text that does not
      // parse as such (a-b, time.Sleep, unbalanced quotes) is searched as
      // plain text, which Go quotes word by word.
      const search = (text: string) =>
        api.searchSessions(text).catch((e) => {
          if (errorCode(e) !== 'invalid') throw e;
          return api.searchText(text);
        });
      search(q).then(
        (h) => {
          if (latest.current !== query) return;
          setHits(h);
          setError('');
          setSearching(false);
        },
        (e) => {
          if (latest.current !== query) return;
          setHits([]);
          setError(errorMessage(e));
          setSearching(false);
        },
      );
    }, delayMs);
    return () => clearTimeout(t);
  }, [query, delayMs]);

  return { query, setQuery, hits, error, searching };
}
