// The only module that talks to Go. Components and hooks import from here,
// never from wailsjs, so tests can replace this one seam. Go binds four small
// services (backend/desktop: Sessions, Chat, Settings, Workspace); every method
// rejects with {code, message} (see AppError in types.ts) when Go fails. Every type it
// hands out is generated from Go (wire.ts).
import * as Chat from '../../wailsjs/go/desktop/Chat';
import * as Sessions from '../../wailsjs/go/desktop/Sessions';
import * as SettingsService from '../../wailsjs/go/desktop/Settings';
import * as Workspace from '../../wailsjs/go/desktop/Workspace';
import * as WindowService from '../../wailsjs/go/desktop/Window';
import * as Lifecycle from '../../wailsjs/go/desktop/Lifecycle';
import * as Reports from '../../wailsjs/go/desktop/Reports';
import { BrowserOpenURL, ClipboardSetText, EventsOn, WindowSetTitle } from '../../wailsjs/runtime/runtime';
import type {
  Room,
  ProjectCount,
  SessionPage,
  TelemetryInput,
  TelemetryView,
  Deleted,
  FileSize,
  OutputLines,
  Size,
  Activity,
  InboxAnswer,
  InboxView,
  InboxRulePreview,
  AgentDefinition,
  Applied,
  LiveView,
  ChildView,
  Change,
  ForkFolder,
  AbandonedFiles,
  ForkedRun,
  ImageInput,
  SessionBudgets,
  Branch,
  Hunk,
  Orphan,
  RevertedHunk,
  ConnectionResult,
  DecisionInput,
  FileEntry,
  FilePreview,
  FileDiff,
  Hit,
  HooksView,
  EffectiveView,
  SkillView,
  MemoryView,
  MemoryProposal,
  MemoryFigure,
  ImportedHooks,
  PaletteEntry,
  InstructionFile,
  McpConfig,
  McpStatus,
  McpView,
  ApprovalRequestedPayload,
  QueuedMessage,
  PinnedPlan,
  Plan,
  Provider,
  ProvidersView,
  Preset,
  RestorePlan,
  Row,
  Run,
  Rule,
  RuleView,
  RuleInput,
  SandboxInput,
  SandboxStatus,
  SandboxView,
  Session,
  SessionMode,
  SessionSummary,
  SessionView,
  Settings,
  SettingsInput,
  Totals,
  Touched,
  UIState,
  OpenFolder,
  FocusCard,
  WorkspaceChanged,
  WorkspaceWarning,
  CloseRequest,
  Report,
  Suggestion,
  Limits,
  HarnessTokens,
} from './types';

// The Wails channels' names are declared in Go (desktop.Channels) and generated into wire.ts.
import { APP_FOCUS_CARD, APP_OPEN_FOLDER, LOOP_EVENT, MCP_STATUS, WORKSPACE_CHANGED, WORKSPACE_WARNING } from './wire';
import { ACTIVITY_CHANGED, INBOX_CHANGED } from './wire';
export { APP_FOCUS_CARD, APP_OPEN_FOLDER, LOOP_EVENT, MCP_STATUS, WORKSPACE_CHANGED, WORKSPACE_WARNING };
import { APP_CLOSE_REQUESTED } from './wire';

/** A loop event as it arrives: "type" names it; see events.ts for each shape. */
export interface WireEvent {
  type: string;
  session_id: string;
  run_id: string;
  seq: number;
  [field: string]: unknown;
}

// The bindings (wailsjs/go) are typed with the wire types (wire.ts), as encoding/json writes
// them: a nil slice arrives as null, which the page reads as an empty list.
const list = async <T>(p: Promise<T[] | null>): Promise<T[]> => (await p) ?? [];
const inboxView = (v: InboxView | null): InboxView => ({ approvals: v?.approvals ?? [], ended: v?.ended ?? [] });

/** A page of the session list (SessionPage) with its lists never null. */
export type ListedPage = Omit<SessionPage, 'sessions' | 'projects'> & { sessions: SessionSummary[]; projects: ProjectCount[] };

export const api = {
  // Settings
  presets: (): Promise<Preset[]> => list<Preset>(SettingsService.Presets()),
  getSettings: (): Promise<Settings> => SettingsService.GetSettings(),
  /** What the next run uses and where each value comes from (as `loopdesk settings`). */
  effectiveSettings: (): Promise<EffectiveView> => SettingsService.EffectiveSettings(),
  saveSettings: (s: SettingsInput): Promise<Settings> => SettingsService.SaveSettings(s),
  testConnection: (baseURL: string, apiKey: string): Promise<ConnectionResult> =>
    SettingsService.TestConnection(baseURL, apiKey),
  listRules: (): Promise<RuleView[]> => list<RuleView>(SettingsService.ListRules()),
  addRule: (r: RuleInput): Promise<Rule> => SettingsService.AddRule(r),
  updateRule: (id: string, r: RuleInput): Promise<Rule> => SettingsService.UpdateRule(id, r),
  deleteRule: (id: string): Promise<void> => SettingsService.DeleteRule(id),
  /** What was detected at start-up; a non-empty notice is shown once, dismissable. */
  sandboxStatus: (): Promise<SandboxStatus> => SettingsService.SandboxStatus(),
  sessionSandbox: (sessionID: string): Promise<SandboxView> => SettingsService.SessionSandbox(sessionID),
  saveSandbox: (in_: SandboxInput): Promise<SandboxView> => SettingsService.SaveSandbox(in_),
  /** providers.json and every provider ("default" first), never a key. */
  listProviders: (): Promise<ProvidersView> => SettingsService.ListProviders(),
  /** Validates and writes providers.json; rejects naming the bad entry, writing nothing. */
  saveProviders: (ps: Provider[]): Promise<ProvidersView> => SettingsService.SaveProviders(ps),
  /** Keeps a typed key in the provider's own 0600 file; "" removes it. The key never comes back. */
  setProviderKey: (name: string, key: string): Promise<ProvidersView> => SettingsService.SetProviderKey(name, key),
  /** Asks a provider (as edited, saved or not) for its model list. */
  testProvider: (p: Provider): Promise<ConnectionResult> => SettingsService.TestProvider(p),
  /** The agent definitions of the session's folder and the person's own, invalid ones with the reason. */
  agentDefinitions: (sessionID: string): Promise<AgentDefinition[]> => list<AgentDefinition>(SettingsService.AgentDefinitions(sessionID)),
  mcpServers: (): Promise<McpView> => SettingsService.MCPServers(),
  /** Writes the file (the only call that does), then starts, stops or restarts what changed. */
  saveMCPConfig: (c: McpConfig): Promise<McpView> => SettingsService.SaveMCPConfig(c),
  /** Claude Desktop's servers merged into the current configuration, unsaved. */
  importClaudeDesktop: (): Promise<McpConfig> => SettingsService.ImportClaudeDesktop(),
  restartMCPServer: (name: string): Promise<void> => SettingsService.RestartMCPServer(name),
  mcpServerLog: (name: string): Promise<string> => SettingsService.MCPServerLog(name),
  /** Every hook of the session's folder, the project hooks' trust and the latest runs. */
  hooks: (sessionID: string): Promise<HooksView> => SettingsService.Hooks(sessionID),
  /** Trusts the project hooks whose hash the person saw; refused if they changed since. */
  trustHooks: (sessionID: string, sha256: string): Promise<HooksView> => SettingsService.TrustHooks(sessionID, sha256),
  /** The skills of the session's folder and the person's own, with each project skill's trust. */
  skills: (sessionID: string): Promise<SkillView[]> => list<SkillView>(SettingsService.Skills(sessionID)),
  /** Trusts a project skill's SKILL.md whose hash the person saw; refused if it changed since. */
  trustSkill: (sessionID: string, path: string, sha256: string): Promise<SkillView[]> =>
    list<SkillView>(SettingsService.TrustSkill(sessionID, path, sha256)),
  /** Forgets the trust in a project skill: its allowed-tools pre-approve nothing again. */
  untrustSkill: (sessionID: string, path: string): Promise<SkillView[]> =>
    list<SkillView>(SettingsService.UntrustSkill(sessionID, path)),
  /** The memories in force for the session's folder (its own and the person's), or every memory for "". */
  memories: (sessionID: string): Promise<MemoryView[]> => list<MemoryView>(SettingsService.Memories(sessionID)),
  /** Adds the person's own memory (project: the session's folder; personal: every folder); lists as memories(listed). */
  addMemory: (sessionID: string, scope: string, text: string, listed: string): Promise<MemoryView[]> =>
    list<MemoryView>(SettingsService.AddMemory(sessionID, scope, text, listed)),
  editMemory: (id: string, text: string, listed: string): Promise<MemoryView[]> => list<MemoryView>(SettingsService.EditMemory(id, text, listed)),
  removeMemory: (id: string, listed: string): Promise<MemoryView[]> => list<MemoryView>(SettingsService.RemoveMemory(id, listed)),
  /** What imports proposed (loopdesk memory import), waiting for the person. */
  memoryProposals: (): Promise<MemoryProposal[]> => list<MemoryProposal>(SettingsService.MemoryProposals()),
  /** How many memories the session's runs carry and about how many tokens (beside AGENTS.md). */
  memoryFigure: (sessionID: string): Promise<MemoryFigure> => SettingsService.MemoryFigure(sessionID),
  answerMemoryProposal: (id: string, accept: boolean): Promise<MemoryProposal[]> =>
    list<MemoryProposal>(SettingsService.AnswerMemoryProposal(id, accept)),
  /** Settings → Telemetry as saved and as running (the collector's headers are never shown back). */
  telemetry: (): Promise<TelemetryView> => SettingsService.Telemetry(),
  /** Saves Settings → Telemetry beside the API key and applies it to the runs that finish from now on. */
  saveTelemetry: (t: TelemetryInput): Promise<TelemetryView> => SettingsService.SetTelemetry(t),
  /** Copies ~/.claude/settings.json's hooks into the personal hooks.json. */
  importClaudeCodeHooks: (sessionID: string): Promise<ImportedHooks> =>
    SettingsService.ImportClaudeCodeHooks(sessionID),

  // Sessions
  listSessions: (): Promise<SessionSummary[]> => list<SessionSummary>(Sessions.ListSessions()),
  /** A page of the list (the archived sessions when archived), newest first, from after (a page's next; "" first). */
  listSessionsPage: async (archived: boolean, after: string, limit: number): Promise<ListedPage> => {
    const p = await Sessions.ListSessionsPage(archived, after, limit);
    return { ...p, sessions: p.sessions ?? [], projects: p.projects ?? [] };
  },
  newSession: (workspace = ''): Promise<Session> => Sessions.NewSession(workspace),
  renameSession: (id: string, title: string): Promise<void> => Sessions.RenameSession(id, title),
  /** The provider and model the session's next run uses. */
  setSessionModel: (id: string, provider: string, model: string): Promise<Session> =>
    Sessions.SetSessionModel(id, provider, model),
  deleteSession: (id: string): Promise<void> => Sessions.DeleteSession(id),
  /** Writes the export through the native save dialog; "" when cancelled. */
  exportSession: (id: string): Promise<string> => Sessions.ExportSession(id),
  /** Writes a Markdown transcript through the native save dialog; "" when cancelled. */
  exportMarkdown: (id: string): Promise<string> => Sessions.ExportMarkdown(id),
  forkSession: (id: string, seq: number): Promise<Session> => Sessions.ForkSession(id, seq),
  /** A fork with its own copy of the folder as it was at row seq. */
  forkSessionWithFiles: (id: string, seq: number): Promise<Session> => Sessions.ForkSessionWithFiles(id, seq),
  /** The fork folder a session works in (folder "" when none), with its branch and size. */
  forkFolderOf: (id: string): Promise<ForkFolder> => Sessions.ForkFolderOf(id),
  /** Deletes a fork session and the folder (worktree, branch) made for it; returns the folder. */
  deleteSessionAndFolder: (id: string): Promise<string> => Sessions.DeleteSessionAndFolder(id),
  /** The archived sessions: the list's "Show archived". */
  listArchived: (): Promise<SessionSummary[]> => list<SessionSummary>(Sessions.ListArchived()),
  /** Archives (or brings back) sessions, all or none. */
  archiveSessions: (ids: string[], archived: boolean): Promise<void> => Sessions.ArchiveSessions(ids, archived),
  /** Puts sessions in a project ("" for none), all or none. */
  moveToProject: (ids: string[], project: string): Promise<void> => Sessions.MoveToProject(ids, project),
  projects: (): Promise<string[]> => list<string>(Sessions.Projects()),
  /** Deletes sessions; what each took with it, and a fork folder kept with its reason. */
  deleteSessions: (ids: string[]): Promise<Deleted[]> => list<Deleted>(Sessions.DeleteSessions(ids)),
  /** Exports sessions into a folder the person picks; "" when cancelled. */
  exportSessions: (ids: string[]): Promise<string> => Sessions.ExportSessions(ids),
  /** What a session takes in the database. */
  sessionSize: (id: string): Promise<Size> => Sessions.SessionSize(id),
  /** The database's files on disk. */
  databaseSize: (): Promise<FileSize> => Sessions.DatabaseSize(),
  /** Rewrites the database without its free space; refused while a run goes. */
  compactDatabase: (): Promise<FileSize> => Sessions.CompactDatabase(),
  /** Lines from..to (to excluded; 0: to the end) of a tool result the page got cut. */
  toolOutput: (sessionID: string, seq: number, from: number, to: number): Promise<OutputLines> =>
    Sessions.ToolOutput(sessionID, seq, from, to),
  /** Fork folders whose session is gone, largest first. */
  orphanForks: (): Promise<Orphan[]> => list<Orphan>(Sessions.OrphanForks()),
  removeOrphanFork: (forkID: string): Promise<string> => Sessions.RemoveOrphanFork(forkID),
  /** A full-text query (FTS5 syntax); rejects with code "invalid" when it does not parse. */
  searchSessions: (query: string): Promise<Hit[]> => list<Hit>(Sessions.SearchSessions(query)),
  /** Plain text, every word matched as typed (Go quotes it). */
  searchText: (text: string): Promise<Hit[]> => list<Hit>(Sessions.SearchText(text)),
  /** The whole session: only when it is opened. */
  /**
   * Opens a session with its last `tail` rows only (row_count and first_seq say how many
   * there are and where they start); earlier rows are read a page at a time (rowsBefore).
   */
  openSession: async (id: string, tail: number): Promise<SessionView> => {
    const v = await Sessions.OpenSessionTail(id, tail);
    return {
      ...v,
      rows: v.rows ?? [],
      runs: v.runs ?? [],
      pending: v.pending ?? [],
      meters: v.meters ?? [],
      queued: v.queued ?? [],
    };
  },
  totals: (id: string): Promise<Totals> => Sessions.Totals(id),
  /** The child sessions the session's task calls started, as their cards show them. */
  children: (id: string): Promise<ChildView[]> => list(Sessions.Children(id)),
  /** The AGENTS.md files the session's next run will carry, with a preview of each. */
  instructions: (id: string): Promise<InstructionFile[]> => list<InstructionFile>(Sessions.Instructions(id)),
  /** Imports an export the person picks; a session with id "" when the picker was cancelled. */
  importSession: (): Promise<Session> => Sessions.ImportSession(),
  /** Up to limit rows just before seq `before`, oldest first. */
  rowsBefore: (id: string, before: number, limit: number): Promise<Row[]> => list<Row>(Sessions.RowsBefore(id, before, limit)),
  /** Up to limit rows around seq, oldest first (a jump to a row not held). */
  rowsAround: (id: string, seq: number, limit: number): Promise<Row[]> => list<Row>(Sessions.RowsAround(id, seq, limit)),
  /** The seqs of the session's rows of one kind, oldest first (the chunk table's filter). */
  rowSeqs: (id: string, kind: string): Promise<number[]> => list<number>(Sessions.RowSeqs(id, kind)),
  /** Where text occurs in the session's rows outside from..to (those rendered): one seq per match, oldest first. */
  findInSession: (id: string, text: string, from: number, to: number): Promise<number[]> => list<number>(Sessions.FindInSession(id, text, from, to)),
  /** The rows with seq > afterSeq (after a gap). */
  rowsAfter: (id: string, afterSeq: number): Promise<Row[]> => list<Row>(Sessions.RowsAfter(id, afterSeq)),
  runs: (id: string): Promise<Run[]> => list<Run>(Sessions.Runs(id)),
  /** The sets of versions (edits, regenerations) the session belongs to. */
  branches: (id: string): Promise<Branch[]> => list<Branch>(Sessions.Branches(id)),

  /**
   * Puts text on the clipboard: the page's clipboard where it is allowed, else the window's
   * (Wails' runtime, for a WebKitGTK view that refuses the page). false when neither took it.
   */
  copyText: async (text: string): Promise<boolean> => {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      try {
        return await ClipboardSetText(text);
      } catch {
        return false;
      }
    }
  },
  /** The session's latest plan (null when it has none). */
  plan: async (id: string): Promise<PinnedPlan | null> => (await Sessions.Plan(id)) ?? null,
  /** Records the person's edit (a note the model reads at its next request); refused while running. */
  editPlan: async (id: string, p: Plan): Promise<PinnedPlan> => {
    const pinned = await Sessions.EditPlan(id, p);
    if (!pinned) throw new Error('the edited plan did not come back'); // Go returns it or an error
    return pinned;
  },

  // Chat
  sendMessage: (sessionID: string, text: string): Promise<string> => Chat.SendMessage(sessionID, text),
  /** The space left on the database's disk, with the warning or the refusal to show. */
  diskRoom: (): Promise<Room> => Chat.DiskRoom(),
  /** Sends text with images (stored as blobs first); refused while a run goes on. */
  sendWithImages: (sessionID: string, text: string, images: ImageInput[]): Promise<string> =>
    Chat.SendWithImages(sessionID, text, images),
  /** A stored image as a data URL. */
  image: (hash: string): Promise<string> => Sessions.Image(hash),
  /** Whether the saved model is sent images (the vision setting, else its name's default). */
  seesImages: (): Promise<boolean> => Chat.SeesImages(),
  /** Whether the session's next run sends images (its own provider and model). */
  sessionSeesImages: (sessionID: string): Promise<boolean> => Chat.SessionSeesImages(sessionID),
  /** The command templates and skills of the session's folder and the person's own. */
  palette: (sessionID: string): Promise<PaletteEntry[]> => list<PaletteEntry>(Chat.Palette(sessionID)),
  /** Sends /name args: the template (or skill) expanded in Go; the row records the command. */
  sendCommand: (sessionID: string, name: string, args: string): Promise<string> => Chat.SendCommand(sessionID, name, args),
  cancel: (sessionID: string): Promise<void> => Chat.Cancel(sessionID),
  /**
   * Forks before the person's message at seq and sends text there; the original's rows are
   * kept. restoreFiles: the files its later rows changed go back first (a conflict fails it);
   * otherwise the fork's run is told which files were kept.
   */
  editAndResend: (sessionID: string, seq: number, text: string, restoreFiles: boolean): Promise<ForkedRun> =>
    Chat.EditAndResend(sessionID, seq, text, restoreFiles),
  /** Forks before the run that made the reply at seq and runs again from its message (restoreFiles as above). */
  regenerate: (sessionID: string, seq: number, restoreFiles: boolean): Promise<ForkedRun> =>
    Chat.Regenerate(sessionID, seq, restoreFiles),
  /** The files an edit of the message at seq would abandon, and whether to offer restoring them. */
  editFiles: (sessionID: string, seq: number): Promise<AbandonedFiles> => Chat.EditFiles(sessionID, seq),
  /** The files regenerating the reply at seq would abandon, and whether to offer restoring them. */
  regenerateFiles: (sessionID: string, seq: number): Promise<AbandonedFiles> => Chat.RegenerateFiles(sessionID, seq),
  /** Runs again from the last complete row after a failed or interrupted run; returns the run id. */
  retry: (sessionID: string): Promise<string> => Chat.Retry(sessionID),
  /** The session's own budgets (null: the saved default). */
  sessionBudgets: (sessionID: string): Promise<SessionBudgets> => Chat.SessionBudgets(sessionID),
  /** Saves the session's own budgets; the next run of it (window or CLI) uses them. */
  setSessionBudgets: (sessionID: string, b: SessionBudgets): Promise<SessionBudgets> =>
    Chat.SetSessionBudgets(sessionID, b),
  pendingApprovals: (sessionID: string): Promise<ApprovalRequestedPayload[]> =>
    list<ApprovalRequestedPayload>(Chat.PendingApprovals(sessionID)),
  decide: (sessionID: string, callID: string, d: DecisionInput): Promise<void> =>
    Chat.Decide(sessionID, callID, d),
  suggestRule: (sessionID: string, callID: string): Promise<RuleInput> =>
    Chat.SuggestRule(sessionID, callID),
  queuedMessages: (sessionID: string): Promise<QueuedMessage[]> => list<QueuedMessage>(Chat.QueuedMessages(sessionID)),
  /** false when the message was delivered already. */
  removeQueued: (sessionID: string, id: string): Promise<boolean> => Chat.RemoveQueued(sessionID, id),
  /** Sends a message left queued (after a Stop, a bound or a restart) as a new run's prompt. */
  sendQueued: (sessionID: string, id: string): Promise<string> => Chat.SendQueued(sessionID, id),
  /** What Go knows of the session right now: its run, pending calls and queued messages. */
  live: (sessionID: string): Promise<LiveView> => Chat.Live(sessionID),
  setMode: (sessionID: string, mode: string, approve: string): Promise<SessionMode> =>
    Chat.SetMode(sessionID, mode, approve),
  executePlan: (sessionID: string, approve: string): Promise<string> => Chat.ExecutePlan(sessionID, approve),
  compactHere: (sessionID: string, seq: number): Promise<string> => Chat.CompactHere(sessionID, seq),
  undoCompaction: (sessionID: string, seq: number): Promise<void> => Chat.UndoCompaction(sessionID, seq),

  // The inbox and the board
  /** Every call waiting for the person (any session, child or registered process) and the runs that ended. */
  inbox: async (): Promise<InboxView> => inboxView(await Chat.Inbox()),
  /** Answers a waiting call wherever it waits; rejects not_pending when it was answered first. */
  inboxAnswer: (a: InboxAnswer): Promise<void> => Chat.InboxAnswer(a),
  /** The rule Always allow would save with scope, and every other waiting call it would approve. */
  inboxAlwaysPreview: (sessionID: string, callID: string, scope: string): Promise<InboxRulePreview> =>
    Chat.InboxAlwaysPreview(sessionID, callID, scope).then((p) => ({ ...p, others: p.others ?? [] })),
  /** Saves that rule and approves every call it covers; how many it approved. */
  inboxAlwaysAllow: (sessionID: string, callID: string, scope: string): Promise<number> => Chat.InboxAlwaysAllow(sessionID, callID, scope),
  inboxDismiss: (runID: string): Promise<void> => Chat.InboxDismiss(runID),
  onInboxChanged: (handler: (v: InboxView) => void): (() => void) => EventsOn(INBOX_CHANGED, (v: InboxView) => handler(inboxView(v))),
  /** What every session is doing (the board). */
  sessionActivity: (): Promise<Activity[]> => list<Activity>(Sessions.SessionActivity()),
  onActivityChanged: (handler: (a: Activity) => void): (() => void) => EventsOn(ACTIVITY_CHANGED, (a: Activity) => handler(a)),
  /** The native window's title (the count of waiting calls); the page's too. */
  setWindowTitle: (title: string): void => {
    document.title = title;
    try {
      WindowSetTitle(title);
    } catch {
      // A page outside the window (the dev server in a browser) has no native title.
    }
  },

  // Workspace
  chooseFolder: (): Promise<string> => Workspace.ChooseFolder(),
  setWorkspace: (sessionID: string, path: string): Promise<Session> => Workspace.SetWorkspace(sessionID, path),
  listFiles: (sessionID: string): Promise<FileEntry[]> => list<FileEntry>(Workspace.ListFiles(sessionID)),
  readFile: (sessionID: string, path: string): Promise<FilePreview> => Workspace.ReadFile(sessionID, path),
  /** Files touched by the calls in rows with seq > afterSeq (0: all). */
  touchedFiles: (sessionID: string, afterSeq = 0): Promise<Touched[]> => list<Touched>(Workspace.TouchedFiles(sessionID, afterSeq)),

  /** Every path the session's rows changed, oldest first. */
  changes: (sessionID: string): Promise<Change[]> => list<Change>(Workspace.Changes(sessionID)),
  fileDiff: (sessionID: string, seq: number, path: string): Promise<FileDiff> => Workspace.FileDiff(sessionID, seq, path),
  /** What restoring to before row toSeq (only path, when not "") would do; changes nothing. */
  restorePreview: (sessionID: string, toSeq: number, path = ''): Promise<RestorePlan> =>
    Workspace.RestorePreview(sessionID, toSeq, path),
  /** Restores; conflicting files are overwritten only when listed in override. */
  restore: (sessionID: string, toSeq: number, path: string, override: string[]): Promise<RestorePlan> =>
    Workspace.Restore(sessionID, toSeq, path, override),
  /** Every hunk of the session's text-file changes, with its review state. */
  hunks: (sessionID: string): Promise<Hunk[]> => list<Hunk>(Workspace.Hunks(sessionID)),
  keepHunk: (sessionID: string, seq: number, path: string, hunk: number): Promise<Hunk> =>
    Workspace.KeepHunk(sessionID, seq, path, hunk),
  /** Rejects (code conflict) naming the lines when they changed since the row. */
  revertHunk: (sessionID: string, seq: number, path: string, hunk: number): Promise<RevertedHunk> =>
    Workspace.RevertHunk(sessionID, seq, path, hunk),
  /** Brings a fork's changes into its parent's folder as hunks to review there. */
  applyToParent: (forkID: string): Promise<Applied> => Workspace.ApplyToParent(forkID),
  /** The folder the window was launched with, once; "" when none. */
  launchFolder: (): Promise<string> => Workspace.LaunchFolder(),

  // Window
  /** Tells Go whether the window has the focus (notifications only show while it does not). */
  setFocused: (focused: boolean): Promise<void> => WindowService.SetFocused(focused),
  uiState: (): Promise<UIState> => WindowService.UIState(),
  saveUIState: (s: UIState): Promise<void> => WindowService.SaveUIState(s),
  /** Go reads the window's size, position and maximised state and saves them. */
  saveGeometry: (): Promise<void> => WindowService.SaveGeometry(),

  openURL: (url: string): void => BrowserOpenURL(url),
  /** Subscribes to loop events; returns the unsubscribe function. Go sends a frame's events in
   * one emit (backend/desktop/batch.go), so the listener gets one or more, in order. */
  onEvent: (handler: (ev: WireEvent) => void): (() => void) =>
    EventsOn(LOOP_EVENT, (...evs: WireEvent[]) => {
      for (const ev of evs) handler(ev);
    }),
  onWorkspaceChanged: (handler: (ev: WorkspaceChanged) => void): (() => void) =>
    EventsOn(WORKSPACE_CHANGED, (ev: WorkspaceChanged) => handler(ev)),
  onWorkspaceWarning: (handler: (ev: WorkspaceWarning) => void): (() => void) =>
    EventsOn(WORKSPACE_WARNING, (ev: WorkspaceWarning) => handler(ev)),
  onMCPStatus: (handler: (st: McpStatus) => void): (() => void) => EventsOn(MCP_STATUS, (st: McpStatus) => handler(st)),
  onOpenFolder: (handler: (ev: OpenFolder) => void): (() => void) => EventsOn(APP_OPEN_FOLDER, (ev: OpenFolder) => handler(ev)),
  onFocusCard: (handler: (ev: FocusCard) => void): (() => void) => EventsOn(APP_FOCUS_CARD, (ev: FocusCard) => handler(ev)),

  // Runs that outlive the window (backend/desktop/lifecycle.go, background.go)
  /** Starts text in a new session beside sessionID (its folder, or a worktree of its own); the person stays. */
  runInNewSession: (sessionID: string, text: string): Promise<SessionSummary> => Chat.RunInNewSession(sessionID, text),
  runsGoing: (): Promise<number> => Lifecycle.RunsGoing(),
  /** The close question's "Stop them": every run stops as Stop does, then the app quits. */
  stopAndQuit: (): Promise<void> => Lifecycle.StopAndQuit(),
  /** The close question's "Keep them running": the window hides; the runs go on. */
  keepRunning: (): Promise<void> => Lifecycle.KeepRunning(),
  /** Quits now (Ctrl+Q): runs going stop as Stop does. */
  quit: (): Promise<void> => Lifecycle.Quit(),
  /** The window is being closed while runs go: ask the person (answer with stopAndQuit or keepRunning). */
  onCloseRequested: (handler: (r: CloseRequest) => void): (() => void) => EventsOn(APP_CLOSE_REQUESTED, (r: CloseRequest) => handler(r)),

  // What the agent costs and asks (backend/desktop/reports.go, docs/approvals.md)
  /** The approval report of a session ("" for every session) over the last since ("" all time, "7d"). */
  approvalReport: (sessionID: string, since: string): Promise<Report> => Reports.ApprovalReport(sessionID, since),
  /** Saves a suggested rule as Always allow would. */
  acceptSuggestion: (s: Suggestion): Promise<Rule> => Reports.AcceptSuggestion(s),
  /** The rate-limit headers the session's provider sent last; null before any. */
  providerLimits: (sessionID: string): Promise<Limits | null> => Reports.ProviderLimits(sessionID),
  /** Loopdesk's own tokens per request of the session's last run; null before any run kept them. */
  harnessTokens: (sessionID: string): Promise<HarnessTokens | null> => Reports.HarnessTokens(sessionID),
};

export type Api = typeof api;
