import type { HarnessTokens, Limits } from '../api/types';
import { formatTime, formatTokens } from '../lib/format';

/** What Loopdesk itself adds to each request of the run, part by part (run_started). */
export function HarnessMeter({ harness }: { harness: HarnessTokens | null }) {
  if (!harness) {
    return (
      <p className="muted" role="note" aria-label="Loopdesk's own tokens">
        Loopdesk's own tokens per request: shown once a run starts.
      </p>
    );
  }
  const mcp = Object.entries(harness.mcp ?? {});
  const parts = [
    `system prompt ${formatTokens(harness.system)}`,
    `built-in tools ${formatTokens(harness.tools)}`,
    ...mcp.map(([server, n]) => `MCP ${server} ${formatTokens(n)}`),
    `instructions ${formatTokens(harness.instructions)}`,
    `notes ${formatTokens(harness.notes)}`,
  ];
  return (
    <p role="note" aria-label="Loopdesk's own tokens">
      Loopdesk's own tokens per request: {formatTokens(harness.total)}
      {/* The provider counts a request whole: measured, the total is its; the parts stay estimates. */}
      {harness.estimated ? ' (estimated) — ' : ' (as the provider counts) — parts, estimated: '}
      {parts.join(', ')}.
    </p>
  );
}

/** The rate-limit headers the provider sent last, and when: so a limit never surprises. */
export function ProviderLimits({ limits }: { limits: Limits | null }) {
  if (!limits || Object.keys(limits.headers ?? {}).length === 0) return null;
  const rows = Object.entries(limits.headers ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section className="provider-limits" aria-label="Provider limits">
      <p className="muted">
        {limits.provider} said at {formatTime(limits.at)}:
      </p>
      <dl>
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>{name.replace(/^(x-ratelimit-|anthropic-ratelimit-)/, '')}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
