// Shapes of the DTOs the bound Go services (backend/desktop) return. The generated wailsjs
// models describe json.RawMessage payloads as number[]; these say what
// actually arrives over the bridge.

import type { Meter, ProposedHunk, QueuedMessage } from './events';

export interface Session {
  id: string;
  title: string;
  workspace: string;
  /** The model the session's next run uses, with provider. */
  model: string;
  /** "default" or a name in providers.json. */
  provider: string;
  parent_id: string;
  fork_seq: number;
  /** Set on a child session: the task call of parent_id that started it. */
  parent_call_id?: string;
  created_at: string;
  updated_at: string;
  /** The workspace is the app's private scratch folder for this session. */
  scratch: boolean;
}

/** A session as the list shows it. */
export interface SessionSummary extends Session {
  running: boolean;
}

export type ChunkKind = 'user' | 'assistant' | 'tool_result' | 'approval' | 'summary' | 'system' | 'restore' | 'note' | 'usage' | 'hook' | 'image_excluded';
export const CHUNK_KINDS: readonly ChunkKind[] = ['user', 'assistant', 'tool_result', 'approval', 'summary', 'system', 'restore', 'note', 'usage', 'hook', 'image_excluded'];

/** One model call's spend, as its row keeps it (assistant, summary and usage rows). */
export interface RowUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
  cost_usd: number;
  /** The provider reported no usage: the zeros are unknown, not free. */
  unreported?: boolean;
}

/** A model call that left no other row (the stream failed, the request was refused). */
export interface UsagePayload {
  usage: RowUsage;
  reason: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model sent. */
  arguments: string;
}

export interface UserPayload {
  text: string;
  /** The queued message this row delivered. */
  queued_id?: string;
  /** Images sent with the message, by stored blob (Sessions.Image gives each as a data URL). */
  images?: ImageRef[];
  /** The slash command or skill the text was expanded from ("/review"). */
  command?: string;
}

/** An image of a user row. */
export interface ImageRef {
  hash: string;
  mime: string;
  width: number;
  height: number;
  name?: string;
  /** A provider refused it: kept, and left out of requests. */
  excluded?: boolean;
}

/** An image attached in the message box: its file name and its bytes as a data URL. */
export interface ImageInput {
  name: string;
  data: string;
}

/** One run of a user hook (store.HookPayload): why a call was blocked, or a run went on. */
export interface HookPayload {
  event: string;
  matcher?: string;
  command: string;
  source: string;
  call_id?: string;
  tool?: string;
  /** -1 when the hook was killed (timeout) or could not start. */
  exit_code: number;
  duration_ms: number;
  /** allow, deny, ask, block, or '' when it decided nothing. */
  decision: string;
  reason: string;
  /** The first 4 KB. */
  stderr: string;
  system_message?: string;
  failed?: boolean;
}

/** One configured hook (desktop.HookView). */
export interface HookView {
  event: string;
  matcher: string;
  command: string;
  source: 'personal' | 'project';
  file: string;
  timeout_seconds: number;
  ignore_failure: boolean;
  trusted: boolean;
}

/** A stored hook run with where and when it ran. */
export interface HookRun {
  session_id: string;
  seq: number;
  at: string;
  hook: HookPayload;
}

/** Settings → Hooks for the open session's folder (desktop.HooksView). */
export interface HooksView {
  workspace: string;
  hooks: HookView[];
  /** Hash of the project hook configuration; '' when the folder has none. */
  sha256: string;
  trusted: boolean;
  /** An earlier configuration was trusted; diff shows what changed ("+ ", "- ", "  " lines). */
  changed: boolean;
  diff: string;
  errors: string[];
  recent: HookRun[];
}

/** One entry of the "/" palette (desktop.PaletteEntry). */
export interface PaletteEntry {
  kind: 'command' | 'skill';
  name: string;
  description: string;
  argument_hint: string;
  path: string;
  /** Why it cannot be sent; '' when it can. */
  error: string;
}
export interface AssistantPayload {
  text: string;
  reasoning?: string;
  tool_calls?: ToolCall[] | null;
}
export interface ToolResultPayload {
  call_id: string;
  name: string;
  content: string;
  is_error: boolean;
  /** The command ran inside the sandbox; absent otherwise. */
  sandboxed?: boolean;
}
export interface ApprovalPayload {
  call_id: string;
  tool: string;
  decision: 'approved' | 'denied';
  /** "person", "rule:<id>" or "mode:<mode>". */
  by: string;
  reason: string;
  /** Set when the person edited the arguments before approving: what actually ran. */
  arguments?: string;
}
export interface SummaryPayload {
  text: string;
  through_seq: number;
  /** > 0: rows from_seq..through_seq were set aside after the context limit. */
  from_seq?: number;
  /** > 0: this row undoes the summary row with that seq. */
  undoes?: number;
}
export interface SystemPayload {
  text: string;
}
/** A restore of the folder's files to before row to_seq (store.RestorePayload). */
export interface RestorePayload {
  to_seq: number;
  path?: string;
  /** The change undone for each path. */
  restored: { path: string; change: string }[] | null;
  overridden?: string[] | null;
  skipped?: string[] | null;
}

/** One stored row of a session (the chunk table). */
export interface Row {
  session_id: string;
  seq: number;
  kind: ChunkKind;
  payload: unknown;
  run_id: string;
  created_at: string;
  /** Go's estimate of the row's tokens. */
  tokens: number;
}

/** A run's audit record. */
export interface Run {
  run_id: string;
  session_id: string;
  model: string;
  status: string;
  output: string;
  turns: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  started_at: string;
  /** Absent while the run goes on. */
  ended_at?: string;
  error: string;
  /** The limits the run ran under (loop.Limits). The page draws Go's meters instead. */
  limits?: Record<string, number> | null;
  /** The sandbox its shell commands ran with, in words; absent on older runs. */
  sandbox?: string;
  /** 'plan' or 'execute'. */
  mode?: RunMode;
  /** The AGENTS.md files its system prompt carried. */
  instructions?: { path: string; sha256: string; bytes: number; truncated: boolean }[] | null;
}

/** A tool call waiting for a person's decision. */
export interface Pending {
  call_id: string;
  name: string;
  /** Raw JSON text. */
  arguments: string;
  read_only: boolean;
  /** The command will run in the sandbox. */
  sandboxed?: boolean;
  /** The command asks for network. */
  network?: boolean;
  /** Approval mode review: the hunks the call would write (from the live event). */
  hunks?: ProposedHunk[];
}

export interface SessionView {
  session: Session;
  rows: Row[];
  runs: Run[];
  pending: Pending[];
  running_run_id: string;
  /** What the meters show while no run is live (the last run against its limits). */
  meters: Meter[];
  /** What the next run's shell commands get. */
  sandbox?: SandboxView;
  mode: SessionMode;
  totals: Totals;
  queued: QueuedMessage[];
}

/** What Go knows of a session right now (Chat.Live): the page reconciles with it. */
export interface LiveView {
  /** The session's latest event when Go began the read. */
  seq: number;
  running_run_id: string;
  pending: Pending[] | null;
  queued: QueuedMessage[] | null;
}

export type SandboxMode = 'auto' | 'on' | 'off';
export interface SandboxSetting {
  mode: SandboxMode;
  network: boolean;
}
/** A session's sandbox (Go: desktop.SandboxView). */
export interface SandboxView {
  workspace: SandboxSetting;
  session: SandboxSetting | null;
  effective: SandboxSetting;
  source: 'session' | 'workspace' | 'default';
  description: string;
  notice: string;
}
export interface SandboxInput {
  session_id: string;
  scope: 'session' | 'workspace';
  mode: SandboxMode;
  network: boolean;
  clear: boolean;
}
/** What was detected at start-up (Go: desktop.SandboxStatus). */
export interface SandboxStatus {
  available: boolean;
  name: string;
  notice: string;
}

export type RunMode = 'plan' | 'execute';

/** The mode the window keeps for a session; approve '' means the saved default. */
export interface SessionMode {
  mode: RunMode;
  approve: ApprovalMode | '';
}

/** What all of a session's runs used (Go sums the stored runs). */
export interface Totals {
  session_id: string;
  runs: number;
  turns: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  /** Parts of input_tokens read from and written to the provider's prompt cache. */
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Each child session's share (included in the sums above); absent when none. */
  children?: { session_id: string; turns: number; tool_calls: number; input_tokens: number; output_tokens: number; cost: number }[];
}

/** A child session as its task card shows it, read from the journal (Sessions.Children). */
export interface ChildView {
  session_id: string;
  parent_call_id: string;
  /** The child's latest event when Go began the read. */
  seq: number;
  /** 'running', else the last run's status ('' before any). */
  status: string;
  step: string;
  tool_calls: number;
  tokens: number;
  cost: number;
  pending: Pending[] | null;
}

/** An AGENTS.md the session's runs carry. */
export interface InstructionFile {
  scope: 'personal' | 'folder';
  path: string;
  sha256: string;
  bytes: number;
  truncated: boolean;
  warning: string;
  preview: string;
}

export interface Budgets {
  max_turns: number;
  max_tool_calls: number;
  max_tokens: number;
  max_cost_usd: number;
  timeout_seconds: number;
}

export type ApprovalMode = 'ask' | 'read-only' | 'sandboxed' | 'review' | 'auto' | 'deny';
export type Theme = 'system' | 'light' | 'dark';

export interface Price {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  /** Cache reads and writes are parts of the input priced apart; 0 prices them as input. */
  cache_read_per_mtok: number;
  cache_write_per_mtok: number;
}

export type ProviderKind = 'openai' | 'anthropic';

/** One entry of providers.json as written (config.Provider); a key is never part of it. */
export interface Provider {
  name: string;
  kind: ProviderKind;
  base_url: string;
  api_key_env?: string;
  api_key_file?: string;
  models: string[];
  thinking_budget?: number;
}

/** Where a provider's key comes from (config.KeyOrigin), never the key. */
export interface KeyOrigin {
  from: 'env' | 'file' | 'none' | '';
  name?: string;
  found: boolean;
}

/** A provider as runs see it (config.ProviderInfo); "default" first. */
export interface ProviderInfo {
  name: string;
  kind: ProviderKind;
  base_url: string;
  models: string[] | null;
  thinking_budget: number;
  key: KeyOrigin;
  /** Why the key cannot be read (e.g. a key file others can read). */
  error?: string;
}

/** The providers part of Settings (desktop.ProvidersView). */
export interface ProvidersView {
  path: string;
  providers: Provider[] | null;
  infos: ProviderInfo[] | null;
  /** Why providers.json could not be read; "" when fine. */
  error: string;
}

export interface ContextWindow {
  model: string;
  tokens: number;
}

/** Whether one provider's model is sent images; a model without an entry is auto (from its name). */
export interface ModelVision {
  provider: string;
  model: string;
  vision: 'on' | 'off' | 'auto';
}

export interface Settings {
  /** The provider new sessions use with model. */
  provider: string;
  base_url: string;
  model: string;
  has_key: boolean;
  key_source: '' | 'env' | 'file';
  configured: boolean;
  approval_mode: ApprovalMode;
  budgets: Budgets;
  prices: Price[] | null;
  context_windows: ContextWindow[] | null;
  vision?: ModelVision[] | null;
  theme: Theme;
  /** Desktop notifications while the window is not focused. */
  notifications: boolean;
}

export interface SettingsInput {
  /** "" is "default". */
  provider?: string;
  base_url: string;
  model: string;
  /** "" keeps the saved key. */
  api_key: string;
  clear_key: boolean;
  approval_mode: ApprovalMode;
  budgets: Budgets;
  prices: Price[];
  context_windows: ContextWindow[];
  vision?: ModelVision[];
  theme: Theme;
  /** Left out: the saved choice stays. */
  notifications?: boolean;
}

/** What the page restores on the next start (desktop.UIState). */
export interface UIState {
  /** The side panel's width in CSS pixels; 0 for the default. */
  panel_width: number;
  last_session: string;
  /** Page zoom, 1 = 100%. */
  zoom: number;
}

/** app:open-folder: a later launch named a folder. */
export interface OpenFolder {
  path: string;
}

/** app:focus-card: a desktop notification was clicked. call_id is "" for a finished run. */
export interface FocusCard {
  session_id: string;
  run_id: string;
  call_id: string;
}

export interface Preset {
  name: string;
  base_url: string;
  needs_key: boolean;
}

export interface ConnectionResult {
  ok: boolean;
  models: string[] | null;
  error: string;
}

export type RuleEffect = 'allow' | 'ask' | 'deny';
export type RuleScope = 'session' | 'workspace';

export interface Rule {
  id: string;
  tool: string;
  pattern: string;
  effect: RuleEffect;
  scope: RuleScope;
  scope_id: string;
  created_at: string;
}

export interface RuleInput {
  tool: string;
  pattern: string;
  effect: RuleEffect;
  scope: RuleScope;
  session_id: string;
}

export interface DecisionInput {
  approved: boolean;
  reason: string;
  /** "" runs the call unchanged; otherwise the edited JSON that runs and is recorded. */
  arguments: string;
  /** Saved first, then the call is approved. */
  always: RuleInput | null;
  /** Approval mode review: the choice for each proposed hunk (a hunk not named is kept). */
  hunks?: HunkChoice[];
}

/** The person's answer about one proposed hunk (mode review). */
export interface HunkChoice {
  hunk: number;
  action: 'keep' | 'drop' | 'edit';
  /** edit: what the hunk's new side (context included) becomes. */
  text?: string;
}

export type { ProposedHunk };

/** One hunk of a row's change to a text file (backend checkpoint.Hunk). */
export interface Hunk {
  seq: number;
  path: string;
  /** From 1 within seq and path. */
  hunk: number;
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  state: 'unreviewed' | 'kept' | 'reverted';
  patch: string;
}

/** What a hunk revert did. */
export interface RevertedHunk {
  hunk: Hunk;
  note_seq: number;
  from_line: number;
  to_line: number;
}

/** A fork's changes brought into its parent's folder, on the parent's note row seq. */
export interface Applied {
  parent_id: string;
  seq: number;
  paths: string[];
}

/** Where a fork with files works; folder "" when the session has no fork folder. */
export interface ForkFolder {
  folder: string;
  branch: string;
  bytes: number;
}

/** A fork folder whose session is gone. */
export interface Orphan {
  fork_id: string;
  folder: string;
  bytes: number;
  branch: string;
}

/** A search hit; snippet marks matches with \u0001 (start) and \u0002 (end). */
export interface Hit {
  session_id: string;
  session_title: string;
  seq: number;
  kind: ChunkKind;
  snippet: string;
  rank: number;
}

export interface FileEntry {
  path: string;
  dir: boolean;
  size: number;
}

export interface FilePreview {
  path: string;
  content: string;
  truncated: boolean;
  binary: boolean;
}

export interface Touched {
  path: string;
  seq: number;
  tool: string;
  changed: boolean;
}

export type ChangeOp = 'created' | 'changed' | 'removed' | 'renamed';

export interface WorkspaceChanged {
  workspace: string;
  changes: { path: string; op: ChangeOp }[] | null;
}

export interface WorkspaceWarning {
  workspace: string;
  message: string;
}

/** Why a bound method failed: mirrored from Go's desktop.ErrorCodes (a Go test parses this list). */
export type ErrorCode =
  | 'not_found'
  | 'busy'
  | 'not_pending'
  | 'invalid'
  | 'not_configured'
  | 'error';

/** The error every failed bound method rejects with (Go's error formatter). */
export interface AppError {
  code: ErrorCode;
  message: string;
}

/** The error code of a rejection ("" when it has none). */
export function errorCode(e: unknown): ErrorCode | '' {
  const v = unwrap(e);
  return v && typeof v === 'object' && 'code' in v ? (String((v as AppError).code) as ErrorCode) : '';
}

export function errorMessage(e: unknown): string {
  const v = unwrap(e);
  if (v && typeof v === 'object' && 'message' in v) return String((v as AppError).message);
  return String(v);
}

// The bridge may hand the formatted error over as is, as its JSON text, or
// wrapped in an Error whose message is the {code, message} object.
function unwrap(e: unknown): unknown {
  for (let i = 0; i < 3; i++) {
    if (typeof e === 'string' && e.startsWith('{')) {
      try {
        e = JSON.parse(e);
        continue;
      } catch {
        return e;
      }
    }
    if (e && typeof e === 'object' && 'message' in e) {
      const m = (e as { message: unknown }).message;
      // Wails' calls.js rejects with new Error(formatted): a string formatter
      // result survives as the message, an object one would not.
      if (typeof m !== 'string' || m.startsWith('{')) {
        e = m;
        continue;
      }
    }
    return e;
  }
  return e;
}

// Checkpoints (backend/checkpoint, desktop/changes.go).

/** One path one row changed (checkpoint.Change). */
export interface Change {
  seq: number;
  path: string;
  change: 'created' | 'modified' | 'deleted' | 'mode';
  size: number;
  sha256: string;
  /** agent (a call), outside (found between calls: the person's edit) or person (a restore, a hunk revert). */
  by?: 'agent' | 'outside' | 'person';
}

/** A file's content before and after a row changed it (desktop.FileDiff). */
export interface FileDiff {
  path: string;
  change: string;
  before: string;
  after: string;
  /** Why a side is empty or cut (binary, too large, not stored). */
  note: string;
}

/** What a restore does or would do (checkpoint.Plan). */
export interface RestorePlan {
  restored: { path: string; change: string }[] | null;
  dry_run: boolean;
  /** Files changed since the session recorded them; by is "outside" or "session <id> row <seq>". */
  conflicts?: { path: string; by: string }[] | null;
  /** Later changes of other sessions sharing the folder that the restore would undo. */
  others?: { path: string; session_id: string; seq: number }[] | null;
  /** Files whose earlier content was never stored: left as they are. */
  unrestorable?: string[] | null;
  /** The restore's own row (0 for a preview). */
  seq?: number;
}

// MCP servers (backend/mcp, desktop/mcp.go).

export interface McpServerConfig {
  type?: string;
  command?: string;
  args?: string[] | null;
  env?: Record<string, string> | null;
  cwd?: string;
  url?: string;
  headers?: Record<string, string> | null;
  disabled?: boolean;
  trusted?: boolean;
  timeout_s?: number;
}

export interface McpConfig {
  mcpServers: Record<string, McpServerConfig> | null;
}

export type McpState = 'starting' | 'ready' | 'failed' | 'exited' | 'restarting' | 'disabled';

/** One server's health (mcp.Status). */
export interface McpStatus {
  name: string;
  transport: string;
  status: McpState;
  reason: string;
  /** Model-facing tool names (empty unless ready). */
  tools: string[] | null;
  stderr_tail: string;
  exit_code?: number | null;
  attempt?: number;
  max_restarts?: number;
  trusted: boolean;
  skipped?: string[] | null;
}

/** How one server tool reaches the model (mcp.NameMapping). */
export interface McpName {
  name: string;
  server: string;
  tool: string;
  /** Why the name is not simply mcp__<server>__<tool> (replaced characters, shortened, collision). */
  note?: string;
}

export interface McpView {
  path: string;
  config: McpConfig;
  /** Why the file could not be read ("" when fine). */
  error: string;
  servers: McpStatus[] | null;
  names: McpName[] | null;
}

/** A fork made by Edit message or Regenerate, and the run started in it. */
export interface ForkedRun {
  session: Session;
  run_id: string;
}

/**
 * Sessions that are versions of one another: they share rows 1..at and differ from at+1 on
 * (edits of the message at+1, or regenerations of the reply to the message at at).
 */
export interface Branch {
  at: number;
  /** Oldest first; the original first. */
  sessions: string[];
  /** This session's place in sessions. */
  index: number;
}

/** A session's own budgets, set in its header; null takes the saved default (Settings). */
export interface SessionBudgets {
  max_turns: number | null;
  max_tool_calls: number | null;
  max_tokens: number | null;
  max_cost_usd: number | null;
  timeout_seconds: number | null;
}

/** A plan step's status (store.Step*). */
export type StepStatus = 'pending' | 'in_progress' | 'completed';

/** update_plan's arguments: what the model plans, step by step (store.Plan). */
export interface Plan {
  explanation?: string;
  plan: { step: string; status: StepStatus }[];
}

/** The session's latest plan, pinned above the message box (store.PinnedPlan). */
export interface PinnedPlan extends Plan {
  /** The row it came from. */
  seq: number;
  /** "model" (an update_plan call) or "person" (an edit). */
  by: 'model' | 'person';
}

/** An agent definition a task call can name (agents.Definition); error "" when it is used. */
export interface AgentDefinition {
  name: string;
  description: string;
  /** The file, or "builtin". */
  source: string;
  /** null: every tool of the parent. */
  tools: string[] | null;
  model: string;
  error: string;
}
