import { useState } from 'react';
import type { SandboxMode, SandboxView } from '../api/types';

interface Props {
  view: SandboxView | null;
  error: string;
  /** The sandbox the last run ran with (its run row), if any. */
  lastRun?: string;
  onSave: (in_: { scope: 'session' | 'workspace'; mode: SandboxMode; network: boolean; clear: boolean }) => Promise<void>;
}

const SOURCE: Record<SandboxView['source'], string> = {
  session: 'this session',
  workspace: 'this folder',
  default: 'default',
};

/**
 * The session's sandbox in the header: what the next run's shell commands get (Go's words),
 * and where to change it: mode on/off/auto and network, for this session or its folder.
 */
export function SandboxControl({ view, error, lastRun, onSave }: Props) {
  const [open, setOpen] = useState(false);
  const [scope, setScope] = useState<'session' | 'workspace'>('workspace');
  if (!view) return null;
  const e = view.effective;
  return (
    <>
      <button type="button" className="linklike" aria-expanded={open} title={view.description} onClick={() => setOpen(!open)}>
        Sandbox: {e.mode}
        {e.network ? ' + network' : ''} ({SOURCE[view.source]})
      </button>
      {open && (
        <span role="group" aria-label="Sandbox" className="sandbox-editor">
          <label>
            For
            <select aria-label="Sandbox scope" value={scope} onChange={(ev) => setScope(ev.target.value as 'session' | 'workspace')}>
              <option value="workspace">this folder</option>
              <option value="session">this session</option>
            </select>
          </label>
          <label>
            Mode
            <select aria-label="Sandbox mode" value={e.mode} onChange={(ev) => void onSave({ scope, mode: ev.target.value as SandboxMode, network: e.network, clear: false })}>
              <option value="auto">auto (when it can be made)</option>
              <option value="on">on (required)</option>
              <option value="off">off</option>
            </select>
          </label>
          <label>
            <input type="checkbox" aria-label="Allow network" checked={e.network} onChange={(ev) => void onSave({ scope, mode: e.mode, network: ev.target.checked, clear: false })} />
            Allow network
          </label>
          {view.session && (
            <button type="button" className="small" onClick={() => void onSave({ scope: 'session', mode: e.mode, network: false, clear: true })}>
              Use the folder's
            </button>
          )}
          <span className="hint">
            Next run: {view.description}
            {lastRun ? ` · last run: ${lastRun}` : ''}
          </span>
        </span>
      )}
      {error && (
        <span role="alert" className="bad">
          {error}
        </span>
      )}
    </>
  );
}

/** The one plain notice when no sandbox can be made, with the fix; dismissable. */
export function SandboxNotice({ notice, onDismiss }: { notice: string; onDismiss: () => void }) {
  if (!notice) return null;
  return (
    <div className="sandbox-notice" role="alert" aria-label="Sandbox notice">
      <p>{notice}</p>
      <button type="button" className="small" aria-label="Dismiss sandbox notice" onClick={onDismiss}>
        ×
      </button>
    </div>
  );
}
