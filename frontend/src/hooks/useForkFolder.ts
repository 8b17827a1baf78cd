import { useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { ForkFolder, Orphan } from '../api/types';

/** The fork folder the session works in (null while loading, or when it has none). */
export function useForkFolder(sessionID: string | null | undefined, isFork: boolean): ForkFolder | null {
  const [ff, setFF] = useState<ForkFolder | null>(null);
  useEffect(() => {
    setFF(null);
    if (!sessionID || !isFork) return;
    let live = true;
    api.forkFolderOf(sessionID).then(
      (v) => live && setFF(v.folder ? v : null),
      () => live && setFF(null),
    );
    return () => {
      live = false;
    };
  }, [sessionID, isFork]);
  return ff;
}

/** Fork folders whose session is gone, listed once at start, and removing them. */
export function useOrphans() {
  const [orphans, setOrphans] = useState<Orphan[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    api.orphanForks().then(setOrphans, () => setOrphans([]));
  }, []);
  const remove = async (ids: string[]) => {
    setError('');
    for (const id of ids) {
      try {
        await api.removeOrphanFork(id);
        setOrphans((os) => os.filter((o) => o.fork_id !== id));
      } catch (e) {
        setError(String((e as { message?: string })?.message ?? e));
      }
    }
  };
  return { orphans, error, remove, dismiss: () => setOrphans([]) };
}
