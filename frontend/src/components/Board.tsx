import './inbox.css';
import type { Activity } from '../api/types';
import { useNow } from '../hooks/useNow';
import { formatCost, formatDuration, formatMinutes } from '../lib/format';
import { BOARD_FILTERS, type BoardFilter } from '../state/inbox';

/** The board's filters over the session list, each with how many sessions it shows. */
export function BoardFilters({ filter, counts, onFilter }: { filter: BoardFilter; counts: Record<BoardFilter, number>; onFilter: (f: BoardFilter) => void }) {
  return (
    <div className="board-filters" role="radiogroup" aria-label="Show sessions">
      {BOARD_FILTERS.map((f) => (
        <button
          key={f.id}
          type="button"
          role="radio"
          aria-checked={filter === f.id}
          className={`board-filter ${f.id}${filter === f.id ? ' on' : ''}`}
          onClick={() => onFilter(f.id)}
        >
          {f.label} <span className="count">{counts[f.id]}</span>
        </button>
      ))}
    </div>
  );
}

/** A running session's current step, its run's cost and time so far, under its title. */
export function SessionStep({ activity }: { activity?: Activity }) {
  const running = activity?.state === 'working' || activity?.state === 'needs_you';
  // Waiting for the person, nothing moves but this clock: whole minutes, once a minute
  // (docs/benchmarks.md, "Many agents at once").
  const waiting = activity?.state === 'needs_you';
  const now = useNow(running, waiting ? 60000 : 1000);
  if (!activity || !running) return null;
  const since = activity.started_at ? Date.parse(activity.started_at) : NaN;
  const elapsed = waiting ? formatMinutes : formatDuration;
  return (
    <span className={`session-step ${activity.state}`} aria-label="Current step">
      <span className="step">{activity.step}</span>
      <span className="spend">
        {formatCost(activity.cost_usd)}
        {Number.isFinite(since) && ` · ${elapsed(Math.max(0, now - since))}`}
      </span>
    </span>
  );
}
