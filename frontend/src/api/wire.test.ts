// The generated page types (wire.ts) as the page relies on them. The @ts-expect-error lines are
// checked by `tsc --noEmit`: they fail the type check if Row or LoopEvent stop narrowing.
import { describe, expect, it } from 'vitest';
import { chunk } from '../test/fakeApi';
import { isLoopEvent } from './events';
import { CHUNK_KINDS, ERROR_CODES, EVENT_TYPES, LOSSY_EVENTS, type LoopEvent, type Row } from './types';

/** What the chunk table would say of a row's calls: only an assistant row has any. */
function callNames(r: Row): string[] {
  if (r.kind === 'assistant') return (r.payload.tool_calls ?? []).map((c) => c.name);
  if (r.kind === 'tool_result') return [r.payload.name];
  // @ts-expect-error a user row's payload has no tool_calls
  return r.kind === 'user' ? r.payload.tool_calls : [];
}

describe('generated wire types', () => {
  it('narrows a row on its kind to that kind payload', () => {
    const rows = [
      chunk('s1', 1, 'user', { text: 'hi' }),
      chunk('s1', 2, 'assistant', { text: '', reasoning: '', tool_calls: [{ id: 'c1', name: 'read_file', arguments: '{}' }] }),
      chunk('s1', 3, 'tool_result', { call_id: 'c1', name: 'read_file', content: 'x', is_error: false }),
    ];
    expect(rows.map(callNames)).toEqual([undefined, ['read_file'], ['read_file']]);
  });

  it('narrows an event on its type', () => {
    const ev = { type: 'files_changed', session_id: 's1', run_id: 'r1', seq: 4, row_seq: 3, call_id: 'c1', changes: null } as const;
    expect(isLoopEvent(ev)).toBe(true);
    const e: LoopEvent = ev;
    if (e.type === 'files_changed') expect(e.changes ?? []).toEqual([]);
    // @ts-expect-error run_finished has no changes
    if (e.type === 'run_finished') expect(e.changes).toBeUndefined();
    expect(isLoopEvent({ type: 'not_an_event' })).toBe(false);
  });

  it('carries the names Go declares', () => {
    expect(CHUNK_KINDS).toContain('hook');
    expect(EVENT_TYPES[0]).toBe('run_started');
    expect(LOSSY_EVENTS).toEqual(['text_delta', 'reasoning_delta', 'tool_output']);
    expect(ERROR_CODES).toContain('not_pending');
  });
});
