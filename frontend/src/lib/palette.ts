// The "/" palette of the message box: which entries match what is typed, and whether a
// message is a command to send as one. Pure: no React, no Go.
import type { PaletteEntry } from '../api/types';

/** The name being typed after "/" while the palette is open (no space yet); null otherwise. */
export function paletteQuery(text: string): string | null {
  const m = /^\/(\S*)$/.exec(text);
  return m ? m[1] : null;
}

/** The entries whose name starts with query, sendable ones first, then by name. */
export function matchEntries(entries: PaletteEntry[], query: string): PaletteEntry[] {
  const q = query.toLowerCase();
  return entries
    .filter((e) => e.name.toLowerCase().startsWith(q))
    .sort((a, b) => Number(a.error !== '') - Number(b.error !== '') || a.name.localeCompare(b.name));
}

/** "/name args" naming a sendable entry: the command to send; null for a plain message. */
export function parseCommand(text: string, entries: PaletteEntry[]): { name: string; args: string } | null {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return null;
  const name = m[1];
  return entries.some((e) => e.name === name && e.error === '') ? { name, args: (m[2] ?? '').trim() } : null;
}
