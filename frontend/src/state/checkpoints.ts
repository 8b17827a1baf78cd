// Pure helpers for checkpoints and MCP names as the page shows them. No React, no Go.
import type { Change, McpName, McpStatus } from '../api/types';

/** What each row changed, by the row's seq. */
export type ChangesBySeq = Record<number, Change[]>;

/** Groups Workspace.Changes (oldest first) by the row that made them. */
export function groupChanges(list: Change[]): ChangesBySeq {
  const out: ChangesBySeq = {};
  for (const c of list) (out[c.seq] ??= []).push(c);
  return out;
}

/** The rows that changed path (or a path below it), oldest first. */
export function changesOfPath(bySeq: ChangesBySeq, path: string): { seq: number; change: Change['change']; by: Change['by'] }[] {
  const out: { seq: number; change: Change['change']; by: Change['by'] }[] = [];
  for (const [seq, list] of Object.entries(bySeq)) {
    for (const c of list) if (c.path === path || c.path.startsWith(`${path}/`)) out.push({ seq: Number(seq), change: c.change, by: c.by });
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/** What undoing a change does, in words. */
export function undoText(change: string): string {
  switch (change) {
    case 'created':
      return 'removed (it was created)';
    case 'deleted':
      return 're-created (it was deleted)';
    case 'mode':
      return 'mode put back';
    default:
      return 'content put back (it was modified)';
  }
}

/**
 * The MCP server a model-facing tool name belongs to: Go's mapping first; for a name it no
 * longer lists (a server removed since), the mcp__<server>__<tool> form itself.
 */
export function serverOf(names: ReadonlyMap<string, McpName>, tool: string): string | undefined {
  const m = names.get(tool);
  if (m) return m.server;
  if (!tool.startsWith('mcp__')) return undefined;
  const rest = tool.slice(5);
  const cut = rest.indexOf('__');
  return cut > 0 ? rest.slice(0, cut) : undefined;
}

/** A server's status in words, as Settings shows it. */
export function describeStatus(st: McpStatus | undefined): string {
  if (!st) return 'Not started (save to start it)';
  switch (st.status) {
    case 'starting':
      return 'Starting…';
    case 'ready': {
      const n = st.tools?.length ?? 0;
      return `Ready (${n} tool${n === 1 ? '' : 's'})`;
    }
    case 'failed':
      return `Failed: ${st.reason || 'no reason given'}`;
    case 'exited':
      return `Exited (code ${st.exit_code ?? '?'})${st.reason ? `: ${st.reason}` : ''}`;
    case 'restarting':
      return `Restarting (${st.attempt ?? 0} of ${st.max_restarts ?? 5})`;
    case 'disabled':
      return 'Disabled';
    default:
      return String(st.status);
  }
}
