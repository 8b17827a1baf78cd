import { describe, expect, it } from 'vitest';
import { appendDelta, prune, visible, type Delta, type Segment } from './stream';

const d = (run: string, seq: number, text: string, type: Delta['type'] = 'text_delta'): Delta => ({ type, run_id: run, seq, text });
const fold = (ds: Delta[]) => ds.reduce<Segment[]>(appendDelta, []);

describe('stream', () => {
  it('merges deltas of one run and seq into one segment, text and reasoning apart', () => {
    const segs = fold([d('r1', 3, 'think', 'reasoning_delta'), d('r1', 3, 'Hel'), d('r1', 3, 'lo')]);
    expect(segs).toEqual([{ run: 'r1', seq: 3, text: 'Hello', reasoning: 'think' }]);
  });

  it('shows the live run from the seq where the stored rows end', () => {
    const segs = fold([d('r1', 3, 'first turn. '), d('r1', 7, 'second turn'), d('r0', 9, 'old run')]);
    expect(visible(segs, 'r1', 0).text).toBe('first turn. second turn');
    // The first turn's assistant row was stored at seq 5: only the second shows.
    expect(visible(segs, 'r1', 5).text).toBe('second turn');
    expect(visible(segs, 'r2', 0)).toEqual({ text: '', reasoning: '' });
  });

  it('a delta that overtook its run_started is kept until the run is live', () => {
    const segs = fold([d('r2', 12, 'early')]);
    expect(prune(segs, '', 0)).toBe(segs);
    expect(visible(segs, 'r2', 12).text).toBe('early');
  });

  it('prunes stored text and other runs while a run is live', () => {
    const segs = fold([d('r0', 1, 'old'), d('r1', 3, 'stored'), d('r1', 6, 'live')]);
    expect(prune(segs, 'r1', 5)).toEqual([{ run: 'r1', seq: 6, text: 'live', reasoning: '' }]);
  });
});
