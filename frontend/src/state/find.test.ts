import { describe, expect, it } from 'vitest';
import type { ChunkKind, RowPayloads } from '../api/types';
import { chunk } from '../test/fakeApi';
import { findMatches, hiddenMatches, step } from './find';

describe('find', () => {
  it('finds every occurrence across texts, ignoring case', () => {
    expect(findMatches(['Go test ./...', 'no', 'go GO'], 'go')).toEqual([
      { text: 0, offset: 0 },
      { text: 2, offset: 0 },
      { text: 2, offset: 3 },
    ]);
    expect(findMatches(['aaaa'], 'aa')).toHaveLength(2); // not overlapping
    expect(findMatches(['x'], '  ')).toEqual([]);
  });

  it('steps forward and back, wrapping', () => {
    expect(step(-1, 3, false)).toBe(0);
    expect(step(-1, 3, true)).toBe(2);
    expect(step(2, 3, false)).toBe(0);
    expect(step(0, 3, true)).toBe(2);
    expect(step(0, 0, false)).toBe(-1);
  });
});

describe('hiddenMatches', () => {
  const row = <K extends ChunkKind>(seq: number, kind: K, payload: RowPayloads[K]) => chunk('s', seq, kind, payload, 'r');
  const rows = [
    row(1, 'user', { text: 'find the needle' }),
    row(2, 'assistant', { text: 'Needle? Let me look.', reasoning: 'a needle', tool_calls: [{ id: 'c', name: 'search_text', arguments: '{"pattern":"needle"}' }] }),
    row(3, 'tool_result', { call_id: 'c', name: 'search_text', content: 'a.txt: needle, needle', is_error: false }),
    row(4, 'usage', { usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 }, reason: 'needle' }),
    row(5, 'user', { text: 'needle again' }),
  ];
  it('counts each match of the rows not rendered, in row order, in messages, arguments and output', () => {
    expect(hiddenMatches(rows, 5, 'NEEDLE').map((m) => m.seq)).toEqual([1, 2, 2, 2, 3, 3]);
    expect(hiddenMatches(rows, 1, 'needle')).toEqual([]);
    expect(hiddenMatches(rows, Infinity, 'needle')).toHaveLength(7);
    expect(hiddenMatches(rows, Infinity, ' ')).toEqual([]);
  });
});
