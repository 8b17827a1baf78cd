import { lazy, Suspense, useCallback, useEffect, useMemo, useState, type CSSProperties } from 'react';
import { api } from './api/backend';
import type { Hit, ImageInput, Session, Theme } from './api/types';
import { BudgetMeters } from './components/BudgetMeters';
import { ChangesPanel } from './components/ChangesPanel';
import { OrphanNotice } from './components/OrphanNotice';
import { useForkFolder } from './hooks/useForkFolder';
import { CheckpointProvider } from './components/CheckpointContext';
import { Conversation, type Focus } from './components/Conversation';
import { HooksBanner } from './components/HooksBanner';
import { MessageBox } from './components/MessageBox';
import { PinnedPlan } from './components/PinnedPlan';
import { usePlan } from './hooks/usePlan';
import { useChildren } from './hooks/useChildren';
import { TaskCtx, type TaskContext } from './components/TaskProgress';
import { SessionBrowser } from './components/SessionBrowser';
import { SandboxControl, SandboxNotice } from './components/SandboxControl';
import { SessionHeader } from './components/SessionHeader';
import { SteerBar } from './components/SteerBar';
import { SidePanel, type Tab } from './components/SidePanel';
import { StatusLine } from './components/StatusLine';
import type { CardActions } from './components/ToolCard';
import { WorkspacePanel } from './components/WorkspacePanel';
import { PanelResizer } from './components/PanelResizer';
import { Shortcuts } from './components/Shortcuts';
import { SkipLinks } from './components/SkipLinks';
import { focusMessageBox, focusPendingCall } from './lib/jump';
import { useFocusCard, useLaunchFolders, useReportFocus } from './hooks/useDesktop';
import { useShortcuts } from './hooks/useShortcuts';
import { RETRYABLE, useControls } from './hooks/useControls';
import { FindBar } from './components/FindBar';
import { SessionBudgets } from './components/SessionBudgets';
import { useWindowState } from './hooks/useWindowState';
import { useSession } from './hooks/useSession';
import { useSearch, useSessions } from './hooks/useSessions';
import { useSandbox, useSandboxStatus } from './hooks/useSandbox';
import { useSettings, useTheme } from './hooks/useSettings';
import { useMediaQuery } from './hooks/useMediaQuery';
import { useWorkspace } from './hooks/useWorkspace';
import { useMcpStarting } from './hooks/useMcpStarting';
import { errorMessage } from './api/types';

// Not needed for the first paint: loaded when first shown.
const SettingsPanel = lazy(() => import('./components/SettingsPanel').then((m) => ({ default: m.SettingsPanel })));
const ChunkTable = lazy(() => import('./components/ChunkTable').then((m) => ({ default: m.ChunkTable })));

/** Below this width the side panel folds to its tabs and the session list narrows (style.css). */
const NARROW = '(max-width: 1099px)';

/** What the find bar searches: the conversation on screen. */
const conversationEl = () => document.querySelector<HTMLElement>('section.conversation');

export function App() {
  const { settings, setSettings, error: loadError } = useSettings();
  const [showSettings, setShowSettings] = useState(false);
  const [previewTheme, setPreviewTheme] = useState<Theme | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [focus, setFocus] = useState<Focus | null>(null);
  const [tab, setTab] = useState<Tab>('budget');
  const narrow = useMediaQuery(NARROW);
  const [sideOpen, setSideOpen] = useState(false);
  const chooseTab = useCallback(
    (t: Tab) => {
      // Folded: a tab opens the drawer; the open tab again closes it.
      if (narrow) setSideOpen((o) => !(o && t === tab));
      setTab(t);
    },
    [narrow, tab],
  );
  const [actionError, setActionError] = useState('');
  const list = useSessions();
  const search = useSearch();
  const mcpStarting = useMcpStarting();
  const chat = useSession(selected, list.refresh);
  const current = list.sessions.find((s) => s.id === selected);
  const forkFolder = useForkFolder(selected, Boolean(current?.parent_id));
  // The list is read again after every send and run, so it knows the scratch
  // folder Go gives a session on its first message; OpenSession's copy may not.
  const record = current ?? chat.session;
  const workspace = record?.workspace ?? '';
  // A new session starts in the open session's folder, unless that is the
  // scratch folder Go made for the open session alone.
  const nextWorkspace = record?.scratch ? '' : workspace;
  const ws = useWorkspace(selected, workspace, chat.rows);
  const plan = usePlan(selected, chat.rows);
  const children = useChildren(selected);
  const childSessions = useMemo(() => list.sessions.filter((s) => s.parent_id === selected && s.parent_call_id), [list.sessions, selected]);
  useTheme(previewTheme ?? settings?.theme);

  // The first load: with no endpoint configured, the window opens on settings.
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

  const taskCtx: TaskContext = useMemo(
    () => ({
      children,
      childOf: (callId: string) => childSessions.find((s) => s.parent_call_id === callId)?.id,
      openSession: (id: string) => open(id),
      decide: async (sessionId, callId, d) => {
        try {
          await api.decide(sessionId, callId, d);
          return true;
        } catch (e) {
          setActionError(errorMessage(e));
          return false;
        }
      },
    }),
    [children, open, childSessions],
  );

  const newSession = useCallback(async () => {
    const s = await list.create(nextWorkspace);
    if (s) open(s.id);
  }, [list, nextWorkspace, open]);

  // Desktop behaviour (docs/ui.md, "Desktop"): a folder from the command line, focus for
  // notifications and their clicks, the remembered window, the keyboard.
  const openFolder = useCallback(
    async (path: string) => {
      const s = await list.create(path);
      if (s) open(s.id);
    },
    [list, open],
  );
  useLaunchFolders(openFolder);
  useReportFocus();
  const win = useWindowState(selected);
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    if (restored || !win.loaded || list.sessions.length === 0) return;
    setRestored(true);
    const last = win.loaded.last_session;
    if (!selected && last && list.sessions.some((s) => s.id === last)) open(last);
  }, [restored, win.loaded, list.sessions, selected, open]);
  const [showShortcuts, setShowShortcuts] = useState(false);
  // Whether the open session's model is sent images (the vision setting, else its name's
  // default); read again when the settings are saved or the session's model changes.
  const [seesImages, setSeesImages] = useState(true);
  const sessionModel = record ? `${record.provider}/${record.model}` : '';
  useEffect(() => {
    if (!settings?.model) return;
    let live = true;
    (selected ? api.sessionSeesImages(selected) : api.seesImages()).then((v) => live && setSeesImages(v), () => {});
    return () => {
      live = false;
    };
  }, [settings, selected, sessionModel]);
  const [finding, setFinding] = useState(false);
  const stepSession = (by: number) => {
    const ids = list.sessions.map((s) => s.id);
    const next = ids[selected ? ids.indexOf(selected) + by : 0];
    if (next) open(next);
  };
  useShortcuts({
    find: () => {
      if (!selected) return;
      setFinding(true);
      document.querySelector<HTMLInputElement>('input[aria-label="Find in session"]')?.focus();
    },
    stop: () => chat.phase !== 'idle' && chat.stop(),
    prevSession: () => stepSession(-1),
    nextSession: () => stepSession(1),
    newSession: () => void newSession(),
    search: () => document.querySelector<HTMLInputElement>('input[aria-label="Search sessions"]')?.focus(),
    settings: () => setShowSettings(true),
    zoom: win.zoomBy,
    help: () => setShowShortcuts(true),
    pendingCall: () => void focusPendingCall(),
    messageBox: () => void focusMessageBox(),
  });

  const send = useCallback(
    async (text: string, images: ImageInput[] = [], command?: { name: string; args: string }) => {
      let id = selected;
      if (!id) {
        const s = await list.create(nextWorkspace);
        if (!s) return false;
        id = s.id;
        setSelected(id);
      }
      return chat.send(text, id, images, command);
    },
    [selected, list, nextWorkspace, chat],
  );
  const sendCommand = useCallback((name: string, args: string) => send(`/${name} ${args}`.trim(), [], { name, args }), [send]);
  const loadPalette = useCallback(() => (selected ? api.palette(selected) : Promise.resolve([])), [selected]);

  const importSession = useCallback(async () => {
    try {
      const s = await api.importSession();
      if (!s.id) return;
      await list.refresh();
      open(s.id);
      setActionError('');
    } catch (e) {
      setActionError(errorMessage(e));
    }
  }, [list, open]);

  const fork = useCallback(
    async (seq: number) => {
      if (!selected) return;
      const s = await list.fork(selected, seq);
      if (s) open(s.id);
    },
    [selected, list, open],
  );

  const chooseFolder = useCallback(async () => {
    try {
      const path = await api.chooseFolder();
      if (!path) return;
      if (selected) {
        chat.updateSession(await api.setWorkspace(selected, path));
        await list.refresh();
      } else {
        const s = await list.create(path);
        if (s) open(s.id);
      }
      setActionError('');
    } catch (e) {
      setActionError(errorMessage(e));
    }
  }, [selected, chat, list, open]);

  const decide = chat.decide;
  const actions: CardActions = useMemo(
    () => ({
      decide,
      suggestRule: async (callID: string) => {
        if (!selected) return null;
        try {
          return await api.suggestRule(selected, callID);
        } catch (e) {
          setActionError(errorMessage(e));
          return null;
        }
      },
      readFile: async (path: string) => {
        if (!selected) return null;
        try {
          const p = await api.readFile(selected, path);
          return p.binary ? null : p.content;
        } catch {
          return null;
        }
      },
    }),
    [decide, selected],
  );

  const decideAll = useCallback(
    async (approved: boolean) => {
      for (const p of chat.pending) await decide(p.call_id, { approved, reason: '', arguments: '', always: null });
    },
    [chat.pending, decide],
  );

  const forkedWithFiles = useCallback(
    (s: Session) => {
      void list.refresh();
      open(s.id);
    },
    [list, open],
  );

  const showRow = useCallback((seq: number) => selected && setFocus({ sessionID: selected, seq }), [selected]);
  useFocusCard(open, selected, chat.rows, showRow);
  const lastRun = chat.runs.at(-1);
  const ctl = useControls(selected, `${chat.rows.length}:${list.sessions.length}`, open, list.refresh, setActionError);
  const lastStatus = chat.outcome?.status ?? lastRun?.status ?? '';
  const canRetry = Boolean(selected) && chat.phase === 'idle' && RETRYABLE.includes(lastStatus);
  const sandbox = useSandbox(selected, chat.runs.length);
  const sandboxStatus = useSandboxStatus();
  const banner = loadError || list.error || actionError;

  return (
    <div
      className={`app${showSettings ? ' settings-open' : ''}${narrow ? ' narrow' : ''}`}
      style={{ '--side-width': `${win.panelWidth}px` } as CSSProperties}
    >
      {showShortcuts && <Shortcuts onClose={() => setShowShortcuts(false)} />}
      {!showSettings && <SkipLinks pending={chat.pending.length > 0} />}
      <CheckpointProvider sessionID={selected} rows={chat.rows} live={chat.changes} onForked={forkedWithFiles} onError={setActionError}>
      <SessionBrowser
        sessions={list.sessions}
        selected={selected}
        query={search.query}
        onQuery={search.setQuery}
        hits={search.hits}
        searching={search.searching}
        searchError={search.error}
        onSelect={(id) => open(id)}
        onOpenHit={(h: Hit) => open(h.session_id, h.seq)}
        onNew={newSession}
        onImport={importSession}
        onSettings={() => setShowSettings(true)}
      />
      {showSettings ? (
        <main className="main">
          {banner && (
            <div className="banner" role="alert">
              {banner}
            </div>
          )}
          <Suspense fallback={<p className="note">Loading settings…</p>}>
            <SettingsPanel
              settings={settings}
              sessionID={selected}
              onSaved={(s) => {
                setSettings(s);
                setPreviewTheme(null);
              }}
              onPreviewTheme={setPreviewTheme}
              onClose={() => {
                setShowSettings(false);
                setPreviewTheme(null);
              }}
            />
          </Suspense>
        </main>
      ) : (
        <>
          <main className="main" data-session-id={selected ?? undefined}>
            <SandboxNotice notice={sandboxStatus.notice} onDismiss={sandboxStatus.dismiss} />
            <OrphanNotice />
            <HooksBanner sessionID={selected} refreshKey={`${chat.runs.length}:${chat.phase === 'idle'}`} />
            {banner && (
              <div className="banner" role="alert">
                {banner}
                <button type="button" className="small" aria-label="Dismiss" onClick={() => { setActionError(''); list.setError(''); }}>
                  ×
                </button>
              </div>
            )}
            <SessionHeader
              key={`head-${selected}`}
              session={current}
              parentTitle={list.sessions.find((s) => s.id === current?.parent_id)?.title}
              provider={settings?.provider || 'default'}
              model={settings?.model ?? ''}
              onSetModel={(p, m) => (selected ? list.setModel(selected, p, m) : Promise.resolve('no session is open'))}
              onRename={(title) => (selected ? list.rename(selected, title) : Promise.resolve(false))}
              onExport={() => (selected ? list.exportTo(selected) : Promise.resolve(null))}
              onExportMarkdown={() => (selected ? list.exportMarkdown(selected) : Promise.resolve(null))}
              onDelete={async () => {
                if (!selected) return false;
                const ok = await list.remove(selected);
                if (ok) setSelected(null);
                return ok;
              }}
              forkFolder={forkFolder?.folder}
              onDeleteWithFolder={async () => {
                if (!selected) return false;
                const ok = await list.removeWithFolder(selected);
                if (ok) setSelected(null);
                return ok;
              }}
              onOpenParent={() => current?.parent_id && open(current.parent_id, current.fork_seq)}
              sandbox={<SandboxControl view={sandbox.view} error={sandbox.error} lastRun={lastRun?.sandbox} onSave={sandbox.save} />}
            />
            {current && (
              <SteerBar
                key={`steer-${selected}`}
                mode={chat.mode}
                totals={chat.totals}
                runs={chat.runs}
                running={chat.phase !== 'idle'}
                defaultApprove={settings?.approval_mode ?? 'ask'}
                onSetMode={(m, a) => void chat.setMode(m, a)}
                onExecutePlan={(a) => void chat.executePlan(a)}
                loadInstructions={async () => {
                  if (!selected) return null;
                  try {
                    return await api.instructions(selected);
                  } catch (e) {
                    setActionError(errorMessage(e));
                    return null;
                  }
                }}
              />
            )}
            {current && selected && <SessionBudgets key={`budgets-${selected}`} sessionID={selected} defaults={settings?.budgets} />}
            {finding && selected && <FindBar key={`find-${selected}`} root={conversationEl} version={`${selected}:${chat.rows.length}`} rows={chat.rows} onReveal={showRow} onClose={() => setFinding(false)} />}
            <TaskCtx.Provider value={taskCtx}>
            <Conversation
              key={`conv-${selected}`}
              rows={chat.rows}
              stream={chat.stream}
              run={chat.run}
              streamFrom={chat.streamFrom}
              sent={chat.sent}
              outputs={chat.outputs}
              phase={chat.phase}
              pending={chat.pending}
              running={chat.running}
              outcome={chat.outcome}
              error={chat.error}
              focus={focus}
              actions={actions}
              controls={ctl.controls}
              branches={ctl.branches}
              onRetry={canRetry ? () => void ctl.retry() : undefined}
            />
            </TaskCtx.Provider>
            <StatusLine
              phase={chat.phase}
              pending={chat.pending}
              running={chat.running}
              runStartedAt={chat.runStartedAt}
              onDecideAll={(a) => void decideAll(a)}
              mcpStarting={mcpStarting}
              mcpFailed={chat.mcpFailed}
              retrying={chat.retrying}
            />
            <PinnedPlan plan={plan.plan} running={chat.phase !== 'idle'} error={plan.error} onSave={plan.edit} />
            <MessageBox
              running={chat.phase !== 'idle'}
              disabled={!settings?.configured}
              queued={chat.queued}
              onSend={send}
              textOnly={!seesImages}
              onCommand={sendCommand}
              loadPalette={loadPalette}
              onStop={chat.stop}
              onRemoveQueued={(id) => void chat.removeQueued(id)}
              onSendQueued={(id) => void chat.sendQueued(id)}
            />
          </main>
          <SidePanel
            tab={tab}
            onTab={chooseTab}
            collapsed={narrow}
            open={sideOpen}
            onClose={() => setSideOpen(false)}
            edge={<PanelResizer width={win.panelWidth} onResize={win.resizePanel} zoom={win.zoom} />}
          >
            {tab === 'budget' && (
              <BudgetMeters
                meters={chat.meters}
                repeats={chat.repeats}
                phase={chat.phase}
                status={chat.outcome?.status ?? (chat.phase === 'idle' ? (lastRun?.status ?? null) : null)}
                hadRun={Boolean(lastRun) || chat.outcome !== null}
              />
            )}
            {tab === 'chunks' && (
              <Suspense fallback={<p className="note">Loading…</p>}>
                <ChunkTable
                  key={`chunks-${selected}`}
                  rows={chat.rows}
                  focus={focus}
                  onFork={(seq) => void fork(seq)}
                  onCompact={chat.phase === 'idle' ? (seq) => void chat.compactHere(seq) : undefined}
                  onUndoCompaction={chat.phase === 'idle' ? (seq) => void chat.undoCompaction(seq) : undefined}
                  onShowInConversation={showRow}
                  childSessions={childSessions}
                  parentOf={current?.parent_call_id ? { session: current, parentTitle: list.sessions.find((s) => s.id === current.parent_id)?.title } : undefined}
                  onOpenSession={(id, seq) => open(id, seq ?? null)}
                />
              </Suspense>
            )}
            {tab === 'changes' && selected && (
              <ChangesPanel
                key={`changes-${selected}`}
                sessionID={selected}
                version={`${chat.rows.length}:${chat.rows[chat.rows.length - 1]?.seq ?? 0}:${Object.keys(chat.changes).length}`}
                onOpenSession={open}
              />
            )}
            {tab === 'workspace' && (
              <WorkspacePanel
                key={`ws-${selected}`}
                workspace={workspace}
                files={ws.files}
                touched={ws.touched}
                preview={ws.preview}
                warning={ws.warning}
                error={ws.error}
                onChoose={() => void chooseFolder()}
                onOpen={(p) => void ws.open(p)}
                onClosePreview={() => ws.setPreview(null)}
                onShowRow={showRow}
              />
            )}
          </SidePanel>
        </>
      )}
      </CheckpointProvider>
    </div>
  );
}
