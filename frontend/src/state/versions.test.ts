import { describe, expect, it } from 'vitest';
import { chunk } from '../test/fakeApi';
import { isFinalReply, placeVersions, runStarts } from './versions';

const user = (seq: number, run: string, text = 'q') => chunk('s', seq, 'user', { text }, run);
const reply = (seq: number, run: string, text = 'a', calls = 0) =>
  chunk('s', seq, 'assistant', { text, reasoning: '', tool_calls: Array.from({ length: calls }, (_, i) => ({ id: `c${i}`, name: 'list_dir', arguments: '{}' })) }, run);

describe('versions', () => {
  it('puts an edit branch on the message and a regeneration branch on the final reply', () => {
    // r1: message 1, tool turn 2, final reply 3; r2: message 4, reply 5.
    const rows = [user(1, 'r1'), reply(2, 'r1', '', 1), reply(3, 'r1'), user(4, 'r2'), reply(5, 'r2')];
    const v = placeVersions(rows, [
      { at: 3, sessions: ['a', 'b'], index: 0 }, // edits of message 4
      { at: 1, sessions: ['a', 'c', 'd'], index: 2 }, // regenerations of r1's reply
    ]);
    expect(v.get(4)).toEqual({ sessions: ['a', 'b'], index: 0 });
    expect(v.get(3)).toEqual({ sessions: ['a', 'c', 'd'], index: 2 });
    expect(v.has(2)).toBe(false); // a tool turn is not a reply to regenerate
    expect(v.size).toBe(2);
  });

  it('places a regenerated run (no message of its own) at the row before it', () => {
    const rows = [user(1, 'r1'), reply(2, 'r9')];
    expect(runStarts(rows).get('r9')).toBe(1);
    expect(placeVersions(rows, [{ at: 1, sessions: ['x', 'y'], index: 1 }]).get(2)).toEqual({ sessions: ['x', 'y'], index: 1 });
  });

  it('shows nothing without siblings', () => {
    expect(placeVersions([user(1, 'r1'), reply(2, 'r1')], []).size).toBe(0);
    expect(isFinalReply(reply(2, 'r1', '', 1))).toBe(false);
  });
});
