// Pure helpers for showing rows, arguments and numbers. No React, no Go.
import type {
  HookPayload,
  Usage,
  Row,
} from '../api/types';

/** Parses raw tool arguments; undefined when they are not JSON. */
export function parseArgs(raw: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(raw);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Raw arguments as indented JSON, or the raw text when it does not parse. */
export function prettyJSON(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/** One line saying what a row holds, for the chunk table. */
export function summarize(row: Row, max = 140): string {
  let s = '';
  switch (row.kind) {
    case 'user':
    case 'system':
      s = row.payload.text ?? '';
      break;
    case 'assistant': {
      const p = row.payload;
      const calls = (p.tool_calls ?? []).map((c) => `${c.name}(…)`).join(', ');
      s = [p.text, calls && `calls ${calls}`].filter(Boolean).join(' · ');
      break;
    }
    case 'tool_result': {
      const p = row.payload;
      s = `${p.name}${p.sandboxed ? ' [sandboxed]' : ''}${p.is_error ? ' (error)' : ''}: ${p.content ?? ''}`;
      break;
    }
    case 'approval': {
      const p = row.payload;
      s = `${p.tool} ${p.decision} by ${p.by}${p.reason ? `: ${p.reason}` : ''}`;
      break;
    }
    case 'restore': {
      const p = row.payload;
      const n = p.restored?.length ?? 0;
      s = `restored ${p.path || `${n} file${n === 1 ? '' : 's'}`} to before #${p.to_seq}: ${(p.restored ?? []).map((r) => r.path).join(', ')}`;
      break;
    }
    case 'hook': {
      const p = row.payload;
      const decided = p.decision ? ` → ${p.decision}` : '';
      s = `${p.event}${p.tool ? ` ${p.tool}` : ''} hook ${p.command} exit ${p.exit_code}${decided}${p.reason ? `: ${p.reason}` : ''}`;
      break;
    }
    case 'summary':
      s = `summary through #${row.payload.through_seq}: ${row.payload.text ?? ''}`;
      break;
    case 'note':
      s = `note to the model: ${row.payload.text ?? ''}`;
      break;
    case 'usage':
      s = usageRowText(row.payload);
      break;
    case 'image_excluded': {
      const p = row.payload;
      const seqs = [...new Set((p.images ?? []).map((im) => `#${im.seq}`))].join(', ');
      s = `${p.images?.length ?? 0} image(s) of ${seqs} left out of the context: ${p.reason ?? ''}`;
      break;
    }
  }
  // Cut before collapsing whitespace: a 1 MB tool result costs what 400 characters do.
  s = s.slice(0, max * 3).replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Splits a search snippet on its \u0001…\u0002 markers: odd parts are matches. */
export function splitSnippet(snippet: string): { text: string; match: boolean }[] {
  const parts: { text: string; match: boolean }[] = [];
  let rest = snippet;
  while (rest) {
    const start = rest.indexOf('\u0001');
    if (start < 0) {
      parts.push({ text: rest, match: false });
      break;
    }
    if (start > 0) parts.push({ text: rest.slice(0, start), match: false });
    const end = rest.indexOf('\u0002', start + 1);
    const stop = end < 0 ? rest.length : end;
    parts.push({ text: rest.slice(start + 1, stop), match: true });
    rest = end < 0 ? '' : rest.slice(end + 1);
  }
  return parts.filter((p) => p.text !== '');
}

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(Math.round(n));
}

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/**
 * A time in whole minutes ("<1m", "4m", "1h 5m"): for a clock that moves once a minute, as the
 * run clocks do while every call waits for the person (each move repaints the window).
 */
export function formatMinutes(ms: number): string {
  const m = Math.floor(Math.max(0, ms) / 60000);
  if (m < 1) return '<1m';
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

// Built once: toLocale*String builds a formatter per call, which a table
// scrolling through thousands of rows a second feels. Built on first use, not at
// start-up: a formatter loads ICU's locale data into the web process (about 3.6 MB),
// which a window with no session to list does not need.
let formats: { time: Intl.DateTimeFormat; day: Intl.DateTimeFormat } | null = null;

export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  formats ??= {
    time: new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }),
    day: new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' }),
  };
  const today = new Date();
  const sameDay = d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate();
  return sameDay ? formats.time.format(d) : formats.day.format(d);
}

export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** What a stop reason means, in words a person reads. */
export const STOP_TEXT: Record<string, string> = {
  completed: 'Completed.',
  cancelled: 'Stopped.',
  max_turns: 'Stopped: the maximum number of turns was reached.',
  max_tool_calls: 'Stopped: the maximum number of tool calls was reached.',
  loop_detected: 'Stopped: loop detected (the same tool call was repeated).',
  token_budget: 'Stopped: the token budget was used up.',
  cost_budget: 'Stopped: the cost budget was used up.',
  timeout: 'Stopped: the time limit was reached.',
  context_exceeded: 'Stopped: the conversation no longer fits in the context window.',
  truncated: 'The reply was cut off: the model hit its output limit.',
  refused: 'The provider refused to answer (content filter).',
  provider_error: 'The model endpoint failed.',
  hook_stopped: 'Stopped by a hook.',
  interrupted: 'The run was interrupted.',
  error: 'The run failed.',
  storage_error: 'Stopped: the database could not be written (its disk is full or failing).',
};

/** A model call's spend in words: "1.2k in (300 cached) / 40 out · $0.0012", or "usage unreported". */
export function spendText(u: Usage | undefined): string {
  if (!u || u.unreported) return 'usage unreported';
  const cached = u.cache_read_tokens ? ` (${formatTokens(u.cache_read_tokens)} cached)` : '';
  return `${formatTokens(u.input_tokens)} in${cached} / ${formatTokens(u.output_tokens)} out · $${u.cost_usd.toFixed(4)}`;
}

/** A model call that left no answer, in words: what happened (Go's words) and what it used. */
export function usageRowText(p: { reason: string; usage?: Usage }): string {
  const used = !p.usage || p.usage.unreported ? 'The provider did not report the tokens it used.' : `It used ${spendText(p.usage)}.`;
  return `${p.reason.replace(/[.\s]+$/, '')}. ${used}`;
}

/** One line for a hook's run: event, command, how it ended, what it decided and why. */
export function describeHook(p: HookPayload): string {
  const ended = p.exit_code === -1 ? 'did not finish' : `exit ${p.exit_code}`;
  const decided = p.decision ? `: ${p.decision}` : '';
  return `${p.event} hook ${p.command} (${ended}, ${p.duration_ms} ms)${decided}${p.reason ? ` — ${p.reason}` : ''}`;
}
