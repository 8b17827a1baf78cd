import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { HarnessTokens, Limits, Report, Suggestion } from '../api/types';
import { errorMessage } from '../api/types';

/** A suggestion's identity in the report: its rule. */
export const suggestionKey = (s: Suggestion): string => `${s.rule.scope}\u0000${s.rule.tool}\u0000${s.rule.pattern}`;

/**
 * The approval report of one session ("" for every session) over the last `since` ("" for all
 * time), read again when a call of that session is decided or its run ends; accepting a
 * suggestion saves its rule (as Always allow) and marks it accepted.
 */
export function useApprovalReport(sessionID: string, since: string) {
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState('');
  const [accepted, setAccepted] = useState<ReadonlySet<string>>(new Set());
  const load = useCallback(() => {
    api.approvalReport(sessionID, since).then(
      (r) => {
        setReport(r);
        setError('');
      },
      (e) => setError(errorMessage(e)),
    );
  }, [sessionID, since]);
  useEffect(() => {
    load();
    return api.onEvent((ev) => {
      if ((sessionID === '' || ev.session_id === sessionID) && (ev.type === 'approval_decided' || ev.type === 'run_finished')) load();
    });
  }, [load, sessionID]);
  const accept = useCallback(async (s: Suggestion) => {
    try {
      await api.acceptSuggestion(s);
      setAccepted((prev) => new Set(prev).add(suggestionKey(s)));
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  return { report, error, accepted, accept, reload: load };
}

/**
 * What a session's runs cost besides the budget: Loopdesk's own tokens in each request (the
 * last run's, kept with it, then each run_started seen) and the provider's latest rate limits (read again after each
 * model call of the session).
 */
export function useRunCosts(sessionID: string) {
  const [harness, setHarness] = useState<HarnessTokens | null>(null);
  const [limits, setLimits] = useState<Limits | null>(null);
  useEffect(() => {
    let live = true;
    const loadLimits = () => api.providerLimits(sessionID).then((l) => live && setLimits(l), () => {});
    // Kept with each run: the last run's figure, measured by the provider once its first answer says.
    const loadHarness = () => api.harnessTokens(sessionID).then((h) => live && h && setHarness(h), () => {});
    setHarness(null);
    loadLimits();
    loadHarness();
    const off = api.onEvent((ev) => {
      if (ev.session_id !== sessionID) return;
      if (ev.type === 'run_started' && ev.harness_tokens) setHarness(ev.harness_tokens as HarnessTokens);
      if (ev.type === 'usage' || ev.type === 'run_finished' || ev.type === 'model_retrying') loadLimits();
      if (ev.type === 'usage' || ev.type === 'run_finished') loadHarness();
    });
    return () => {
      live = false;
      off();
    };
  }, [sessionID]);
  return { harness, limits };
}
