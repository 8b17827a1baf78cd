import { useCallback, useMemo, useRef, type Dispatch, type RefObject } from 'react';
import { api } from '../api/backend';
import { errorMessage } from '../api/types';
import type { SessionInput, SessionState } from '../state/session';
import { indexOfSeq, PAGE } from '../state/window';

/** What the conversation and the chunk table call to move the window of rows held. */
export interface Paging {
  /** Reads the page of rows before the window (scrolled near its top). */
  earlier: () => void;
  /** Reads the page after a window away from the end (scrolled near its bottom). */
  later: () => void;
  /** Makes seq one of the rows held: reads the rows around it unless it is held already. */
  jump: (seq: number) => void;
  /** Back to the session's last rows (sending, "Jump to latest"). */
  latest: () => void;
}

/**
 * Moves the window of rows the page holds (state/window.ts): one read at a time, each for the
 * session it was made for; a failed read shows in the conversation.
 */
export function useSessionPages(dispatch: Dispatch<SessionInput>, current: RefObject<string | null>, stateRef: RefObject<SessionState>): Paging {
  const busy = useRef(false);

  const read = useCallback(
    (call: (id: string, s: SessionState) => Promise<SessionInput> | null) => {
      const id = current.current;
      const s = stateRef.current;
      if (!id || busy.current || s.id !== id || !s.loaded) return;
      const p = call(id, s);
      if (!p) return;
      busy.current = true;
      p.then(
        (input) => current.current === id && dispatch(input),
        (e) => current.current === id && dispatch({ type: 'failed', error: errorMessage(e) }),
      ).finally(() => {
        busy.current = false;
      });
    },
    [dispatch, current, stateRef],
  );

  const earlier = useCallback(
    () =>
      read((id, s) => {
        const first = s.rows[0]?.seq ?? 0;
        if (first <= s.firstSeq) return null;
        return api.rowsBefore(id, first, PAGE).then((rows) => ({ type: 'rows_before', rows }));
      }),
    [read],
  );
  const later = useCallback(
    () =>
      read((id, s) => {
        if (s.atEnd) return null;
        const last = s.rows.at(-1)?.seq ?? 0;
        // Around the middle of the next page: the PAGE rows after the last one held.
        return api.rowsAround(id, last + PAGE / 2 + 1, PAGE).then((rows) => ({ type: 'rows_later', rows }));
      }),
    [read],
  );
  const jump = useCallback(
    (seq: number) =>
      read((id, s) => (indexOfSeq(s.rows, seq) >= 0 ? null : api.rowsAround(id, seq, PAGE).then((rows) => ({ type: 'rows_jumped', rows })))),
    [read],
  );
  const latest = useCallback(
    () => read((id, s) => (s.atEnd ? null : api.rowsBefore(id, s.seenSeq + 1, PAGE).then((rows) => ({ type: 'rows_jumped', rows })))),
    [read],
  );
  return useMemo(() => ({ earlier, later, jump, latest }), [earlier, later, jump, latest]);
}
