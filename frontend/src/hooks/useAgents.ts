import { useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { AgentDefinition } from '../api/types';
import { errorMessage } from '../api/types';

/**
 * The agent definitions a task call of the session can name, as Go found them (its folder's,
 * the person's own, the built-in ones); read again when the session changes.
 */
export function useAgentDefinitions(sessionID: string | null) {
  const [defs, setDefs] = useState<AgentDefinition[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    api
      .agentDefinitions(sessionID ?? '')
      .then((d) => live && setDefs(d))
      .catch((e) => live && setError(errorMessage(e)));
    return () => {
      live = false;
    };
  }, [sessionID]);
  return { defs, error };
}
