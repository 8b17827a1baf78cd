import { describe, expect, it, vi } from 'vitest';
import type { WireEvent } from './backend';

// The Wails runtime as the page meets it: EventsOn registers a listener that Wails calls with
// an emit's arguments spread (window.wails.EventsNotify -> callback.apply(null, data)).
const listeners = new Map<string, (...data: unknown[]) => void>();
vi.mock('../../wailsjs/runtime/runtime', () => ({
  EventsOn: (name: string, cb: (...data: unknown[]) => void) => {
    listeners.set(name, cb);
    return () => listeners.delete(name);
  },
  BrowserOpenURL: () => {},
  ClipboardSetText: () => Promise.resolve(true),
}));

const { api } = await import('./backend');
const { LOOP_EVENT } = await import('./wire');

describe('loop events', () => {
  it('hands every event of a batched emit to the handler, in order', () => {
    const seen: string[] = [];
    const off = api.onEvent((ev: WireEvent) => seen.push(`${ev.type}:${ev.seq}`));
    const ev = (type: string, seq: number) => ({ type, seq, session_id: 's', run_id: 'r' });
    // Go sends one frame's events in one emit (backend/desktop/batch.go)...
    listeners.get(LOOP_EVENT)!(ev('run_started', 1), ev('text_delta', 2), ev('text_delta', 3));
    // ...and a lone event as an emit of one.
    listeners.get(LOOP_EVENT)!(ev('run_finished', 4));
    expect(seen).toEqual(['run_started:1', 'text_delta:2', 'text_delta:3', 'run_finished:4']);
    off();
    expect(listeners.has(LOOP_EVENT)).toBe(false);
  });
});
