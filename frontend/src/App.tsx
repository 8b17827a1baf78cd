import { lazy, Suspense, useState, type CSSProperties } from 'react';
import type { Hit, Settings, Theme } from './api/types';
import { CheckpointProvider } from './components/CheckpointContext';
import { SessionBrowser } from './components/SessionBrowser';
import { ArchivedGroup, OrganiseBar, listOrganise } from './components/Organise';
import { useOrganise } from './hooks/useOrganise';
import { BoardFilters, SessionStep } from './components/Board';
import { ApprovalsView } from './components/ApprovalsView';
import { Inbox } from './components/Inbox';
import { useInboxPanel, type InboxPanel } from './hooks/useInbox';
import { useBoard } from './hooks/useBoard';
import { SessionMain, SessionSide } from './components/SessionView';
import { SidePanel } from './components/SidePanel';
import { PanelResizer } from './components/PanelResizer';
import { Shortcuts } from './components/Shortcuts';
import { CloseDialog } from './components/CloseDialog';
import { SkipLinks } from './components/SkipLinks';
import { Announcer } from './components/Announcer';
import { focusConversationItem, focusMessageBox, focusPendingCall } from './lib/jump';
import { useFocusCard, useLaunchFolders, useReportFocus } from './hooks/useDesktop';
import { useShortcuts } from './hooks/useShortcuts';
import { useWindowState } from './hooks/useWindowState';
import { useSession } from './hooks/useSession';
import { useSearch, useSessions } from './hooks/useSessions';
import { useSettings, useTheme } from './hooks/useSettings';
import { useMediaQuery } from './hooks/useMediaQuery';
import { useSessionActions } from './hooks/useAppActions';
import { useNavigation, useRestoreLastSession, useSideTabs } from './hooks/useNavigation';
import { useSessionView } from './hooks/useSessionView';

// Not needed for the first paint: loaded when first shown.
const SettingsPanel = lazy(() => import('./components/SettingsPanel').then((m) => ({ default: m.SettingsPanel })));

/**
 * Below 1100 px of the page's own width the side panel folds to its tabs and the session list
 * narrows (style.css). The page's zoom is CSS zoom, which media queries do not see: at 200 % a
 * 1280 px window holds 640 px of page, so the query scales with it.
 */
const narrowQuery = (zoom: number) => `(max-width: ${Math.round(1100 * zoom) - 1}px)`;

export function App() {
  const { settings, setSettings, error: loadError } = useSettings();
  const [previewTheme, setPreviewTheme] = useState<Theme | null>(null);
  useTheme(previewTheme ?? settings?.theme);
  const nav = useNavigation(settings);
  const { selected, open } = nav;
  const win = useWindowState(selected);
  const narrow = useMediaQuery(narrowQuery(win.zoom));
  const side = useSideTabs(narrow);
  const [actionError, setActionError] = useState('');
  const list = useSessions();
  const chat = useSession(selected, list.refresh);
  // An archived session is not in the list; it opens all the same, as OpenSession read it.
  const current = list.sessions.find((s) => s.id === selected) ?? (chat.session?.id === selected && chat.session ? { ...chat.session, running: false } : undefined);
  // The list is read again after every send and run, so it knows the scratch
  // folder Go gives a session on its first message; OpenSession's copy may not.
  const record = current ?? chat.session;
  const workspace = record?.workspace ?? '';
  // A new session starts in the open session's folder, unless that is the
  // scratch folder Go made for the open session alone.
  const nextWorkspace = record?.scratch ? '' : workspace;
  const view = useSessionView({ selected, current, sessions: list.sessions, chat, settings, workspace, open, refresh: list.refresh, onError: setActionError });
  // The approval report of every session: from its button above the list or "/approvals".
  const [approvals, setApprovals] = useState(false);
  const act = useSessionActions({ selected, setSelected: nav.setSelected, list, chat, nextWorkspace, open, onError: setActionError, openView: () => setApprovals(true) });

  // Desktop behaviour (docs/ui.md, "Desktop"): a folder from the command line, focus for
  // notifications and their clicks, the remembered window, the keyboard.
  useLaunchFolders(act.openFolder);
  useReportFocus();
  useRestoreLastSession(win.loaded, list.sessions, selected, open);
  const [showShortcuts, setShowShortcuts] = useState(false);
  const [finding, setFinding] = useState(false);
  const inbox = useInboxPanel();
  const openHere = (id: string, seq?: number | null) => (inbox.setShown(false), open(id, seq));
  useWindowShortcuts({ selected, sessions: list.sessions.map((s) => s.id), open, stop: () => chat.phase !== 'idle' && chat.stop(), newSession: act.newSession, zoomBy: win.zoomBy, setFinding, setShowSettings: nav.setShowSettings, setShowShortcuts, toggleInbox: () => inbox.setShown((v) => !v) });
  useFocusCard(open, selected, chat.rows, nav.showRow, inbox.showCall);
  const banner = loadError || list.error || actionError;
  const session = { selected, current, settings, list, chat, view, focus: nav.focus, open, showRow: nav.showRow };

  return (
    <div className={`app${nav.showSettings ? ' settings-open' : ''}${narrow ? ' narrow' : ''}`} style={{ '--side-width': `${win.panelWidth}px` } as CSSProperties}>
      {showShortcuts && <Shortcuts onClose={() => setShowShortcuts(false)} />}
      <CloseDialog />
      <Announcer stream={chat.stream} run={chat.run} from={chat.streamFrom} approvals={inbox.approvals} />
      {!nav.showSettings && <SkipLinks pending={chat.pending.length > 0} />}
      <CheckpointProvider sessionID={selected} rows={chat.rows} live={chat.changes} onForked={act.forkedWithFiles} onError={setActionError}>
        <Sessions list={list} selected={selected} open={openHere} inbox={inbox} onNew={act.newSession} onImport={act.importSession} onSettings={() => nav.setShowSettings(true)} onClosed={() => nav.setSelected(null)} approvals={approvals} setApprovals={setApprovals} />
        {nav.showSettings ? (
          <SettingsView
            banner={banner}
            settings={settings}
            sessionID={selected}
            onSaved={(s) => {
              setSettings(s);
              setPreviewTheme(null);
            }}
            onPreviewTheme={setPreviewTheme}
            onShowSource={(id, seq) => (nav.setShowSettings(false), openHere(id, seq))}
            onClose={() => {
              nav.setShowSettings(false);
              setPreviewTheme(null);
            }}
          />
        ) : inbox.shown ? (
          <Inbox inbox={inbox} titleOf={(id) => list.sessions.find((s) => s.id === id)?.title ?? ''} onOpenSession={openHere} onClose={() => inbox.setShown(false)} />
        ) : (
          <>
            <SessionMain
              {...session}
              banner={banner}
              onDismissBanner={() => {
                setActionError('');
                list.setError('');
              }}
              onClosed={() => nav.setSelected(null)}
              finding={finding}
              onCloseFind={() => setFinding(false)}
              loadInstructions={act.loadInstructions}
              send={act.send}
              sendCommand={act.sendCommand}
              loadPalette={act.loadPalette}
            />
            <SidePanel
              tab={side.tab}
              onTab={side.chooseTab}
              collapsed={narrow}
              open={side.sideOpen}
              onClose={side.closeSide}
              edge={<PanelResizer width={win.panelWidth} onResize={win.resizePanel} zoom={win.zoom} />}
            >
              <SessionSide {...session} tab={side.tab} workspace={workspace} onFork={(seq) => void act.fork(seq)} onChooseFolder={() => void act.chooseFolder()} />
            </SidePanel>
          </>
        )}
      </CheckpointProvider>
    </div>
  );
}

interface SessionsProps {
  list: ReturnType<typeof useSessions>;
  selected: string | null;
  open: (id: string, seq?: number | null) => void;
  inbox: InboxPanel;
  onNew: () => void;
  onImport: () => void;
  onSettings: () => void;
  /** The open session was deleted. */
  onClosed: () => void;
  /** Whether the approval report of every session is open. */
  approvals: boolean;
  setApprovals: (open: boolean) => void;
}

/** The session list and its search, filtered by the board's states, and the Inbox button. */
function Sessions({ list, selected, open, inbox, onNew, onImport, onSettings, onClosed, approvals, setApprovals }: SessionsProps) {
  const search = useSearch();
  const org = useOrganise({ selected, open, refresh: list.refresh, onClosed });
  const board = useBoard(list.sessions, list.refresh);
  const waiting = inbox.approvals.length;
  return (
    <SessionBrowser
      sessions={board.shown}
      paging={list.paging}
      filter={
        <div className="board">
          <button type="button" className={`inbox-button${waiting ? ' waiting' : ''}${inbox.shown ? ' on' : ''}`} aria-pressed={inbox.shown} title="Calls waiting for you, in every session (Ctrl+I)" onClick={() => inbox.setShown((v) => !v)}>
            Inbox: {waiting === 0 ? 'nothing waits' : `${waiting} waiting`}
            {waiting > 0 && (
              <span className="badge" aria-hidden="true">
                {waiting}
              </span>
            )}
          </button>
          <button type="button" className="approvals-button" title="How many prompts you answered, and rules that would spare them" onClick={() => setApprovals(true)}>
            Approval report
          </button>
          {approvals && <ApprovalsView titleOf={(id) => list.sessions.find((s) => s.id === id)?.title ?? id} onClose={() => setApprovals(false)} />}
          <BoardFilters filter={board.filter} counts={board.counts} onFilter={board.setFilter} />
        </div>
      }
      detail={(s) => <SessionStep activity={board.activity[s.id]} />}
      organise={listOrganise(org)}
      organiseBar={<OrganiseBar o={org} />}
      archived={<ArchivedGroup o={org} selected={selected} onOpen={open} />}
      selected={selected}
      query={search.query}
      onQuery={search.setQuery}
      hits={search.hits}
      searching={search.searching}
      searchError={search.error}
      onSelect={(id) => open(id)}
      onOpenHit={(h: Hit) => open(h.session_id, h.seq)}
      onNew={onNew}
      onImport={onImport}
      onSettings={onSettings}
    />
  );
}

interface SettingsViewProps {
  banner: string;
  settings: Settings | null;
  sessionID: string | null;
  onSaved: (s: Settings) => void;
  onPreviewTheme: (t: Theme) => void;
  onShowSource: (sessionID: string, seq: number) => void;
  onClose: () => void;
}

/** Settings in the main area, with the window's banner above it. */
function SettingsView({ banner, ...panel }: SettingsViewProps) {
  return (
    <main className="main">
      {banner && (
        <div className="banner" role="alert">
          {banner}
        </div>
      )}
      <Suspense fallback={<p className="note">Loading settings…</p>}>
        <SettingsPanel {...panel} />
      </Suspense>
    </main>
  );
}

interface ShortcutArgs {
  selected: string | null;
  /** The listed sessions' ids, in order: the previous and next session keys step through them. */
  sessions: string[];
  open: (id: string) => void;
  stop: () => unknown;
  newSession: () => Promise<void>;
  zoomBy: (dir: 1 | -1 | 0) => void;
  setFinding: (v: boolean) => void;
  setShowSettings: (v: boolean) => void;
  setShowShortcuts: (v: boolean) => void;
  toggleInbox: () => void;
}

/** The window's keyboard shortcuts (docs/ui.md, "Keyboard shortcuts"). */
function useWindowShortcuts({ selected, sessions, open, stop, newSession, zoomBy, setFinding, setShowSettings, setShowShortcuts, toggleInbox }: ShortcutArgs) {
  const stepSession = (by: number) => {
    const next = sessions[selected ? sessions.indexOf(selected) + by : 0];
    if (next) open(next);
  };
  useShortcuts({
    find: () => {
      if (!selected) return;
      setFinding(true);
      document.querySelector<HTMLInputElement>('input[aria-label="Find in session"]')?.focus();
    },
    stop,
    prevSession: () => stepSession(-1),
    nextSession: () => stepSession(1),
    newSession: () => void newSession(),
    search: () => document.querySelector<HTMLInputElement>('input[aria-label="Search sessions"]')?.focus(),
    settings: () => setShowSettings(true),
    zoom: zoomBy,
    help: () => setShowShortcuts(true),
    pendingCall: () => void focusPendingCall(),
    messageBox: () => void focusMessageBox(),
    nextItem: () => void focusConversationItem(1),
    prevItem: () => void focusConversationItem(-1),
    inbox: toggleInbox,
  });
}
