import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { MemoryFigure, MemoryProposal, MemoryView } from '../api/types';
import { errorMessage } from '../api/types';

/**
 * The Memory view's state: the memories in force for the session's folder (its project
 * memories and the person's), or every memory when listed is '' (Settings → Memory with no
 * session open), and the proposals an import left. Every change is made in Go, which answers
 * with the list as it is now.
 */
export function useMemories(sessionID: string | null, everyFolder: boolean) {
  const listed = everyFolder ? '' : (sessionID ?? '');
  const [memories, setMemories] = useState<MemoryView[]>([]);
  const [proposals, setProposals] = useState<MemoryProposal[]>([]);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    Promise.all([api.memories(listed), api.memoryProposals()])
      .then(([m, p]) => live && (setMemories(m), setProposals(p), setError('')))
      .catch((e) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [listed]);
  const act = useCallback(async <T,>(call: () => Promise<T>, set: (v: T) => void): Promise<boolean> => {
    setBusy(true);
    try {
      set(await call());
      setError('');
      return true;
    } catch (e) {
      setError(errorMessage(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return {
    memories,
    proposals,
    error,
    busy,
    add: (scope: string, text: string) => act(() => api.addMemory(sessionID ?? '', scope, text, listed), setMemories),
    edit: (id: string, text: string) => act(() => api.editMemory(id, text, listed), setMemories),
    remove: (id: string) => act(() => api.removeMemory(id, listed), setMemories),
    answer: async (id: string, accept: boolean) => {
      if (await act(() => api.answerMemoryProposal(id, accept), setProposals)) {
        if (accept) setMemories(await api.memories(listed));
      }
    },
  };
}

/**
 * How many memories the session's runs carry and about how many tokens their note takes,
 * computed in Go; read again when version changes (a run ended, a memory changed).
 */
export function useMemoryFigure(sessionID: string | null, version: unknown): MemoryFigure | null {
  const [figure, setFigure] = useState<MemoryFigure | null>(null);
  useEffect(() => {
    let live = true;
    if (!sessionID) return setFigure(null);
    api.memoryFigure(sessionID).then(
      (f) => live && setFigure(f),
      () => live && setFigure(null),
    );
    return () => {
      live = false;
    };
  }, [sessionID, version]);
  return figure;
}
