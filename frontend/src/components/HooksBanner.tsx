import { useState } from 'react';
import { useHooks } from '../hooks/useHooks';
import { HookTrustPrompt } from './HooksSettings';

/**
 * Above the conversation: "This folder has hooks" when the open session's folder has project
 * hooks the person has not trusted (or that changed since), with the commands and Trust. Read
 * again when the session changes and after each run (a run may have written them). "Not now"
 * hides it for this configuration only.
 */
export function HooksBanner({ sessionID, refreshKey }: { sessionID: string | null; refreshKey: string }) {
  const h = useHooks(sessionID, refreshKey);
  const [dismissed, setDismissed] = useState('');
  const v = h.view;
  if (!sessionID || !v.sha256 || v.trusted || dismissed === v.sha256) return null;
  return (
    <div className="hooks-banner">
      {h.trustError && (
        <p role="alert" className="bad">
          {h.trustError}
        </p>
      )}
      <HookTrustPrompt view={v} busy={h.busy} onTrust={() => void h.trust()} onDismiss={() => setDismissed(v.sha256)} />
    </div>
  );
}
