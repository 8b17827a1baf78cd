import { useCallback, useState } from 'react';
import { api } from '../api/backend';
import type { HooksView } from '../api/types';
import { errorMessage } from '../api/types';
import { useLoaded } from '../hooks/useLoaded';
import { HookTrustPrompt } from './HooksSettings';

const NONE: HooksView = { workspace: '', hooks: [], sha256: '', trusted: false, changed: false, diff: '', errors: [], recent: [] };

/**
 * Above the conversation: "This folder has hooks" when the open session's folder has project
 * hooks the person has not trusted (or that changed since), with the commands and Trust. Read
 * again when the session changes and after each run (a run may have written them). "Not now"
 * hides it for this configuration only.
 */
export function HooksBanner({ sessionID, refreshKey }: { sessionID: string | null; refreshKey: string }) {
  // refreshKey changes after each run: reading the folder again then is the point.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const load = useCallback(() => (sessionID ? api.hooks(sessionID) : Promise.resolve(NONE)), [sessionID, refreshKey]);
  const h = useLoaded<HooksView>(load, NONE);
  const [dismissed, setDismissed] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const v = h.value;
  if (!sessionID || !v.sha256 || v.trusted || dismissed === v.sha256) return null;
  const trust = async () => {
    setBusy(true);
    setError('');
    try {
      await api.trustHooks(sessionID, v.sha256);
    } catch (e) {
      setError(errorMessage(e));
    }
    await h.refresh();
    setBusy(false);
  };
  return (
    <div className="hooks-banner">
      {error && (
        <p role="alert" className="bad">
          {error}
        </p>
      )}
      <HookTrustPrompt view={v} busy={busy} onTrust={() => void trust()} onDismiss={() => setDismissed(v.sha256)} />
    </div>
  );
}
