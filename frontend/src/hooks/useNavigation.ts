import { useCallback, useEffect, useState } from 'react';
import type { Session, Settings } from '../api/types';
import type { Focus } from '../components/Conversation';
import type { Tab } from '../components/SidePanel';
import type { useWindowState } from './useWindowState';

/**
 * What the window shows: the open session and the row asked for in it, or Settings. On the
 * first load with no endpoint configured, the window opens on Settings.
 */
export function useNavigation(settings: Settings | null) {
  const [showSettings, setShowSettings] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [focus, setFocus] = useState<Focus | null>(null);
  const [routed, setRouted] = useState(false);
  if (settings && !routed) {
    setRouted(true);
    if (!settings.configured) setShowSettings(true);
  }
  const open = useCallback((id: string, seq: number | null = null) => {
    setSelected(id);
    setShowSettings(false);
    setFocus(seq === null ? null : { sessionID: id, seq });
  }, []);
  const showRow = useCallback((seq: number) => selected && setFocus({ sessionID: selected, seq }), [selected]);
  return { selected, setSelected, focus, showSettings, setShowSettings, open, showRow };
}

/** Opens the session the window showed last, once, when the list and the saved state are in. */
export function useRestoreLastSession(loaded: ReturnType<typeof useWindowState>['loaded'], sessions: Session[], selected: string | null, open: (id: string) => void) {
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    if (restored || !loaded || sessions.length === 0) return;
    setRestored(true);
    const last = loaded.last_session;
    if (!selected && last && sessions.some((s) => s.id === last)) open(last);
  }, [restored, loaded, sessions, selected, open]);
}

/** The side panel's tab; in a narrow window a tab opens it as a drawer, the open tab again closes it. */
export function useSideTabs(narrow: boolean) {
  const [tab, setTab] = useState<Tab>('budget');
  const [sideOpen, setSideOpen] = useState(false);
  const chooseTab = useCallback(
    (t: Tab) => {
      if (narrow) setSideOpen((o) => !(o && t === tab));
      setTab(t);
    },
    [narrow, tab],
  );
  return { tab, chooseTab, sideOpen, closeSide: useCallback(() => setSideOpen(false), []) };
}
