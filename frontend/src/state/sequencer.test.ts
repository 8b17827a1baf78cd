import { describe, expect, it } from 'vitest';
import { newSequencer, offer, release, type Sequencer } from './sequencer';

type E = { seq: number; type: string };
const e = (seq: number, type = 'x'): E => ({ seq, type });

/** Offers each event; returns the seqs delivered after each offer and the final state. */
function feed(events: E[], q: Sequencer<E> = newSequencer<E>()): [number[][], Sequencer<E>] {
  const out: number[][] = [];
  for (const ev of events) {
    let ready: E[];
    [q, ready] = offer(q, ev, ev.type === 'run_started');
    out.push(ready.map((r) => r.seq));
  }
  return [out, q];
}

describe('sequencer', () => {
  const cases: { name: string; events: E[]; want: number[][]; held?: number[] }[] = [
    { name: 'in order, from seq 1', events: [e(1), e(2), e(3)], want: [[1], [2], [3]] },
    { name: 'in order, from a run_started', events: [e(40, 'run_started'), e(41)], want: [[40], [41]] },
    { name: 'one overtakes another (dev server)', events: [e(1), e(3), e(2), e(4)], want: [[1], [], [2, 3], [4]] },
    { name: 'a duplicate is dropped', events: [e(1), e(2), e(2), e(3)], want: [[1], [2], [], [3]] },
    { name: 'a hole stays held', events: [e(1), e(3), e(4)], want: [[1], [], []], held: [3, 4] },
    {
      name: 'the first event seen is not a start: held until its predecessor comes',
      events: [e(8), e(7, 'run_started'), e(9)],
      want: [[], [7, 8], [9]],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const [out, q] = feed(c.events);
      expect(out).toEqual(c.want);
      expect(q.held.map((h) => h.seq)).toEqual(c.held ?? []);
    });
  }

  it('release gives up on the hole: what was held comes in order, and older events are dropped', () => {
    const [, q] = feed([e(1), e(4), e(3)]);
    const [q2, late] = release(q);
    expect(late.map((x) => x.seq)).toEqual([3, 4]);
    const [out] = feed([e(2), e(5)], q2);
    expect(out).toEqual([[], [5]]);
  });
});
