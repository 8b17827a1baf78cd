import { lazy, Suspense, useCallback, type ComponentProps } from 'react';
import type { SessionSummary, Settings } from '../api/types';
import type { SessionHook } from '../hooks/useSession';
import type { useSessions } from '../hooks/useSessions';
import type { SessionViewState } from '../hooks/useSessionView';
import { BudgetTab } from './BudgetTab';
import { ChangesPanel } from './ChangesPanel';
import { Conversation, type Focus } from './Conversation';
import { FindBar } from './FindBar';
import { HooksBanner } from './HooksBanner';
import { MessageBox } from './MessageBox';
import { StartedNote } from './StartedNote';
import { useRunInNewSession } from '../hooks/useLifecycle';
import { useSessionFind } from '../hooks/useSessionFind';
import { OrphanNotice } from './OrphanNotice';
import { PinnedPlan } from './PinnedPlan';
import { SandboxControl, SandboxNotice } from './SandboxControl';
import { SessionBudgets } from './SessionBudgets';
import { SessionHeader } from './SessionHeader';
import { SessionPlace } from './Organise';
import { useSessionPlace } from '../hooks/useOrganise';
import type { Tab } from './SidePanel';
import { StatusLine } from './StatusLine';
import { SteerBar } from './SteerBar';
import { TaskCtx } from './TaskProgress';
import { WorkspacePanel } from './WorkspacePanel';
import { MemorySettings } from './MemorySettings';
import { useMemoryFigure } from '../hooks/useMemories';

// Not needed for the first paint: loaded when first shown.
const ChunkTable = lazy(() => import('./ChunkTable').then((m) => ({ default: m.ChunkTable })));

/** What the find bar searches: the conversation on screen. */
const conversationEl = () => document.querySelector<HTMLElement>('section.conversation');

type List = ReturnType<typeof useSessions>;

/** The open session and what the window does with it; the same for its main area and its side panel. */
export interface SessionProps {
  selected: string | null;
  current: SessionSummary | undefined;
  settings: Settings | null;
  list: List;
  chat: SessionHook;
  view: SessionViewState;
  focus: Focus | null;
  open: (id: string, seq?: number | null) => void;
  showRow: (seq: number) => void;
}

interface MainProps extends SessionProps {
  banner: string;
  onDismissBanner: () => void;
  /** Closes the session (after it was deleted). */
  onClosed: () => void;
  finding: boolean;
  onCloseFind: () => void;
  loadInstructions: ComponentProps<typeof SteerBar>['loadInstructions'];
  send: ComponentProps<typeof MessageBox>['onSend'];
  sendCommand: ComponentProps<typeof MessageBox>['onCommand'];
  loadPalette: ComponentProps<typeof MessageBox>['loadPalette'];
}

/** The conversation's column: notices, the session's header and controls, its rows, the message box. */
export function SessionMain(p: MainProps) {
  const { selected, chat, view } = p;
  const running = chat.phase !== 'idle';
  const find = useSessionFind(selected);
  return (
    <main className="main" data-session-id={selected ?? undefined}>
      <SandboxNotice notice={view.sandboxStatus.notice} onDismiss={view.sandboxStatus.dismiss} />
      <OrphanNotice />
      <HooksBanner sessionID={selected} refreshKey={`${chat.runs.length}:${chat.phase === 'idle'}`} />
      {p.banner && (
        <div className="banner" role="alert">
          {p.banner}
          <button type="button" className="small" aria-label="Dismiss" onClick={p.onDismissBanner}>
            ×
          </button>
        </div>
      )}
      <SessionTop {...p} />
      {p.finding && selected && (
        <FindBar key={`find-${selected}`} root={conversationEl} version={`${selected}:${chat.rows.length}:${chat.rows[0]?.seq}`} search={find} onReveal={p.showRow} onClose={p.onCloseFind} />
      )}
      <TaskCtx.Provider value={view.taskCtx}>
        <Conversation
          key={`conv-${selected}`}
          rows={chat.rows}
          firstSeq={chat.firstSeq}
          atEnd={chat.atEnd}
          paging={chat.paging}
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
          focus={p.focus}
          actions={view.actions}
          controls={view.ctl.controls}
          branches={view.ctl.branches}
          onRetry={view.canRetry ? () => void view.ctl.retry() : undefined}
        />
      </TaskCtx.Provider>
      <SessionBottom {...p} running={running} />
    </main>
  );
}

/** The session's header, its steer bar and its own budgets. */
function SessionTop({ selected, current, settings, list, chat, view, open, onClosed, loadInstructions }: MainProps) {
  const removed = (ok: boolean) => {
    if (ok) onClosed();
    return ok;
  };
  const place = useSessionPlace(selected, chat.seenSeq, list.refresh);
  const memories = useMemoryFigure(selected, chat.runs.length);
  return (
    <>
      <SessionHeader
        key={`head-${selected}`}
        session={current}
        parentTitle={view.parentTitle}
        provider={settings?.provider || 'default'}
        model={settings?.model ?? ''}
        onSetModel={(pr, m) => (selected ? list.setModel(selected, pr, m) : Promise.resolve('no session is open'))}
        onRename={(title) => (selected ? list.rename(selected, title) : Promise.resolve(false))}
        onExport={() => (selected ? list.exportTo(selected) : Promise.resolve(null))}
        onExportMarkdown={() => (selected ? list.exportMarkdown(selected) : Promise.resolve(null))}
        onDelete={async () => (selected ? removed(await list.remove(selected)) : false)}
        forkFolder={view.forkFolder?.folder}
        onDeleteWithFolder={async () => (selected ? removed(await list.removeWithFolder(selected)) : false)}
        onOpenParent={() => current?.parent_id && open(current.parent_id, current.fork_seq)}
        sandbox={<SandboxControl view={view.sandbox.view} error={view.sandbox.error} lastRun={view.lastRun?.sandbox} onSave={view.sandbox.save} />}
        place={current && <SessionPlace project={current.project ?? ''} projects={place.projects} size={place.size} onMove={(p) => void place.move(p)} />}
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
          loadInstructions={loadInstructions}
          memories={memories}
        />
      )}
      {current && selected && <SessionBudgets key={`budgets-${selected}`} sessionID={selected} defaults={settings?.budgets} />}
    </>
  );
}

/** Below the conversation: the status line, the pinned plan and the message box. */
function SessionBottom({ selected, list, open, settings, chat, view, running, send, sendCommand, loadPalette }: MainProps & { running: boolean }) {
  const background = useRunInNewSession(selected, list.refresh);
  const decideAll = useCallback(
    async (approved: boolean) => {
      for (const c of chat.pending) await chat.decide(c.call_id, { approved, reason: '', arguments: '', always: null });
    },
    [chat],
  );
  return (
    <>
      <StatusLine
        phase={chat.phase}
        pending={chat.pending}
        running={chat.running}
        runStartedAt={chat.runStartedAt}
        onDecideAll={(a) => void decideAll(a)}
        mcpStarting={view.mcpStarting}
        mcpFailed={chat.mcpFailed}
        retrying={chat.retrying}
      />
      <PinnedPlan plan={view.plan.plan} running={running} error={view.plan.error} onSave={view.plan.edit} />
      <StartedNote started={background.started} error={background.error} onOpen={(id) => open(id)} onDismiss={background.dismiss} />
      <MessageBox
        running={running}
        onSendNew={background.send}
        disabled={!settings?.configured}
        queued={chat.queued}
        onSend={send}
        textOnly={!view.seesImages}
        onCommand={sendCommand}
        loadPalette={loadPalette}
        onStop={chat.stop}
        onRemoveQueued={(id) => void chat.removeQueued(id)}
        onSendQueued={(id) => void chat.sendQueued(id)}
      />
    </>
  );
}

interface SideProps extends SessionProps {
  tab: Tab;
  workspace: string;
  onFork: (seq: number) => void;
  onChooseFolder: () => void;
}

/** The side panel's open tab: the budget meters, the chunk table, the changes or the workspace. */
export function SessionSide({ tab, selected, current, chat, view, focus, open, showRow, workspace, onFork, onChooseFolder }: SideProps) {
  const idle = chat.phase === 'idle';
  const lastRun = view.lastRun;
  if (tab === 'budget') {
    return (
      <BudgetTab
        sessionID={selected}
        meters={chat.meters}
        repeats={chat.repeats}
        phase={chat.phase}
        status={chat.outcome?.status ?? (idle ? (lastRun?.status ?? null) : null)}
        hadRun={Boolean(lastRun) || chat.outcome !== null}
      />
    );
  }
  if (tab === 'chunks') {
    return (
      <Suspense fallback={<p className="note">Loading…</p>}>
        <ChunkTable
          key={`chunks-${selected}`}
          rows={chat.rows}
          sessionID={selected}
          firstSeq={chat.firstSeq}
          lastSeq={chat.seenSeq}
          focus={focus}
          onFork={onFork}
          onCompact={idle ? (seq) => void chat.compactHere(seq) : undefined}
          onUndoCompaction={idle ? (seq) => void chat.undoCompaction(seq) : undefined}
          onShowInConversation={showRow}
          childSessions={view.childSessions}
          parentOf={current?.parent_call_id ? { session: current, parentTitle: view.parentTitle } : undefined}
          onOpenSession={(id, seq) => open(id, seq ?? null)}
        />
      </Suspense>
    );
  }
  if (tab === 'changes') {
    if (!selected) return null;
    return (
      <ChangesPanel
        key={`changes-${selected}`}
        sessionID={selected}
        version={`${chat.rows.length}:${chat.rows[chat.rows.length - 1]?.seq ?? 0}:${Object.keys(chat.changes).length}`}
        onOpenSession={open}
      />
    );
  }
  if (tab === 'memory') {
    // The folder's memories: Show source opens the session that proposed one at its row.
    return <MemorySettings key={`memory-${selected}`} sessionID={selected} onShowSource={(id, seq) => open(id, seq)} />;
  }
  const ws = view.ws;
  return (
    <WorkspacePanel
      key={`ws-${selected}`}
      workspace={workspace}
      files={ws.files}
      touched={ws.touched}
      preview={ws.preview}
      warning={ws.warning}
      error={ws.error}
      onChoose={onChooseFolder}
      onOpen={(path) => void ws.open(path)}
      onClosePreview={() => ws.setPreview(null)}
      onShowRow={showRow}
    />
  );
}
