// The only module that talks to Go. Components and hooks import from here,
// never from wailsjs, so tests can replace this one seam. Every method
// rejects with {code, message} (app.go formatError) when Go fails.
import * as App from '../../wailsjs/go/main/App';
import { BrowserOpenURL, EventsOn } from '../../wailsjs/runtime/runtime';
import type {
  Chunk,
  ConnectionResult,
  DecisionInput,
  FileEntry,
  FilePreview,
  Hit,
  Pending,
  Preset,
  Rule,
  RuleInput,
  Session,
  SessionSummary,
  SessionView,
  Settings,
  SettingsInput,
  Touched,
  WorkspaceChanged,
  WorkspaceWarning,
} from './types';

/** The Wails event that carries every loop event (app.go). */
export const LOOP_EVENT = 'loop:event';
/** The watcher's debounced changes of a workspace. */
export const WORKSPACE_CHANGED = 'workspace:changed';
/** A watcher problem (for example, watch limit reached). */
export const WORKSPACE_WARNING = 'workspace:warning';

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
  presets: (): Promise<Preset[]> => list<Preset>(App.Presets()),
  getSettings: (): Promise<Settings> => as<Settings>(App.GetSettings()),
  saveSettings: (s: SettingsInput): Promise<Settings> => as<Settings>(App.SaveSettings(s as never)),
  testConnection: (baseURL: string, apiKey: string): Promise<ConnectionResult> =>
    as<ConnectionResult>(App.TestConnection(baseURL, apiKey)),
  listRules: (): Promise<Rule[]> => list<Rule>(App.ListRules()),
  addRule: (r: RuleInput): Promise<Rule> => as<Rule>(App.AddRule(r as never)),
  deleteRule: (id: string): Promise<void> => App.DeleteRule(id),

  // Sessions
  listSessions: (): Promise<SessionSummary[]> => list<SessionSummary>(App.ListSessions()),
  newSession: (workspace = ''): Promise<Session> => as<Session>(App.NewSession(workspace)),
  renameSession: (id: string, title: string): Promise<void> => App.RenameSession(id, title),
  deleteSession: (id: string): Promise<void> => App.DeleteSession(id),
  /** Writes the export through the native save dialog; "" when cancelled. */
  exportSession: (id: string): Promise<string> => App.ExportSession(id),
  forkSession: (id: string, seq: number): Promise<Session> => as<Session>(App.ForkSession(id, seq)),
  searchSessions: (query: string): Promise<Hit[]> => list<Hit>(App.SearchSessions(query)),
  openSession: async (id: string): Promise<SessionView> => {
    const v = (await App.OpenSession(id)) as unknown as SessionView;
    return {
      session: v.session,
      rows: (v.rows ?? []) as Chunk[],
      runs: v.runs ?? [],
      pending: v.pending ?? [],
      running_run_id: v.running_run_id ?? '',
    };
  },

  // Chat
  sendMessage: (sessionID: string, text: string): Promise<string> => App.SendMessage(sessionID, text),
  cancel: (sessionID: string): Promise<void> => App.Cancel(sessionID),
  pendingApprovals: (sessionID: string): Promise<Pending[]> => list<Pending>(App.PendingApprovals(sessionID)),
  decide: (sessionID: string, callID: string, d: DecisionInput): Promise<void> =>
    App.Decide(sessionID, callID, d as never),
  suggestRule: (sessionID: string, callID: string): Promise<RuleInput> =>
    as<RuleInput>(App.SuggestRule(sessionID, callID)),

  // Workspace
  chooseFolder: (): Promise<string> => App.ChooseFolder(),
  setWorkspace: (sessionID: string, path: string): Promise<Session> => as<Session>(App.SetWorkspace(sessionID, path)),
  listFiles: (sessionID: string): Promise<FileEntry[]> => list<FileEntry>(App.ListFiles(sessionID)),
  readFile: (sessionID: string, path: string): Promise<FilePreview> => as<FilePreview>(App.ReadFile(sessionID, path)),
  touchedFiles: (sessionID: string): Promise<Touched[]> => list<Touched>(App.TouchedFiles(sessionID)),

  openURL: (url: string): void => BrowserOpenURL(url),
  /** Subscribes to loop events; returns the unsubscribe function. */
  onEvent: (handler: (ev: WireEvent) => void): (() => void) => EventsOn(LOOP_EVENT, (ev: WireEvent) => handler(ev)),
  onWorkspaceChanged: (handler: (ev: WorkspaceChanged) => void): (() => void) =>
    EventsOn(WORKSPACE_CHANGED, (ev: WorkspaceChanged) => handler(ev)),
  onWorkspaceWarning: (handler: (ev: WorkspaceWarning) => void): (() => void) =>
    EventsOn(WORKSPACE_WARNING, (ev: WorkspaceWarning) => handler(ev)),
};

export type Api = typeof api;
