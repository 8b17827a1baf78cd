// Shapes of the DTOs the Go facade (app.go) returns. The generated wailsjs
// models describe json.RawMessage payloads as number[]; these say what
// actually arrives over the bridge.

export interface Session {
  id: string;
  title: string;
  workspace: string;
  model: string;
  parent_id: string;
  fork_seq: number;
  created_at: string;
  updated_at: string;
  archived: boolean;
}

export type ChunkKind = 'user' | 'assistant' | 'tool_result' | 'approval' | 'summary' | 'system';

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface UserPayload {
  text: string;
}
export interface AssistantPayload {
  text: string;
  reasoning?: string;
  tool_calls?: ToolCall[];
}
export interface ToolResultPayload {
  call_id: string;
  name: string;
  content: string;
  is_error: boolean;
}

export interface Chunk {
  session_id: string;
  seq: number;
  kind: ChunkKind;
  payload: unknown;
  run_id: string;
  created_at: string;
}

export interface SessionView {
  session: Session;
  rows: Chunk[];
}

export interface Settings {
  base_url: string;
  model: string;
  has_key: boolean;
  key_source: '' | 'env' | 'file';
  configured: boolean;
}

export interface SettingsInput {
  base_url: string;
  model: string;
  api_key: string;
  clear_key: boolean;
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

/** The error every failed bound method rejects with (app.go formatError). */
export interface AppError {
  code: string;
  message: string;
}

export function errorMessage(e: unknown): string {
  if (e && typeof e === 'object' && 'message' in e) return String((e as AppError).message);
  return String(e);
}
