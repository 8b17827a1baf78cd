import { describe, expect, it } from 'vitest';
import { approvalWhat, nextSentences, plain } from './announce';

describe('nextSentences', () => {
  it('says nothing until a sentence is complete, then that sentence once', () => {
    expect(nextSentences('Hello wor', 0, false)).toEqual({ say: '', to: 0 });
    expect(nextSentences('Hello world. Next', 0, false)).toEqual({ say: 'Hello world.', to: 12 });
    expect(nextSentences('Hello world. Next one! And', 12, false)).toEqual({ say: 'Next one!', to: 22 });
  });
  it('ends sentences at a line break, a CJK stop and closing quotes, not inside a number or a path', () => {
    expect(nextSentences('Version 1.5 is out', 0, false).say).toBe('');
    expect(nextSentences('Read ./a.txt first', 0, false).say).toBe('');
    expect(nextSentences('A list:\n- one', 0, false).say).toBe('A list:');
    expect(nextSentences('你好。再见', 0, false).say).toBe('你好。');
    expect(nextSentences('He said "stop." Then', 0, false).say).toBe('He said "stop."');
  });
  it('says the rest when the reply ends mid-sentence', () => {
    expect(nextSentences('Done. And the rest', 6, true)).toEqual({ say: 'And the rest', to: 18 });
  });
});

describe('plain', () => {
  it('reads Markdown as words', () => {
    expect(plain('## Title\nSome **bold** and `code`, see [the docs](https://x.y).')).toBe('Title Some bold and code, see the docs.');
    expect(plain('```js\nx()\n```')).toBe('x()');
  });
});

describe('approvalWhat', () => {
  it('names the command, else the path, else the arguments', () => {
    expect(approvalWhat({ command: 'rm -rf build' })).toBe('rm -rf build');
    expect(approvalWhat({ path: 'a.txt', content: 'x' })).toBe('a.txt');
    expect(approvalWhat({ q: 1 })).toBe('{"q":1}');
    expect(approvalWhat({ command: 'x'.repeat(400) })).toHaveLength(301);
  });
});
