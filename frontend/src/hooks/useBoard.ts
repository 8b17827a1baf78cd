import { useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api/backend';
import type { Activity, SessionSummary } from '../api/types';
import { boardCounts, filterSessions, type BoardFilter } from '../state/inbox';

/**
 * The board: what every session is doing (Go's SessionActivity, then each activity:changed),
 * the filter the person chose, and the sessions and counts it gives.
 */
export function useBoard(sessions: SessionSummary[], refreshList: () => unknown) {
  const [activity, setActivity] = useState<Record<string, Activity>>({});
  const [filter, setFilter] = useState<BoardFilter>('all');
  const states = useRef(new Map<string, string>());
  const refresh = useRef(refreshList);
  refresh.current = refreshList;

  useEffect(() => {
    let live = true;
    // Changes that arrive before the list are newer than it: the list fills in, never overwrites.
    const off = api.onActivityChanged((a) => {
      // Events may arrive out of order: a change older than the one held is dropped.
      setActivity((m) => ((m[a.session_id]?.version ?? 0) > a.version ? m : { ...m, [a.session_id]: a }));
      // A run started or ended in a session the page did not start (its title, its running
      // dot): the list is read again, once per change of state, not per step.
      if (states.current.get(a.session_id) !== a.state) void refresh.current();
      states.current.set(a.session_id, a.state);
    });
    api.sessionActivity().then(
      (list) => live && setActivity((m) => ({ ...Object.fromEntries(list.map((a) => [a.session_id, a])), ...m })),
      () => {}, // the list shows without states; the next change fills them in
    );
    return () => {
      live = false;
      off();
    };
  }, []);

  const counts = useMemo(() => boardCounts(sessions, activity), [sessions, activity]);
  const shown = useMemo(() => filterSessions(sessions, activity, filter), [sessions, activity, filter]);
  return { activity, filter, setFilter, counts, shown };
}

export type BoardState = ReturnType<typeof useBoard>;
