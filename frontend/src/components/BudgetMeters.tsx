import type { Meter, MeterUnit, Repeats } from '../api/types';
import { useNow } from '../hooks/useNow';
import type { Phase } from '../state/session';
import { STOP_TEXT, formatCost, formatDuration, formatTokens } from '../lib/format';

interface Props {
  /** Go's meters: of the live run (budget events), as a run left them, or of the last run. */
  meters: Meter[];
  /** Go's loop-detection state for the live run. */
  repeats: Repeats | null;
  phase: Phase;
  /** How the live or last run ended, when it has. */
  status: string | null;
  /** Whether a run has ever finished here (the label says "Last run"). */
  hadRun: boolean;
}

const FORMAT: Record<MeterUnit, (v: number) => string> = {
  count: String,
  tokens: formatTokens,
  usd: formatCost,
  seconds: (v) => formatDuration(v * 1000),
};

/**
 * The budget meters as Go sends them: each a role="meter" named by Go's label (Turns, Tool
 * calls, Tokens, Cost, Time, Context) at Go's level, with Go's note on what a meter counts, the
 * stop reason and loop detection. Nothing is computed here but the Time meter's advance with
 * the clock between two budget events while Go says the run's time is counting
 * (counts_from_ms: not while the person decides, which the time budget leaves out).
 */
export function BudgetMeters({ meters, repeats, phase, status, hadRun }: Props) {
  const live = phase !== 'idle';
  // No clock while nothing counts (the person decides, or the run has no time meter).
  const now = useNow(live && meters.some((m) => m.counts_from_ms));
  const shown = meters.map((m) => (live && m.counts_from_ms ? ticking(m, (now - m.counts_from_ms) / 1000) : m));
  return (
    <section className="meters" aria-label="Budget">
      <p className="muted">{live ? 'This run' : hadRun ? 'Last run' : 'Limits for the next run'}</p>
      {shown.map((m) => (
        <MeterRow key={m.key} m={m} />
      ))}
      <p className={`loop-detect${status === 'loop_detected' ? ' over' : ''}`} role="note" aria-label="Loop detection">
        {status === 'loop_detected'
          ? 'Loop detected: the same tool call was repeated, so the run stopped.'
          : `Loop detection on: a call repeated with the same arguments is refused the third time and stops the run the fourth.${repeats && repeats.count > 0 ? ` Repeats so far: ${repeats.count} (${repeats.tool}).` : ''}`}
      </p>
      {status && status !== 'completed' && (
        <p className="stop-reason" role="note" aria-label="Stop reason">
          {STOP_TEXT[status] ?? `Run ended: ${status}`}
        </p>
      )}
    </section>
  );
}

/** The Time meter moved on by the clock (never back); its level stays Go's. */
function ticking(m: Meter, seconds: number): Meter {
  const value = Math.max(m.value, seconds);
  return { ...m, value, fraction: m.limit > 0 ? Math.min(1, value / m.limit) : 0 };
}

function MeterRow({ m }: { m: Meter }) {
  const text = FORMAT[m.unit] ?? String;
  const label = m.limit > 0 ? `${text(m.value)} of ${text(m.limit)}` : `${text(m.value)} (no limit)`;
  const level = m.level === 'hard' ? 'over' : m.level;
  return (
    <div className={`meter-row lvl-${level}`}>
      <span className="meter-name">{m.label}</span>
      <div
        role="meter"
        aria-label={m.label}
        aria-valuemin={0}
        aria-valuemax={m.limit > 0 ? m.limit : Math.max(m.value, 1)}
        aria-valuenow={m.value}
        aria-valuetext={label}
        data-level={level}
        className="meter"
      >
        <div className="fill" style={{ width: `${Math.round(m.fraction * 100)}%` }} />
      </div>
      <span className="meter-text">{label}</span>
      {m.note && <span className="meter-note">{m.note}</span>}
    </div>
  );
}
