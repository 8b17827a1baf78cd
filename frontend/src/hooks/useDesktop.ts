import { useEffect, useRef, useState } from 'react';
import { api } from '../api/backend';
import type { FocusCard, Row } from '../api/types';

/** Keeps the latest value of a callback for listeners registered once. */
function useLatest<T>(value: T) {
  const ref = useRef(value);
  ref.current = value;
  return ref;
}

/**
 * A folder named on the command line opens a new session there: the first launch's folder
 * (Workspace.LaunchFolder, handed out once by Go) and every later `loopdesk FOLDER`
 * (app:open-folder, the window brought forward by Go).
 */
export function useLaunchFolders(openFolder: (path: string) => void) {
  const latest = useLatest(openFolder);
  useEffect(() => {
    // Not cancelled on unmount: Go hands the folder out once, so a second mount gets "".
    api.launchFolder().then(
      (path) => path && latest.current(path),
      () => {},
    );
    return api.onOpenFolder((ev) => ev.path && latest.current(ev.path));
  }, [latest]);
}

/**
 * Tells Go whether the window has the focus: desktop notifications are shown only while it
 * has not. Reported once at start and on every focus, blur and visibility change.
 */
export function useReportFocus() {
  useEffect(() => {
    let last: boolean | null = null;
    const report = () => {
      const focused = document.visibilityState !== 'hidden' && document.hasFocus();
      if (focused === last) return;
      last = focused;
      api.setFocused(focused).catch(() => {});
    };
    report();
    window.addEventListener('focus', report);
    window.addEventListener('blur', report);
    document.addEventListener('visibilitychange', report);
    return () => {
      window.removeEventListener('focus', report);
      window.removeEventListener('blur', report);
      document.removeEventListener('visibilitychange', report);
    };
  }, []);
}

/** The seq of the latest assistant row that made the call callID, or null. */
export function rowOfCall(rows: Row[], callID: string): number | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i];
    if (r.kind !== 'assistant') continue;
    const calls = r.payload?.tool_calls ?? [];
    if (calls.some((c) => c.id === callID)) return r.seq;
  }
  return null;
}

/**
 * A click on a desktop notification (app:focus-card): a waiting call opens the inbox on its
 * card (showCall; true when it did). Otherwise open its session, then, once the call's
 * row is loaded, scroll to it (showRow) and put the keyboard focus on its card, so y / n
 * answer it at once. A finished run's notification just opens the session.
 */
export function useFocusCard(
  openSession: (id: string) => void,
  selected: string | null,
  rows: Row[],
  showRow: (seq: number) => void,
  showCall: (sessionID: string, callID: string) => boolean = () => false,
) {
  const [target, setTarget] = useState<FocusCard | null>(null);
  const latest = useLatest(openSession);
  const inInbox = useLatest(showCall);
  useEffect(
    () =>
      api.onFocusCard((ev) => {
        if (ev.call_id && inInbox.current(ev.session_id, ev.call_id)) return;
        latest.current(ev.session_id);
        setTarget(ev.call_id ? ev : null);
      }),
    [latest, inInbox],
  );
  useEffect(() => {
    if (!target || target.session_id !== selected || rows[0]?.session_id !== selected) return;
    const seq = rowOfCall(rows, target.call_id);
    if (seq === null) return;
    setTarget(null);
    showRow(seq);
    // After the row is rendered and scrolled to.
    requestAnimationFrame(() => {
      // Call ids repeat across turns on some servers: the latest card is the one waiting.
      const cards = document.querySelectorAll<HTMLElement>(`[data-call-id="${CSS.escape(target.call_id)}"]`);
      cards[cards.length - 1]?.focus();
    });
  }, [target, selected, rows, showRow]);
}
