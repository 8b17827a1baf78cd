import { describe, expect, it } from 'vitest';
import { findMatches, step } from './find';

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
