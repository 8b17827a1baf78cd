import { useNow } from '../hooks/useNow';
import type { ModelRetryingPayload } from '../api/types';
import type { PendingCall, Phase, RunningTool } from '../state/session';
import { formatDuration, formatMinutes } from '../lib/format';

interface Props {
  phase: Phase;
  pending: PendingCall[];
  running: Record<string, RunningTool>;
  runStartedAt: number | null;
  onDecideAll: (approved: boolean) => void;
  /** MCP servers still starting: a run started now waits for them. */
  mcpStarting?: string[];
  /** MCP servers the run started without ("name: why"). */
  mcpFailed?: string[];
  /** The provider's latest retry of the model call, until an answer arrives. */
  retrying?: ModelRetryingPayload | null;
}

/**
 * One line saying what is happening: waiting for the model, which tool runs
 * and for how long, or that calls wait for approval (with approve/deny all
 * when there are several).
 */
export function StatusLine({ phase, pending, running, runStartedAt, onDecideAll, mcpStarting = [], mcpFailed = [], retrying = null }: Props) {
  const tools = Object.values(running);
  // Nothing works while every call waits for the person: no spinner, and the clock shows whole
  // minutes, moving once a minute (each repaint of the window costs CPU; docs/benchmarks.md,
  // "Many agents at once").
  const waitingForPerson = pending.length > 0 && tools.length === 0;
  const now = useNow(phase !== 'idle', waitingForPerson ? 60000 : 1000);
  const elapsed = waitingForPerson ? formatMinutes : formatDuration;
  let text = '';
  if (pending.length > 0) {
    text = pending.length === 1 ? `Waiting for your approval of ${pending[0].name}` : `${pending.length} calls wait for your approval`;
  } else if (tools.length > 0) {
    const t = tools[0];
    text = `Running ${t.name} for ${formatDuration(now - t.since)}${tools.length > 1 ? ` (+${tools.length - 1} more)` : ''}`;
  } else if (phase === 'waiting' && mcpStarting.length > 0) {
    text = `Starting MCP servers… ${mcpStarting.join(', ')}`;
  } else if (phase === 'waiting' && retrying) {
    text = `Retrying (${retrying.attempt} of ${retrying.of}) after ${retrying.cause}…`;
  } else if (phase === 'waiting') {
    text = 'Waiting for the model…';
  } else if (phase === 'streaming') {
    text = 'The model is answering…';
  } else if (phase === 'tools') {
    text = 'Running tools…';
  }
  const missing = mcpFailed.length > 0 && (
    <p className="mcp-missing bad" role="alert">
      This run has no tools from: {mcpFailed.join('; ')}
    </p>
  );
  if (!text)
    return (
      <div className="status-line idle" role="status" aria-label="Run status">
        {missing}
      </div>
    );
  return (
    <div className="status-line" role="status" aria-label="Run status">
      {!waitingForPerson && <span className="spinner" aria-hidden="true" />}
      <span title={phase === 'waiting' && retrying ? retrying.error : undefined}>{text}</span>
      {runStartedAt !== null && phase !== 'idle' && <span className="muted">· {elapsed(now - runStartedAt)}</span>}
      {missing}
      {pending.length > 1 && (
        <span className="bulk">
          <button type="button" className="primary" onClick={() => onDecideAll(true)}>
            Approve all
          </button>
          <button type="button" onClick={() => onDecideAll(false)}>
            Deny all
          </button>
        </span>
      )}
    </div>
  );
}
