import { useCallback, useState } from 'react';
import { api } from '../api/backend';
import type { HooksView } from '../api/types';
import { errorMessage } from '../api/types';
import { useLoaded } from './useLoaded';

export const NO_HOOKS: HooksView = { workspace: '', hooks: [], sha256: '', trusted: false, changed: false, diff: '', errors: [], recent: [] };

/**
 * The hooks of the session's folder (Settings → Hooks, the banner above the conversation),
 * read again whenever refreshKey changes (after a run, which may have written them). Trust is
 * decided in Go against the hash shown: hooks edited meanwhile stay untrusted.
 */
export function useHooks(sessionID: string | null, refreshKey = '') {
  // refreshKey changes after each run: reading the folder again then is the point.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const load = useCallback(() => (sessionID ? api.hooks(sessionID) : Promise.resolve(NO_HOOKS)), [sessionID, refreshKey]);
  const h = useLoaded<HooksView>(load, NO_HOOKS);
  const [busy, setBusy] = useState(false);
  const [trustError, setTrustError] = useState('');
  const [imported, setImported] = useState('');

  const trust = async () => {
    if (!sessionID) return;
    setBusy(true);
    setTrustError('');
    try {
      await api.trustHooks(sessionID, h.value.sha256);
    } catch (e) {
      setTrustError(errorMessage(e)); // stays while the refreshed hooks are shown again
    }
    try {
      await h.refresh();
    } finally {
      setBusy(false);
    }
  };

  const importClaude = async () => {
    if (!sessionID) return;
    setImported('');
    setTrustError('');
    try {
      const r = await api.importClaudeCodeHooks(sessionID);
      setImported(r.added === 0 ? 'Nothing new to import from Claude Code.' : `Imported ${r.added} hook${r.added === 1 ? '' : 's'} from Claude Code.`);
      await h.refresh();
    } catch (e) {
      setTrustError(errorMessage(e));
    }
  };

  return { view: h.value, error: h.error, busy, trustError, imported, trust, importClaude };
}
