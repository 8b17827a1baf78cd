import { describe, expect, it } from 'vitest';
import type { PaletteEntry } from '../api/types';
import { matchEntries, paletteQuery, parseCommand } from './palette';

const entry = (name: string, error = ''): PaletteEntry => ({ kind: 'command', name, description: '', argument_hint: '', path: `/p/${name}.md`, error });
const entries = [entry('review'), entry('release'), entry('broken', 'front matter is not valid YAML'), entry('brief')];

describe('palette', () => {
  it('opens on "/" and closes at the first space', () => {
    expect(paletteQuery('/')).toBe('');
    expect(paletteQuery('/re')).toBe('re');
    expect(paletteQuery('/review 42')).toBeNull();
    expect(paletteQuery('hello /re')).toBeNull();
  });
  it('matches by prefix, sendable entries first', () => {
    expect(matchEntries(entries, 're').map((e) => e.name)).toEqual(['release', 'review']);
    expect(matchEntries(entries, 'br').map((e) => e.name)).toEqual(['brief', 'broken']);
  });
  it('sends only a known, sendable command as one', () => {
    expect(parseCommand('/review 42 and more', entries)).toEqual({ name: 'review', args: '42 and more' });
    expect(parseCommand('/review', entries)).toEqual({ name: 'review', args: '' });
    expect(parseCommand('/broken x', entries)).toBeNull();
    expect(parseCommand('/usr/bin/ls is missing', entries)).toBeNull();
    expect(parseCommand('please /review', entries)).toBeNull();
  });
});
