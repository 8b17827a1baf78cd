import { useState } from 'react';
import type { McpName, McpServerConfig, McpStatus } from '../api/types';
import { useMcpLog, useMcpSettings } from '../hooks/useMcpSettings';
import { describeStatus } from '../state/checkpoints';
import { formatTokens } from '../lib/format';
import { FocusTrap } from './FocusTrap';

/**
 * Settings → MCP servers: each server of the configuration file with its live status (and why
 * it failed, with the tail of its stderr), its tools as the model sees them (renames shown),
 * Restart and Log; add, edit, remove, enable/disable, trusted, per-call timeout; import from
 * Claude Desktop. "Save MCP servers" is the only thing that writes the file.
 */
export function McpSettings() {
  const m = useMcpSettings();
  const [editing, setEditing] = useState<{ name: string; cfg: McpServerConfig } | null>(null);
  const names = [...new Set([...Object.keys(m.draft), ...Object.keys(m.statuses)])].sort();
  const serverLog = useMcpLog();
  const log = serverLog.log;

  return (
    <section className="mcp-settings" aria-label="MCP servers">
      <h2>MCP servers</h2>
      <p className="muted">
        Configuration file: <code>{m.path || '(none)'}</code> — the <code>mcpServers</code> format of Claude Desktop and Cursor. Their tools reach the model as{' '}
        <code>mcp__server__tool</code>.
      </p>
      {m.fileError && (
        <p role="alert" className="bad file-error">
          The configuration file could not be read: {m.fileError}
        </p>
      )}
      {names.length === 0 && <p className="muted">No MCP server configured.</p>}
      <ul className="mcp-servers">
        {names.map((name) => (
          <ServerItem
            key={name}
            name={name}
            cfg={m.draft[name]}
            status={m.statuses[name]}
            names={m.names.filter((n) => n.server === name)}
            schemaTokens={m.schemaTokens[name] ?? 0}
            onChange={(cfg) => m.put(name, cfg)}
            onRemove={() => m.remove(name)}
            onEdit={() => m.draft[name] && setEditing({ name, cfg: m.draft[name] })}
            onRestart={() => void m.restart(name)}
            onLog={() => void serverLog.show(name)}
          />
        ))}
      </ul>
      <ServerForm
        key={editing?.name ?? '(new)'}
        initial={editing}
        taken={Object.keys(m.draft)}
        onSubmit={(name, cfg) => {
          m.put(name, cfg);
          setEditing(null);
        }}
        onCancel={() => setEditing(null)}
      />
      <div className="row">
        <button type="button" onClick={() => void m.importClaude()}>
          Import from Claude Desktop
        </button>
        <button type="button" className="primary" disabled={!m.dirty} onClick={() => void m.save()}>
          Save MCP servers
        </button>
        {m.dirty && <span className="muted">Unsaved changes: the file is written only when you save.</span>}
        {m.saved && (
          <span role="status" className="ok">
            MCP servers saved.
          </span>
        )}
        {(m.error || serverLog.error) && (
          <span role="alert" className="bad">
            {m.error || serverLog.error}
          </span>
        )}
      </div>
      {log && (
        <div className="modal-backdrop" onKeyDown={(e) => e.key === 'Escape' && serverLog.close()}>
          <FocusTrap className="modal" role="dialog" aria-modal="true" aria-label={`Log of ${log.name}`}>
            <h2>Log of {log.name} (stderr)</h2>
            <pre className="server-log" aria-label="Server log">
              {log.text || '(nothing written)'}
            </pre>
            <div className="row">
              <button type="button" autoFocus onClick={() => serverLog.close()}>
                Close
              </button>
            </div>
          </FocusTrap>
        </div>
      )}
    </section>
  );
}

interface ItemProps {
  name: string;
  /** Undefined for a server removed in this page and not saved yet (still running). */
  cfg?: McpServerConfig;
  status?: McpStatus;
  names: McpName[];
  /** What the server's tool schemas add to every request, in tokens (estimated). */
  schemaTokens: number;
  onChange: (cfg: McpServerConfig) => void;
  onRemove: () => void;
  onEdit: () => void;
  onRestart: () => void;
  onLog: () => void;
}

function ServerItem({ name, cfg, status, names, schemaTokens, onChange, onRemove, onEdit, onRestart, onLog }: ItemProps) {
  const state = cfg?.disabled && !status ? 'disabled' : (status?.status ?? 'unsaved');
  const byName = new Map(names.map((n) => [n.name, n]));
  const tools = status?.tools ?? [];
  return (
    <li className={`mcp-server ${state}`} aria-label={`MCP server ${name}`}>
      <div className="row">
        <strong>{name}</strong>
        <span className="muted">{status?.transport ?? (cfg?.url && !cfg.command ? 'http' : 'stdio')}</span>
        <span className={`mcp-status ${state}`} role="status" aria-label={`Status of ${name}`}>
          {cfg?.disabled && !status ? 'Disabled' : describeStatus(status)}
        </span>
        {!cfg && <span className="muted">(removed — save to stop it)</span>}
      </div>
      {cfg && <p className="muted mcp-target">{cfg.command ? [cfg.command, ...(cfg.args ?? [])].join(' ') : cfg.url}</p>}
      {status?.stderr_tail && (status.status === 'failed' || status.status === 'exited') && (
        <pre className="stderr-tail" aria-label={`Stderr of ${name}`}>
          {status.stderr_tail}
        </pre>
      )}
      {tools.length > 0 && (
        <details className="mcp-tools">
          <summary>
            {tools.length} tool{tools.length === 1 ? '' : 's'}, as the model sees them
            {schemaTokens > 0 && ` — about ${formatTokens(schemaTokens)} tokens in every request`}
          </summary>
          <ul aria-label={`Tools of ${name}`}>
            {tools.map((t) => {
              const n = byName.get(t);
              return (
                <li key={t}>
                  <code>{t}</code>
                  {n && n.note && (
                    <span className="renamed">
                      {' '}
                      — renamed from <code>{n.tool}</code>: {n.note}
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
        </details>
      )}
      {(status?.skipped ?? []).length > 0 && <p className="muted">Not offered to the model: {(status?.skipped ?? []).join('; ')}</p>}
      <div className="row">
        {cfg && (
          <>
            <label className="check">
              <input type="checkbox" checked={!cfg.disabled} onChange={(e) => onChange({ ...cfg, disabled: !e.target.checked })} /> Enabled
            </label>
            <label className="check" title="Believe its readOnlyHint annotations: such tools then run without asking in read-only mode">
              <input type="checkbox" checked={Boolean(cfg.trusted)} onChange={(e) => onChange({ ...cfg, trusted: e.target.checked })} /> Trusted
            </label>
            <label>
              Timeout (s){' '}
              <input
                type="number"
                min="0"
                step="1"
                className="narrow-num"
                aria-label={`Timeout of ${name} (seconds)`}
                value={cfg.timeout_s ?? 0}
                onChange={(e) => onChange({ ...cfg, timeout_s: Math.max(0, Math.floor(Number(e.target.value) || 0)) })}
              />
            </label>
          </>
        )}
        <button type="button" className="small" aria-label={`Restart ${name}`} disabled={!status || status.status === 'disabled'} onClick={onRestart}>
          Restart
        </button>
        <button type="button" className="small" aria-label={`Log of ${name}`} disabled={!status} onClick={onLog}>
          Log
        </button>
        {cfg && (
          <>
            <button type="button" className="small" aria-label={`Edit ${name}`} onClick={onEdit}>
              Edit
            </button>
            <button type="button" className="small danger" aria-label={`Remove ${name}`} onClick={onRemove}>
              Remove
            </button>
          </>
        )}
      </div>
    </li>
  );
}

const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** "KEY=value" (or "Name: value") lines to a map; undefined when empty. */
function pairs(s: string, sep: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const l of lines(s)) {
    const i = l.indexOf(sep);
    if (i > 0) out[l.slice(0, i).trim()] = l.slice(i + 1).trim();
  }
  return Object.keys(out).length ? out : undefined;
}

const unpairs = (m: Record<string, string> | null | undefined, sep: string) =>
  Object.entries(m ?? {})
    .map(([k, v]) => `${k}${sep}${v}`)
    .join('\n');

/** The form's fields as typed: args one a line, env and headers one pair a line. */
interface ServerDraft {
  name: string;
  kind: 'stdio' | 'http';
  command: string;
  args: string;
  env: string;
  cwd: string;
  url: string;
  headers: string;
}

const draftOf = (name: string, c: McpServerConfig): ServerDraft => ({
  name,
  kind: c.url && !c.command ? 'http' : 'stdio',
  command: c.command ?? '',
  args: (c.args ?? []).join('\n'),
  env: unpairs(c.env, '='),
  cwd: c.cwd ?? '',
  url: c.url ?? '',
  headers: unpairs(c.headers, ': '),
});

/** The server the form describes, keeping what the list edits (enabled, trusted, timeout), or why it cannot be. */
function checkServer(d: ServerDraft, c: McpServerConfig, isNew: boolean, taken: string[]): { name: string; cfg: McpServerConfig } | string {
  const n = d.name.trim();
  if (!n) return 'Give the server a name.';
  if (isNew && taken.includes(n)) return `A server named “${n}” exists already.`;
  if (d.kind === 'stdio' && !d.command.trim()) return 'A stdio server needs a command.';
  if (d.kind === 'http' && !/^https?:\/\//.test(d.url.trim())) return 'An HTTP server needs an http(s) URL.';
  const keep = { disabled: c.disabled, trusted: c.trusted, timeout_s: c.timeout_s };
  const cfg: McpServerConfig =
    d.kind === 'stdio'
      ? { ...keep, command: d.command.trim(), args: lines(d.args), env: pairs(d.env, '='), cwd: d.cwd.trim() || undefined }
      : { ...keep, type: 'http', url: d.url.trim(), headers: pairs(d.headers, ':') };
  return { name: n, cfg };
}

/** Adds a server, or edits one (initial): stdio (command, args, env, cwd) or HTTP (url, headers). */
function ServerForm({
  initial,
  taken,
  onSubmit,
  onCancel,
}: {
  initial: { name: string; cfg: McpServerConfig } | null;
  taken: string[];
  onSubmit: (name: string, cfg: McpServerConfig) => void;
  onCancel: () => void;
}) {
  const c = initial?.cfg ?? {};
  const [d, setDraft] = useState<ServerDraft>(() => draftOf(initial?.name ?? '', c));
  const set = (patch: Partial<ServerDraft>) => setDraft({ ...d, ...patch });
  const [error, setError] = useState('');

  const submit = () => {
    const out = checkServer(d, c, !initial, taken);
    if (typeof out === 'string') return setError(out);
    setError('');
    onSubmit(out.name, out.cfg);
    // A new server's form empties for the next one; its transport stays.
    if (!initial) setDraft({ ...draftOf('', {}), kind: d.kind });
  };

  return (
    <fieldset className="mcp-form">
      <legend>{initial ? `Edit ${initial.name}` : 'Add a server'}</legend>
      <div className="row">
        <label>
          Name <input aria-label="Server name" value={d.name} disabled={Boolean(initial)} onChange={(e) => set({ name: e.target.value })} />
        </label>
        <label>
          Transport{' '}
          <select aria-label="Transport" value={d.kind} onChange={(e) => set({ kind: e.target.value as ServerDraft['kind'] })}>
            <option value="stdio">stdio (a command)</option>
            <option value="http">streamable HTTP (a URL)</option>
          </select>
        </label>
      </div>
      {d.kind === 'stdio' ? (
        <>
          <label>
            Command <input aria-label="Command" value={d.command} onChange={(e) => set({ command: e.target.value })} placeholder="npx" />
          </label>
          <label>
            Arguments (one a line)
            <textarea aria-label="Arguments" rows={2} value={d.args} onChange={(e) => set({ args: e.target.value })} />
          </label>
          <label>
            Environment (KEY=value, one a line; ${'{'}VAR{'}'} passes one of the app's)
            <textarea aria-label="Environment" rows={2} value={d.env} onChange={(e) => set({ env: e.target.value })} />
          </label>
          <label>
            Working folder <input aria-label="Working folder" value={d.cwd} onChange={(e) => set({ cwd: e.target.value })} />
          </label>
        </>
      ) : (
        <>
          <label>
            URL <input aria-label="URL" value={d.url} onChange={(e) => set({ url: e.target.value })} placeholder="http://127.0.0.1:3001/mcp" />
          </label>
          <label>
            Headers (Name: value, one a line)
            <textarea aria-label="Headers" rows={2} value={d.headers} onChange={(e) => set({ headers: e.target.value })} />
          </label>
        </>
      )}
      <div className="row">
        <button type="button" onClick={submit}>
          {initial ? 'Update server' : 'Add server'}
        </button>
        {initial && (
          <button type="button" onClick={onCancel}>
            Cancel edit
          </button>
        )}
        {error && (
          <span role="alert" className="bad">
            {error}
          </span>
        )}
      </div>
    </fieldset>
  );
}
