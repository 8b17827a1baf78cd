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

/** The window's own views the palette opens instead of sending anything (kind "view"). */
export const VIEW_ENTRIES: PaletteEntry[] = [
  {
    kind: 'view',
    name: 'approvals',
    description: 'Open the approval report: the prompts you answered in every session, and rules that would spare them',
    argument_hint: '',
    path: '',
    error: '',
  },
];

/** The palette's entries: the session's commands and skills, then the window's views not shadowed by one. */
export function withViews(entries: PaletteEntry[]): PaletteEntry[] {
  return [...entries, ...VIEW_ENTRIES.filter((v) => !entries.some((e) => e.name === v.name))];
}

/** Whether the command named is one of the window's views in the palette's entries (opened, not sent). */
export function isView(name: string, entries: PaletteEntry[]): boolean {
  return entries.some((e) => e.name === name && e.kind === 'view');
}
