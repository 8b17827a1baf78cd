// Loop events: the one TypeScript mirror of backend/loop/events.go (names) and the payload
// structs beside them (shapes). backend/loop/events_mirror_test.go parses this file and fails
// when the two drift, so change both together.
//
// Every event arrives flat: "type", "session_id", "run_id", "seq" plus its payload's fields.
// seq grows by one per must-deliver event of a session; deltas (LOSSY_EVENTS) carry the seq of
// the last must-deliver event and may arrive merged. Stored rows arrive on rows_stored, before
// the event that tells what they mean; a gap in seq means something was missed: read the rows
// after the last one held (Sessions.RowsAfter), never the whole session.

import type { Row } from './types';

export const RUN_STARTED = 'run_started' as const;
export const ROWS_STORED = 'rows_stored' as const;
export const TEXT_DELTA = 'text_delta' as const;
export const REASONING_DELTA = 'reasoning_delta' as const;
export const ASSISTANT_MESSAGE = 'assistant_message' as const;
export const TOOL_CALL = 'tool_call' as const;
export const APPROVAL_REQUESTED = 'approval_requested' as const;
export const APPROVAL_DECIDED = 'approval_decided' as const;
export const TOOL_STARTED = 'tool_started' as const;
export const TOOL_OUTPUT = 'tool_output' as const;
export const TOOL_FINISHED = 'tool_finished' as const;
export const FILES_CHANGED = 'files_changed' as const;
export const USAGE = 'usage' as const;
export const COMPACTED = 'compacted' as const;
export const BUDGET = 'budget' as const;
export const RUN_FINISHED = 'run_finished' as const;
export const QUEUE_CHANGED = 'queue_changed' as const;

export const EVENT_TYPES = [
  RUN_STARTED,
  ROWS_STORED,
  TEXT_DELTA,
  REASONING_DELTA,
  ASSISTANT_MESSAGE,
  TOOL_CALL,
  APPROVAL_REQUESTED,
  APPROVAL_DECIDED,
  TOOL_STARTED,
  TOOL_OUTPUT,
  TOOL_FINISHED,
  FILES_CHANGED,
  USAGE,
  COMPACTED,
  BUDGET,
  RUN_FINISHED,
  QUEUE_CHANGED,
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Deltas: may be merged for a slow subscriber and do not advance seq. */
export const LOSSY_EVENTS: readonly EventType[] = [TEXT_DELTA, REASONING_DELTA, TOOL_OUTPUT];

/** How a run ended (run_finished.status). */
export type StopReason =
  | 'completed'
  | 'max_turns'
  | 'max_tool_calls'
  | 'loop_detected'
  | 'token_budget'
  | 'cost_budget'
  | 'timeout'
  | 'context_exceeded'
  | 'cancelled'
  | 'truncated'
  | 'refused'
  | 'provider_error'
  | 'hook_stopped'
  | 'error';

export interface EventBase {
  type: EventType;
  session_id: string;
  run_id: string;
  seq: number;
}

/** A tool call as shown: arguments is the parsed JSON, or the raw text when it does not parse. */
export interface ToolCallView {
  id: string;
  name: string;
  arguments: unknown;
}

export interface RunStartedPayload {
  prompt: string;
  model: string;
  workspace: string;
  /** How the run's shell commands are confined, in words (Go: ShellSandbox.Describe). */
  sandbox: string;
  started_at: string;
  /** 'plan' or 'execute'. */
  mode: string;
  /** Configured MCP servers that failed to start ("name: why"): the run has none of their tools. */
  mcp_failed?: string[] | null;
}

export interface DeltaPayload {
  text: string;
}

export interface AssistantMessagePayload {
  text: string;
  reasoning: string;
  tool_calls: ToolCallView[];
}

export interface ToolCallPayload {
  id: string;
  name: string;
  arguments: unknown;
}

export interface ApprovalRequestedPayload {
  call_id: string;
  name: string;
  arguments: unknown;
  read_only: boolean;
  /** The command will run in the sandbox (mode `sandboxed` runs such calls unasked). */
  sandboxed: boolean;
  /** The command asks for network (`"network": true`). */
  network: boolean;
  /** Approval mode `review`: the hunks a write_file or edit_file call would write. */
  hunks?: ProposedHunk[];
}

/** One hunk of a change not yet written (mode `review`); `new` is what an edit starts from. */
export interface ProposedHunk {
  hunk: number;
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  patch: string;
  old: string;
  new: string;
}

export interface ApprovalDecidedPayload {
  call_id: string;
  name: string;
  approved: boolean;
  by: string;
  reason: string;
}

export interface ToolStartedPayload {
  call_id: string;
  name: string;
}

export interface ToolOutputPayload {
  call_id: string;
  text: string;
}

export interface ToolFinishedPayload {
  call_id: string;
  name: string;
  content: string;
  is_error: boolean;
  /** The command ran inside the sandbox; absent otherwise. */
  sandboxed?: boolean;
}

/** One path a row changed in the folder (checkpoints). */
export interface FileChange {
  path: string;
  change: 'created' | 'modified' | 'deleted' | 'mode';
  size: number;
  /** agent (a call), outside (found between calls: the person's edit) or person (a restore, a hunk revert). */
  by?: 'agent' | 'outside' | 'person';
}

/** What the call answered by row `row_seq` changed; sent right after that row's rows_stored. */
export interface FilesChangedPayload {
  /** The row (its seq) of the call's result; the event's own `seq` is its place in the event order. */
  row_seq: number;
  call_id: string;
  changes: FileChange[];
}

export interface UsagePayload {
  input_tokens: number;
  output_tokens: number;
  total_input_tokens: number;
  total_output_tokens: number;
  cost_usd: number;
}

export interface CompactedPayload {
  /** > 0: rows from_seq..through_seq were set aside (context limit), not summarised. */
  from_seq: number;
  through_seq: number;
  summary: string;
  context_tokens: number;
  emergency: boolean;
}

export type MeterKey = 'turns' | 'tool_calls' | 'tokens' | 'cost' | 'time' | 'context';
export type MeterUnit = 'count' | 'tokens' | 'usd' | 'seconds';
export type MeterLevel = 'ok' | 'soft' | 'hard';

/** One budget meter as Go computes it; the page formats it by unit and draws it. */
export interface Meter {
  key: MeterKey;
  label: string;
  value: number;
  /** 0 = no limit. */
  limit: number;
  unit: MeterUnit;
  /** value/limit clamped to 0..1; 0 when there is no limit. */
  fraction: number;
  level: MeterLevel;
}

/** Loop detection: the call repeated most in this run and how many repeats stop it. */
export interface Repeats {
  tool: string;
  count: number;
  limit: number;
}

/**
 * Every meter. The flat fields are the CLI's --json contract; the page draws meters and
 * repeats only.
 */
export interface BudgetPayload {
  turns: number;
  max_turns: number;
  tool_calls: number;
  max_tool_calls: number;
  tokens: number;
  max_tokens: number;
  cost_usd: number;
  max_cost_usd: number;
  elapsed_ms: number;
  timeout_ms: number;
  context_tokens: number;
  context_window: number;
  warnings: string[] | null;
  meters: Meter[] | null;
  repeats: Repeats | null;
}

/** The structured result, also stored as the run's audit row. */
export interface RunFinishedPayload {
  status: StopReason;
  output: string;
  turns: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  /** Parts of input_tokens read from and written to the provider's prompt cache. */
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  started_at: string;
  ended_at: string;
  error: string;
  session_id: string;
  run_id: string;
  meters: Meter[] | null;
}

/** A message sent while a run was going, waiting for the next tool boundary. */
export interface QueuedMessage {
  id: string;
  text: string;
  queued_at: string;
}

/** The session's queue after a change; delivered names the messages just stored as rows. */
export interface QueueChangedPayload {
  queued: QueuedMessage[];
  delivered: string[];
}

/** Rows the runner has just stored, oldest first (seq ascending). */
export interface RowsStoredPayload {
  rows: Row[];
}

export type LoopEvent =
  | (EventBase & { type: typeof RUN_STARTED } & RunStartedPayload)
  | (EventBase & { type: typeof TEXT_DELTA } & DeltaPayload)
  | (EventBase & { type: typeof REASONING_DELTA } & DeltaPayload)
  | (EventBase & { type: typeof ASSISTANT_MESSAGE } & AssistantMessagePayload)
  | (EventBase & { type: typeof TOOL_CALL } & ToolCallPayload)
  | (EventBase & { type: typeof APPROVAL_REQUESTED } & ApprovalRequestedPayload)
  | (EventBase & { type: typeof APPROVAL_DECIDED } & ApprovalDecidedPayload)
  | (EventBase & { type: typeof TOOL_STARTED } & ToolStartedPayload)
  | (EventBase & { type: typeof TOOL_OUTPUT } & ToolOutputPayload)
  | (EventBase & { type: typeof TOOL_FINISHED } & ToolFinishedPayload)
  | (EventBase & { type: typeof FILES_CHANGED } & FilesChangedPayload)
  | (EventBase & { type: typeof USAGE } & UsagePayload)
  | (EventBase & { type: typeof COMPACTED } & CompactedPayload)
  | (EventBase & { type: typeof BUDGET } & BudgetPayload)
  | (EventBase & { type: typeof RUN_FINISHED } & RunFinishedPayload)
  | (EventBase & { type: typeof ROWS_STORED } & RowsStoredPayload)
  | (EventBase & { type: typeof QUEUE_CHANGED } & QueueChangedPayload);

/** Narrows a flat wire object to a LoopEvent when its type is one of ours. */
export function isLoopEvent(ev: { type: string }): ev is LoopEvent {
  return (EVENT_TYPES as readonly string[]).includes(ev.type);
}
