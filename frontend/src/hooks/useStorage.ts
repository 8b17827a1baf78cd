import { useCallback, useEffect, useState } from 'react';
import { storage } from '../api/storage';
import type { BackupsInput, BackupsView, Problem, Recovered, StorageStatus } from '../api/types';
import { errorMessage } from '../api/types';
import { useLoaded } from './useLoaded';

/**
 * What the page asks first: the usual window, or the damaged-database screen. null until Go
 * answers; a window whose Go side has no Storage (an older build, a test) is the usual one.
 */
export function useStorageStatus(): StorageStatus | null {
  const [status, setStatus] = useState<StorageStatus | null>(null);
  useEffect(() => {
    let live = true;
    storage.status().then(
      (s) => live && setStatus(s),
      () => live && setStatus({ path: '', damaged: false, too_new: false, problem: '', message: '' }),
    );
    return () => {
      live = false;
    };
  }, []);
  return status;
}

/** The damaged-database screen's three actions and what each found. */
export function useDamaged() {
  const [problems, setProblems] = useState<Problem[] | null>(null);
  const [recovered, setRecovered] = useState<Recovered | null>(null);
  const [busy, setBusy] = useState('');
  const [error, setError] = useState('');
  const act = useCallback(async (what: string, fn: () => Promise<void>) => {
    setBusy(what);
    setError('');
    try {
      await fn();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy('');
    }
  }, []);
  return {
    problems,
    recovered,
    busy,
    error,
    check: () => act('check', async () => setProblems(await storage.check())),
    recover: () => act('recover', async () => setRecovered(await storage.recover())),
    openAnother: (path: string) => act('open', () => storage.openAnother(path)),
  };
}

export const NO_BACKUPS: BackupsView = { schedule: 'daily', keep: 7, dir: '', files: [], last_error: '' };

/** Settings → Backups: the schedule and how many to keep (saved by its own button), and Back up now. */
export function useBackups() {
  const b = useLoaded<BackupsView>(storage.backups, NO_BACKUPS);
  const [edit, setEdit] = useState<BackupsInput | null>(null);
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const draft: BackupsInput = edit ?? { schedule: b.value.schedule, keep: b.value.keep };
  const run = async (what: string, fn: () => Promise<unknown>) => {
    setBusy(true);
    setDone('');
    try {
      await fn();
      setEdit(null);
      setDone(what);
      b.setError('');
      await b.refresh();
    } catch (e) {
      b.setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return {
    view: b.value,
    draft,
    set: (p: Partial<BackupsInput>) => setEdit({ ...draft, ...p }),
    save: () => run('Saved.', () => storage.setBackups(draft)),
    backupNow: () => run('Backed up.', () => storage.backupNow()),
    done,
    busy,
    error: b.error,
  };
}
