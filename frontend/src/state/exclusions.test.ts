import { describe, expect, it } from 'vitest';
import type { ChunkKind, RowPayloads } from '../api/types';
import { summarize } from '../lib/format';
import { chunk } from '../test/fakeApi';
import { exclusionsOf } from './exclusions';

const row = <K extends ChunkKind>(seq: number, kind: K, payload: RowPayloads[K]) => chunk('s', seq, kind, payload, 'r');

describe('exclusionsOf', () => {
  it('names each refused image on its message and on the exclusion row, with the reason', () => {
    const rows = [
      row(1, 'user', { text: 'a', images: [{ hash: 'h1', mime: 'image/png', width: 1, height: 1, name: 'one.png' }] }),
      row(2, 'assistant', { text: 'ok', reasoning: '', tool_calls: [] }),
      row(3, 'user', { text: 'b', images: [{ hash: 'h2', mime: 'image/png', width: 1, height: 1, name: 'two.png' }, { hash: 'h3', mime: 'image/png', width: 1, height: 1 }] }),
      row(4, 'image_excluded', { images: [{ seq: 3, hash: 'h2' }, { seq: 3, hash: 'h3' }], reason: '400 Invalid image.' }),
      row(5, 'image_excluded', { images: [{ seq: 1, hash: 'h1' }], reason: 'text-only' }),
    ];
    const ex = exclusionsOf(rows);
    expect(ex.bySeq.get(3)).toEqual({ h2: '400 Invalid image.', h3: '400 Invalid image.' });
    expect(ex.bySeq.get(1)).toEqual({ h1: 'text-only' });
    expect(ex.names.get(4)).toEqual(['two.png', 'an image of message #3']);
    expect(ex.names.get(5)).toEqual(['one.png']);
    expect(exclusionsOf(rows.slice(0, 3)).bySeq.size).toBe(0);
  });

  it('summarises an exclusion row for the chunk table', () => {
    const r = row(4, 'image_excluded', { images: [{ seq: 3, hash: 'h2' }, { seq: 3, hash: 'h3' }], reason: '400 Invalid image.' });
    expect(summarize(r)).toBe('2 image(s) of #3 left out of the context: 400 Invalid image.');
  });
});
