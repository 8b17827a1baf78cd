import { useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { EffectiveView } from '../api/types';
import { errorMessage } from '../api/types';

/**
 * What the next run uses and where each value comes from, read by Go with the same function
 * as `loopdesk settings`. Read again whenever `version` changes (after a save).
 */
export function useEffectiveSettings(version: unknown) {
  const [view, setView] = useState<EffectiveView>({ rows: [], error: '' });
  useEffect(() => {
    let live = true;
    api
      .effectiveSettings()
      .then((v) => live && setView(v))
      .catch((e) => live && setView({ rows: [], error: errorMessage(e) }));
    return () => {
      live = false;
    };
  }, [version]);
  return view;
}
