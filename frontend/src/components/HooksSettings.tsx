import type { HookRun, HookView, HooksView } from '../api/types';
import { useHooks } from '../hooks/useHooks';
import { ListTable } from './ListTable';

/**
 * Settings → Hooks for the open session's folder: every hook by source with its trust state,
 * the trust prompt for the folder's project hooks ("This folder has hooks", the commands, what
 * changed since they were trusted, and Trust), and the latest hook runs. Trust is decided in Go
 * against the hash shown here: hooks edited meanwhile are not trusted.
 */
export function HooksSettings({ sessionID }: { sessionID: string | null }) {
  const h = useHooks(sessionID);
  const v = h.view;
  const hooks = v.hooks ?? [];
  const project = hooks.filter((x) => x.source === 'project');
  const personal = hooks.filter((x) => x.source === 'personal');

  return (
    <section className="hooks-settings" aria-label="Hooks">
      <h2>Hooks</h2>
      <p className="muted">
        Claude Code&apos;s hook format. Personal hooks: <code>$XDG_CONFIG_HOME/loopdesk/hooks.json</code>; project hooks:{' '}
        <code>.loopdesk/hooks.json</code> and the <code>hooks</code> of <code>.claude/settings.json</code>, run only once trusted.
      </p>
      {!sessionID && <p className="muted">Open a session to see the hooks of its folder.</p>}
      {h.error && (
        <p role="alert" className="bad">
          {h.error}
        </p>
      )}
      {h.trustError && (
        <p role="alert" className="bad">
          {h.trustError}
        </p>
      )}
      {(v.errors ?? []).map((e) => (
        <p key={e} role="alert" className="bad">
          {e}
        </p>
      ))}
      {v.sha256 && !v.trusted && <HookTrustPrompt view={v} busy={h.busy} onTrust={() => void h.trust()} />}
      {v.trusted && project.length > 0 && (
        <>
          <h3>Project hooks (trusted)</h3>
          <HookTable hooks={project} />
        </>
      )}
      <h3>Personal hooks</h3>
      {personal.length === 0 ? <p className="muted">None.</p> : <HookTable hooks={personal} />}
      <div className="row">
        <button type="button" disabled={!sessionID} onClick={() => void h.importClaude()} title="Copies the hooks of ~/.claude/settings.json into your personal hooks.json">
          Import from Claude Code
        </button>
        {h.imported && <span role="status">{h.imported}</span>}
      </div>
      <h3>Recent hook runs</h3>
      {!v.recent?.length ? <p className="muted">No hook has run in this folder yet.</p> : <RunTable runs={v.recent} />}
    </section>
  );
}

/**
 * "This folder has hooks": the folder's untrusted project hooks, what changed since they were
 * last trusted, and Trust. Shown in Settings → Hooks and above the conversation.
 */
export function HookTrustPrompt({ view, busy, onTrust, onDismiss }: { view: HooksView; busy: boolean; onTrust: () => void; onDismiss?: () => void }) {
  return (
    <div className="hooks-trust" role="region" aria-label="This folder has hooks">
      <strong>This folder has hooks</strong>
      <p>
        {view.changed ? 'Its hooks changed since you trusted them. ' : ''}
        These commands run on your machine at the events shown, as you, once you trust them. Until then they do not run.
      </p>
      <HookTable hooks={(view.hooks ?? []).filter((x) => x.source === 'project')} />
      {view.changed && view.diff && (
        <pre className="hooks-diff" aria-label="What changed">
          {view.diff}
        </pre>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={busy} onClick={onTrust}>
          Trust
        </button>
        {onDismiss && (
          <button type="button" onClick={onDismiss}>
            Not now
          </button>
        )}
      </div>
    </div>
  );
}

function HookTable({ hooks }: { hooks: HookView[] }) {
  return (
    <ListTable className="hooks-table" columns={['Event', 'Matcher', 'Command', 'Timeout', 'Trusted']}>
      {hooks.map((x, i) => (
        <tr key={`${x.event}-${x.matcher}-${x.command}-${i}`}>
          <td>{x.event}</td>
          <td>{x.matcher || '*'}</td>
          <td>
            <code>{x.command}</code>
            {x.ignore_failure && <span className="muted"> (onFailure: ignore)</span>}
          </td>
          <td>{x.timeout_seconds} s</td>
          <td>{x.trusted ? 'yes' : 'no'}</td>
        </tr>
      ))}
    </ListTable>
  );
}

function RunTable({ runs }: { runs: HookRun[] }) {
  return (
    <ListTable label="Recent hook runs" className="hooks-table" columns={['When', 'Event', 'Command', 'Exit', 'Decision', 'Reason']}>
      {runs.map((r) => (
        <tr key={`${r.session_id}-${r.seq}`} className={r.hook.failed ? 'bad' : undefined}>
          <td>{new Date(r.at).toLocaleString()}</td>
          <td>
            {r.hook.event}
            {r.hook.tool ? ` ${r.hook.tool}` : ''}
          </td>
          <td>
            <code>{r.hook.command}</code>
          </td>
          <td>
            {r.hook.exit_code} ({r.hook.duration_ms} ms)
          </td>
          <td>{r.hook.decision || '—'}</td>
          <td title={r.hook.stderr}>{r.hook.reason}</td>
        </tr>
      ))}
    </ListTable>
  );
}
