import { useId } from 'react';
import type { TelemetryView } from '../api/types';
import { useTelemetrySettings } from '../hooks/useTelemetrySettings';

/** What is being sent now, in words. */
function status(v: TelemetryView): string {
  if (v.disabled) return 'Off: OTEL_SDK_DISABLED=true is set.';
  if (!v.active) return 'Off.';
  const from = v.from_env ? ' (as OTEL_EXPORTER_OTLP_ENDPOINT says)' : '';
  const dropped = v.dropped > 0 ? `, ${v.dropped} dropped${v.last_error ? ` (${v.last_error})` : ''}` : '';
  return `Sending${from}: ${v.exported} spans sent${dropped}.`;
}

/**
 * Settings → Telemetry: send each run to an OpenTelemetry collector (docs/telemetry.md). Off by
 * default; the endpoint, protocol and headers are kept beside the API key, never in the
 * database, and the headers are never shown back. Saved by its own button.
 */
export function TelemetrySettings() {
  const t = useTelemetrySettings();
  const d = t.draft;
  const id = useId();
  return (
    <section className="telemetry-settings" aria-label="Telemetry">
      <h2>Telemetry</h2>
      <p className="hint">Send each run to an OpenTelemetry collector over OTLP: a trace per session, with tokens, cost, tool calls and approvals.</p>
      <label className="check">
        <input type="checkbox" checked={d.on} onChange={(e) => t.set({ on: e.target.checked })} /> Send runs to a collector
      </label>
      <label htmlFor={`${id}-endpoint`}>Endpoint</label>
      <input id={`${id}-endpoint`} value={d.endpoint} placeholder="http://localhost:4318" onChange={(e) => t.set({ endpoint: e.target.value })} />
      <label htmlFor={`${id}-protocol`}>Protocol</label>
      <select id={`${id}-protocol`} value={d.protocol} onChange={(e) => t.set({ protocol: e.target.value })}>
        <option value="http/protobuf">HTTP (http/protobuf)</option>
        <option value="grpc">gRPC</option>
      </select>
      <label htmlFor={`${id}-headers`}>Headers</label>
      <input
        id={`${id}-headers`}
        type="password"
        autoComplete="off"
        value={d.headers}
        placeholder={t.view.headers_set ? 'saved (type to replace)' : 'key=value,key2=value2'}
        onChange={(e) => t.set({ headers: e.target.value, clear_headers: false })}
      />
      <label className="check">
        <input type="checkbox" checked={d.contents} onChange={(e) => t.set({ contents: e.target.checked })} /> Include contents (messages, tool arguments and
        results)
      </label>
      <p role="status" className="muted">
        {status(t.view)}
      </p>
      {t.error && (
        <p role="alert" className="bad">
          {t.error}
        </p>
      )}
      <div className="row">
        <button type="button" disabled={t.busy} onClick={() => void t.save()}>
          Save telemetry
        </button>
        {t.saved && <span className="ok">Saved.</span>}
      </div>
    </section>
  );
}
