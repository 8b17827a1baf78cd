import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api/backend';
import { errorCode, errorMessage, type InboxApproval, type InboxView, type InboxRulePreview } from '../api/types';
import { byAge, cardKey, keepSelection, moveSelection, windowTitle } from '../state/inbox';

/** A rule's reach: the session the call waits in, its folder, or every folder. */
export type AlwaysScope = 'session' | 'folder' | 'everywhere';

const EMPTY: InboxView = { approvals: [], ended: [] };

/**
 * The inbox: every call waiting for the person in any session or child (oldest first) and the
 * runs that ended since they last looked, kept current by inbox:changed; the selected card;
 * and the answers, which go to Go (the first answer wins there, exactly once).
 */
export function useInbox() {
  const [view, setView] = useState<InboxView>(EMPTY);
  const [error, setError] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const approvals = useMemo(() => byAge(view.approvals ?? []), [view.approvals]);
  const keys = useMemo(() => approvals.map(cardKey), [approvals]);
  const lastKeys = useRef<string[]>([]);

  useEffect(() => {
    let live = true;
    let changed = false; // an inbox:changed is newer than the load it overtook
    api.inbox().then(
      (v) => live && !changed && setView(v),
      (e) => live && setError(errorMessage(e)),
    );
    const off = api.onInboxChanged((v) => {
      changed = true;
      setView(v);
    });
    return () => {
      live = false;
      off();
    };
  }, []);

  // The selection stays on its card while it waits, else moves to the one that took its place.
  useEffect(() => {
    setSelected((cur) => keepSelection(lastKeys.current, keys, cur));
    lastKeys.current = keys;
  }, [keys]);

  useEffect(() => {
    api.setWindowTitle(windowTitle(approvals.length));
  }, [approvals.length]);

  const run = useCallback(async <T>(fn: () => Promise<T>): Promise<T | null> => {
    try {
      const v = await fn();
      setError('');
      return v;
    } catch (e) {
      setError(errorMessage(e));
      return null;
    }
  }, []);

  /**
   * Approves or denies a call; reason goes to the model with a denial, arguments ("" as asked)
   * run instead. A call answered first elsewhere (its own card, another process) leaves the
   * inbox without an error: the person's intent was met or overtaken, never doubled.
   */
  const answer = useCallback(async (a: InboxApproval, approve: boolean, reason = '', args = ''): Promise<boolean> => {
    const gone = () => setView((v) => ({ ...v, approvals: (v.approvals ?? []).filter((x) => cardKey(x) !== cardKey(a)) }));
    try {
      await api.inboxAnswer({ session_id: a.session_id, call_id: a.call_id, approve, reason, arguments: args });
      setError('');
      gone(); // at once; inbox:changed confirms it
      return true;
    } catch (e) {
      if (errorCode(e) === 'not_pending') gone();
      else setError(errorMessage(e));
      return false;
    }
  }, []);
  const preview = useCallback((a: InboxApproval, scope: AlwaysScope): Promise<InboxRulePreview | null> => run(() => api.inboxAlwaysPreview(a.session_id, a.call_id, scope)), [run]);
  /** Saves the rule and approves this call and every other waiting call it covers; how many. */
  const alwaysAllow = useCallback((a: InboxApproval, scope: AlwaysScope): Promise<number | null> => run(() => api.inboxAlwaysAllow(a.session_id, a.call_id, scope)), [run]);
  const dismiss = useCallback(
    async (runID: string) => {
      if ((await run(() => api.inboxDismiss(runID).then(() => true))) === null) return;
      setView((v) => ({ ...v, ended: (v.ended ?? []).filter((e) => e.run_id !== runID) }));
    },
    [run],
  );
  const move = useCallback((by: number) => setSelected((cur) => moveSelection(keys, cur, by)), [keys]);

  return { approvals, ended: view.ended ?? [], error, selected, select: setSelected, move, answer, preview, alwaysAllow, dismiss };
}

export type InboxState = ReturnType<typeof useInbox>;

/**
 * The inbox as a view of the window: its state, whether it is shown (Ctrl+I, the Inbox
 * button), and opening it on one card (a notification's click).
 */
export function useInboxPanel() {
  const inbox = useInbox();
  const [shown, setShown] = useState(false);
  const { approvals, select } = inbox;
  /** Opens the inbox on the call's card; false when the call does not wait (any more). */
  const showCall = useCallback(
    (sessionID: string, callID: string): boolean => {
      const key = cardKey({ session_id: sessionID, call_id: callID });
      if (!approvals.some((a) => cardKey(a) === key)) return false;
      select(key);
      setShown(true);
      return true;
    },
    [approvals, select],
  );
  return { ...inbox, shown, setShown, showCall };
}

export type InboxPanel = ReturnType<typeof useInboxPanel>;
