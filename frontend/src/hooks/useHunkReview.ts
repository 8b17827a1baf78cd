import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { Hunk } from '../api/types';
import { errorMessage } from '../api/types';

export interface ReviewMessage {
  text: string;
  bad: boolean;
}

/**
 * The Changes tab's state: the session's hunks (read again when version changes and after each
 * action), Keep and Revert hunk, and a fork's "Apply to parent folder". One action at a time:
 * busy is set while Go works; message says what it did, or why not.
 */
export function useHunkReview(sessionID: string, version: string) {
  const [hunks, setHunks] = useState<Hunk[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<ReviewMessage | null>(null);
  const [parent, setParent] = useState('');

  const reload = useCallback(async () => {
    try {
      setHunks(await api.hunks(sessionID));
    } catch (e) {
      setMessage({ text: errorMessage(e), bad: true });
    }
  }, [sessionID]);
  useEffect(() => {
    void reload();
  }, [reload, version]);

  const act = async (what: () => Promise<string>) => {
    setBusy(true);
    try {
      setMessage({ text: await what(), bad: false });
    } catch (e) {
      setMessage({ text: errorMessage(e), bad: true });
    } finally {
      setBusy(false);
      void reload();
    }
  };
  const keep = (h: Hunk) =>
    act(async () => {
      await api.keepHunk(sessionID, h.seq, h.path, h.hunk);
      return `Kept hunk ${h.hunk} of ${h.path}.`;
    });
  const revert = (h: Hunk) =>
    act(async () => {
      const r = await api.revertHunk(sessionID, h.seq, h.path, h.hunk);
      return `Reverted hunk ${h.hunk} of ${h.path} (now lines ${r.from_line}–${r.to_line}); the model is told on row #${r.note_seq}.`;
    });
  const applyToParent = () =>
    act(async () => {
      const a = await api.applyToParent(sessionID);
      setParent(a.parent_id);
      return `Applied ${(a.paths ?? []).join(', ')} to the parent's folder, as hunks to review there (row #${a.seq}).`;
    });
  return { hunks, busy, message, parent, keep, revert, applyToParent };
}
