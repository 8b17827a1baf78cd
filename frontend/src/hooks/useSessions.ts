import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type ListedPage } from '../api/backend';
import type { Hit, ProjectCount, Session } from '../api/types';
import { errorCode, errorMessage } from '../api/types';

/** How many sessions the list reads at first and with each page after. */
export const LIST_PAGE = 100;

/** The list read so far: the most recent sessions, where the next page starts, and counts of the rest. */
export interface ListPaging {
  /** Sessions not read yet. */
  more: number;
  /** Reads the next page (nothing while one is on its way or none is left). */
  loadMore: () => void;
  /** Each project's number of sessions, the most recent project first. */
  projects: ProjectCount[];
}

/**
 * The session list read a page at a time (the most recent LIST_PAGE first, more as the person
 * scrolls: loadMore); refresh reads again as many as were read.
 */
function usePagedSessions() {
  const [page, setPage] = useState<ListedPage>({ sessions: [], next: '', total: 0, projects: [] });
  const [error, setError] = useState('');
  const loading = useRef(false);
  const read = useRef(LIST_PAGE);
  const refresh = useCallback(async () => {
    try {
      setPage(await api.listSessionsPage(false, '', read.current));
      setError('');
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const loadMore = useCallback(() => {
    if (loading.current || !page.next) return;
    loading.current = true;
    api.listSessionsPage(false, page.next, LIST_PAGE).then(
      (p) => {
        loading.current = false;
        read.current = page.sessions.length + p.sessions.length;
        setPage((was) => (was.next === page.next ? { ...was, sessions: [...was.sessions, ...p.sessions], next: p.next } : was));
      },
      (e) => {
        loading.current = false;
        setError(errorMessage(e));
      },
    );
  }, [page]);
  const paging: ListPaging = { more: page.next ? Math.max(page.total - page.sessions.length, 1) : 0, loadMore, projects: page.projects };
  return { sessions: page.sessions, error, setError, refresh, paging };
}

/** The session list with its actions, and full-text search over every session. */
export function useSessions() {
  const { sessions, error, setError, refresh, paging } = usePagedSessions();

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

  return { sessions, paging, error, setError, refresh, create, rename, remove, removeWithFolder, exportTo, exportMarkdown, fork, setModel };
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
