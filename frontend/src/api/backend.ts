// The only module that talks to Go. Components and hooks import from here,
// never from wailsjs, so tests can replace this one seam. Go binds four small
// services (backend/desktop: Sessions, Chat, Settings, Workspace); every method
// rejects with {code, message} (see AppError in types.ts) when Go fails.
import * as Chat from '../../wailsjs/go/desktop/Chat';
import * as Sessions from '../../wailsjs/go/desktop/Sessions';
import * as SettingsService from '../../wailsjs/go/desktop/Settings';
import * as Workspace from '../../wailsjs/go/desktop/Workspace';
import * as WindowService from '../../wailsjs/go/desktop/Window';
import { BrowserOpenURL, EventsOn } from '../../wailsjs/runtime/runtime';
import type {
  ConnectionResult,
  DecisionInput,
  FileEntry,
  FilePreview,
  Hit,
  Pending,
  Preset,
  Row,
  Run,
  Rule,
  RuleInput,
  Session,
  SessionSummary,
  SessionView,
  Settings,
  SettingsInput,
  Touched,
  UIState,
  OpenFolder,
  FocusCard,
  WorkspaceChanged,
  WorkspaceWarning,
} from './types';

// Wails event channels, mirrored from Go (desktop.EventLoop, ...; a Go test checks them).
/** The Wails event that carries every loop event. */
export const LOOP_EVENT = 'loop:event';
/** The watcher's debounced changes of a workspace. */
export const WORKSPACE_CHANGED = 'workspace:changed';
/** A watcher problem (for example, watch limit reached). */
export const WORKSPACE_WARNING = 'workspace:warning';
/** An MCP server's status changed (Settings → MCP servers). */
export const MCP_STATUS = 'mcp:status';
/** A later `loopdesk FOLDER` launch: open a new session in {path}. */
export const APP_OPEN_FOLDER = 'app:open-folder';
/** A click on a desktop notification: show {session_id, run_id, call_id}. */
export const APP_FOCUS_CARD = 'app:focus-card';

/** A loop event as it arrives: "type" names it; see events.ts for each shape. */
export interface WireEvent {
  type: string;
  session_id: string;
  run_id: string;
  seq: number;
  [field: string]: unknown;
}

// The generated models type json.RawMessage and nested structs loosely; cast
// through unknown to the shapes in types.ts, which say what really arrives.
const as = <T>(p: Promise<unknown>): Promise<T> => p as Promise<T>;
const list = async <T>(p: Promise<unknown>): Promise<T[]> => ((await p) ?? []) as T[];

export const api = {
  // Settings
  presets: (): Promise<Preset[]> => list<Preset>(SettingsService.Presets()),
  getSettings: (): Promise<Settings> => as<Settings>(SettingsService.GetSettings()),
  saveSettings: (s: SettingsInput): Promise<Settings> => as<Settings>(SettingsService.SaveSettings(s as never)),
  testConnection: (baseURL: string, apiKey: string): Promise<ConnectionResult> =>
    as<ConnectionResult>(SettingsService.TestConnection(baseURL, apiKey)),
  listRules: (): Promise<Rule[]> => list<Rule>(SettingsService.ListRules()),
  addRule: (r: RuleInput): Promise<Rule> => as<Rule>(SettingsService.AddRule(r as never)),
  deleteRule: (id: string): Promise<void> => SettingsService.DeleteRule(id),

  // Sessions
  listSessions: (): Promise<SessionSummary[]> => list<SessionSummary>(Sessions.ListSessions()),
  newSession: (workspace = ''): Promise<Session> => as<Session>(Sessions.NewSession(workspace)),
  renameSession: (id: string, title: string): Promise<void> => Sessions.RenameSession(id, title),
  deleteSession: (id: string): Promise<void> => Sessions.DeleteSession(id),
  /** Writes the export through the native save dialog; "" when cancelled. */
  exportSession: (id: string): Promise<string> => Sessions.ExportSession(id),
  forkSession: (id: string, seq: number): Promise<Session> => as<Session>(Sessions.ForkSession(id, seq)),
  /** A full-text query (FTS5 syntax); rejects with code "invalid" when it does not parse. */
  searchSessions: (query: string): Promise<Hit[]> => list<Hit>(Sessions.SearchSessions(query)),
  /** Plain text, every word matched as typed (Go quotes it). */
  searchText: (text: string): Promise<Hit[]> => list<Hit>(Sessions.SearchText(text)),
  /** The whole session: only when it is opened. */
  openSession: async (id: string): Promise<SessionView> => {
    const v = (await Sessions.OpenSession(id)) as unknown as SessionView;
    return {
      session: v.session,
      rows: v.rows ?? [],
      runs: v.runs ?? [],
      pending: v.pending ?? [],
      running_run_id: v.running_run_id ?? '',
      meters: v.meters ?? [],
    };
  },
  /** The rows with seq > afterSeq (after a gap). */
  rowsAfter: (id: string, afterSeq: number): Promise<Row[]> => list<Row>(Sessions.RowsAfter(id, afterSeq)),
  runs: (id: string): Promise<Run[]> => list<Run>(Sessions.Runs(id)),

  // Chat
  sendMessage: (sessionID: string, text: string): Promise<string> => Chat.SendMessage(sessionID, text),
  cancel: (sessionID: string): Promise<void> => Chat.Cancel(sessionID),
  pendingApprovals: (sessionID: string): Promise<Pending[]> => list<Pending>(Chat.PendingApprovals(sessionID)),
  decide: (sessionID: string, callID: string, d: DecisionInput): Promise<void> =>
    Chat.Decide(sessionID, callID, d as never),
  suggestRule: (sessionID: string, callID: string): Promise<RuleInput> =>
    as<RuleInput>(Chat.SuggestRule(sessionID, callID)),

  // Workspace
  chooseFolder: (): Promise<string> => Workspace.ChooseFolder(),
  setWorkspace: (sessionID: string, path: string): Promise<Session> => as<Session>(Workspace.SetWorkspace(sessionID, path)),
  listFiles: (sessionID: string): Promise<FileEntry[]> => list<FileEntry>(Workspace.ListFiles(sessionID)),
  readFile: (sessionID: string, path: string): Promise<FilePreview> => as<FilePreview>(Workspace.ReadFile(sessionID, path)),
  /** Files touched by the calls in rows with seq > afterSeq (0: all). */
  touchedFiles: (sessionID: string, afterSeq = 0): Promise<Touched[]> => list<Touched>(Workspace.TouchedFiles(sessionID, afterSeq)),

  /** The folder the window was launched with, once; "" when none. */
  launchFolder: (): Promise<string> => Workspace.LaunchFolder(),

  // Window
  /** Tells Go whether the window has the focus (notifications only show while it does not). */
  setFocused: (focused: boolean): Promise<void> => WindowService.SetFocused(focused),
  uiState: (): Promise<UIState> => as<UIState>(WindowService.UIState()),
  saveUIState: (s: UIState): Promise<void> => WindowService.SaveUIState(s as never),
  /** Go reads the window's size, position and maximised state and saves them. */
  saveGeometry: (): Promise<void> => WindowService.SaveGeometry(),

  openURL: (url: string): void => BrowserOpenURL(url),
  /** Subscribes to loop events; returns the unsubscribe function. */
  onEvent: (handler: (ev: WireEvent) => void): (() => void) => EventsOn(LOOP_EVENT, (ev: WireEvent) => handler(ev)),
  onWorkspaceChanged: (handler: (ev: WorkspaceChanged) => void): (() => void) =>
    EventsOn(WORKSPACE_CHANGED, (ev: WorkspaceChanged) => handler(ev)),
  onWorkspaceWarning: (handler: (ev: WorkspaceWarning) => void): (() => void) =>
    EventsOn(WORKSPACE_WARNING, (ev: WorkspaceWarning) => handler(ev)),
  onOpenFolder: (handler: (ev: OpenFolder) => void): (() => void) => EventsOn(APP_OPEN_FOLDER, (ev: OpenFolder) => handler(ev)),
  onFocusCard: (handler: (ev: FocusCard) => void): (() => void) => EventsOn(APP_FOCUS_CARD, (ev: FocusCard) => handler(ev)),
};

export type Api = typeof api;
