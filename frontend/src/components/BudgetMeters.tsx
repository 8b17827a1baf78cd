import { useMemo } from 'react';
import type { BudgetPayload } from '../api/events';
import type { AssistantPayload, Budgets, Chunk, Run, RunLimits } from '../api/types';
import { useNow } from '../hooks/useNow';
import type { Phase } from '../hooks/useSession';
import { STOP_TEXT, formatCost, formatDuration, formatTokens } from '../lib/format';

/** The fraction of a budget at which a meter changes colour (DESIGN.md: soft limit). */
export const SOFT_LIMIT = 0.8;

interface Props {
  /** The live run's meters (budget events), if a run has reported any. */
  budget: BudgetPayload | null;
  /** The session's runs, oldest first; the last one is shown when nothing is live. */
  runs: Run[];
  rows: Chunk[];
  phase: Phase;
  runStartedAt: number | null;
  /** How the live run ended, when it just did. */
  status: string | null;
  defaults: Budgets | null;
  contextWindow: number;
}

interface MeterSpec {
  name: string;
  value: number;
  max: number;
  text: (v: number) => string;
  warn: string[];
  stoppedBy: string[];
}

/**
 * The budget meters of the current (or last) run: each a role="meter" named
 * Turns, Tool calls, Tokens, Cost, Time or Context, coloured at the soft
 * limit and when exhausted, with the stop reason and loop detection.
 */
export function BudgetMeters({ budget, runs, rows, phase, runStartedAt, status, defaults, contextWindow }: Props) {
  const last = runs.at(-1);
  const live = phase !== 'idle';
  const now = useNow(live);
  const limits: Budgets = last?.budgets ? fromLimits(last.budgets) : (defaults ?? NO_LIMITS);
  const contextEstimate = useMemo(() => estimateContext(rows), [rows]);

  let b: BudgetPayload;
  if (budget) {
    b = budget;
  } else if (last && !live) {
    b = {
      turns: last.turns,
      max_turns: limits.max_turns,
      tool_calls: last.tool_calls,
      max_tool_calls: limits.max_tool_calls,
      tokens: last.input_tokens + last.output_tokens,
      max_tokens: limits.max_tokens,
      cost_usd: last.cost_usd,
      max_cost_usd: limits.max_cost_usd,
      elapsed_ms: Math.max(0, Date.parse(last.ended_at ?? '') - Date.parse(last.started_at)) || 0,
      timeout_ms: limits.timeout_seconds * 1000,
      context_tokens: contextEstimate,
      context_window: last.budgets?.context_window || contextWindow,
      warnings: null,
    };
  } else {
    const d = defaults ?? limits;
    b = {
      turns: 0, max_turns: d.max_turns, tool_calls: 0, max_tool_calls: d.max_tool_calls,
      tokens: 0, max_tokens: d.max_tokens, cost_usd: 0, max_cost_usd: d.max_cost_usd,
      elapsed_ms: 0, timeout_ms: d.timeout_seconds * 1000,
      context_tokens: contextEstimate, context_window: contextWindow, warnings: null,
    };
  }
  const elapsed = live && runStartedAt !== null ? Math.max(b.elapsed_ms, now - runStartedAt) : b.elapsed_ms;
  const stop = status ?? (last && !live ? last.status : null);
  const warnings = b.warnings ?? [];

  const meters: MeterSpec[] = [
    { name: 'Turns', value: b.turns, max: b.max_turns, text: String, warn: ['turns'], stoppedBy: ['max_turns'] },
    { name: 'Tool calls', value: b.tool_calls, max: b.max_tool_calls, text: String, warn: ['tool_calls'], stoppedBy: ['max_tool_calls'] },
    { name: 'Tokens', value: b.tokens, max: b.max_tokens, text: formatTokens, warn: ['tokens'], stoppedBy: ['token_budget'] },
    { name: 'Cost', value: b.cost_usd, max: b.max_cost_usd, text: formatCost, warn: ['cost'], stoppedBy: ['cost_budget'] },
    { name: 'Time', value: elapsed, max: b.timeout_ms, text: formatDuration, warn: ['time', 'timeout'], stoppedBy: ['timeout'] },
    { name: 'Context', value: b.context_tokens, max: b.context_window, text: formatTokens, warn: ['context'], stoppedBy: ['context_exceeded'] },
  ];
  const repeats = useMemo(() => repeatedCalls(rows, last?.run_id), [rows, last?.run_id]);

  return (
    <section className="meters" aria-label="Budget">
      <p className="muted">{live ? 'This run' : last ? 'Last run' : 'Limits for the next run'}</p>
      {meters.map((m) => (
        <Meter key={m.name} spec={m} warned={warnings.some((w) => m.warn.some((k) => w.includes(k)))} stopped={stop !== null && m.stoppedBy.includes(stop)} />
      ))}
      <p className={`loop-detect${stop === 'loop_detected' ? ' over' : ''}`} role="note" aria-label="Loop detection">
        {stop === 'loop_detected'
          ? 'Loop detected: the same tool call was repeated, so the run stopped.'
          : `Loop detection on: a call repeated with the same arguments is refused the third time and stops the run the fourth.${repeats > 0 ? ` Repeats so far: ${repeats}.` : ''}`}
      </p>
      {stop && stop !== 'completed' && (
        <p className="stop-reason" role="note" aria-label="Stop reason">
          {STOP_TEXT[stop] ?? `Run ended: ${stop}`}
        </p>
      )}
    </section>
  );
}

function Meter({ spec, warned, stopped }: { spec: MeterSpec; warned: boolean; stopped: boolean }) {
  const { name, value, max, text } = spec;
  const ratio = max > 0 ? value / max : 0;
  const level = stopped || ratio >= 1 ? 'over' : warned || ratio >= SOFT_LIMIT ? 'soft' : 'ok';
  const label = max > 0 ? `${text(value)} of ${text(max)}` : `${text(value)} (no limit)`;
  return (
    <div className={`meter-row lvl-${level}`}>
      <span className="meter-name">{name}</span>
      <div
        role="meter"
        aria-label={name}
        aria-valuemin={0}
        aria-valuemax={max > 0 ? max : Math.max(value, 1)}
        aria-valuenow={value}
        aria-valuetext={label}
        data-level={level}
        className="meter"
      >
        <div className="fill" style={{ width: `${Math.min(100, Math.round(ratio * 100))}%` }} />
      </div>
      <span className="meter-text">{label}</span>
    </div>
  );
}

const NO_LIMITS: Budgets = { max_turns: 0, max_tool_calls: 0, max_tokens: 0, max_cost_usd: 0, timeout_seconds: 0 };

/** A run's recorded limits (loop.Limits: zero fields omitted, timeout in nanoseconds). */
function fromLimits(l: RunLimits): Budgets {
  return {
    max_turns: l.max_turns ?? 0,
    max_tool_calls: l.max_tool_calls ?? 0,
    max_tokens: l.max_tokens ?? 0,
    max_cost_usd: l.max_cost_usd ?? 0,
    timeout_seconds: (l.timeout ?? 0) / 1e9,
  };
}

/** Tokens the model sees now: the rows after the last summary (an estimate from row tokens). */
function estimateContext(rows: Chunk[]): number {
  let total = 0;
  for (let i = rows.length - 1; i >= 0; i--) {
    total += rows[i].tokens ?? 0;
    if (rows[i].kind === 'summary') break;
  }
  return total;
}

/** How many calls of a run repeat an earlier call with the same tool and arguments. */
function repeatedCalls(rows: Chunk[], runID: string | undefined): number {
  if (!runID) return 0;
  const seen = new Set<string>();
  let repeats = 0;
  for (const r of rows) {
    if (r.kind !== 'assistant' || r.run_id !== runID) continue;
    for (const c of (r.payload as AssistantPayload).tool_calls ?? []) {
      const key = `${c.name}\u0000${c.arguments}`;
      if (seen.has(key)) repeats++;
      seen.add(key);
    }
  }
  return repeats;
}
