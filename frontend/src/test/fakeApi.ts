// An in-memory stand-in for src/api/backend.ts, so component tests run
// without Go. Tests drive it: seed sessions, push loop events, inspect calls.
import { vi } from 'vitest';
import type { WireEvent } from '../api/backend';
import type { Chunk, ConnectionResult, Session, Settings } from '../api/types';

type Handler = (ev: WireEvent) => void;

export function makeFakeApi() {
  const handlers = new Set<Handler>();
  const state = {
    settings: { base_url: 'http://127.0.0.1:9/v1', model: 'fake-model', has_key: false, key_source: '', configured: true } as Settings,
    sessions: [] as Session[],
    rows: new Map<string, Chunk[]>(),
    connection: { ok: true, models: ['fake-model'], error: '' } as ConnectionResult,
    sendError: null as null | { code: string; message: string },
  };
  let n = 0;
  const session = (title: string): Session => {
    n++;
    const now = new Date().toISOString();
    return { id: `s${n}`, title, workspace: '', model: 'fake-model', parent_id: '', fork_seq: 0, created_at: now, updated_at: now, archived: false };
  };
  const api = {
    presets: vi.fn(async () => [
      { name: 'OpenAI', base_url: 'https://api.openai.com/v1', needs_key: true },
      { name: 'Ollama', base_url: 'http://localhost:11434/v1', needs_key: false },
    ]),
    getSettings: vi.fn(async () => state.settings),
    saveSettings: vi.fn(async (s: { base_url: string; model: string }) => {
      state.settings = { ...state.settings, base_url: s.base_url, model: s.model, configured: true };
      return state.settings;
    }),
    testConnection: vi.fn(async () => state.connection),
    listSessions: vi.fn(async () => [...state.sessions]),
    newSession: vi.fn(async () => {
      const s = session('New session');
      state.sessions.unshift(s);
      state.rows.set(s.id, []);
      return s;
    }),
    openSession: vi.fn(async (id: string) => ({
      session: state.sessions.find((s) => s.id === id)!,
      rows: [...(state.rows.get(id) ?? [])],
    })),
    sendMessage: vi.fn(async (id: string, text: string) => {
      if (state.sendError) throw state.sendError;
      const rows = state.rows.get(id) ?? [];
      rows.push(chunk(id, rows.length + 1, 'user', { text }));
      state.rows.set(id, rows);
      return 'run1';
    }),
    cancel: vi.fn(async () => {}),
    openURL: vi.fn(),
    onEvent: vi.fn((h: Handler) => {
      handlers.add(h);
      return () => handlers.delete(h);
    }),
  };
  const emit = (ev: Partial<WireEvent> & { type: string; session_id: string }) => {
    for (const h of handlers) h({ run_id: 'run1', seq: 0, ...ev } as WireEvent);
  };
  return { api, state, emit, session, chunk };
}

export function chunk(session_id: string, seq: number, kind: Chunk['kind'], payload: unknown): Chunk {
  return { session_id, seq, kind, payload, run_id: 'run1', created_at: new Date().toISOString() };
}
