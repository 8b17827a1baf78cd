import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { RuleInput, RuleView, Settings, Theme } from '../api/types';
import { errorMessage } from '../api/types';
import { useLoaded } from './useLoaded';

/** The saved settings, loaded once; the settings panel hands back what it saved. */
export function useSettings() {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    api.getSettings().then(setSettings, (e) => setError(errorMessage(e)));
  }, []);
  return { settings, setSettings, error };
}

/**
 * Applies a theme to the document: "system" follows prefers-color-scheme
 * (style.css), "light" and "dark" override it.
 */
export function useTheme(theme: Theme | undefined) {
  useEffect(() => {
    const root = document.documentElement;
    if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
    else delete root.dataset.theme;
  }, [theme]);
}

/** The saved approval rules, with delete. */
export function useRules() {
  const { value: rules, error, setError, refresh } = useLoaded<RuleView[]>(api.listRules, []);
  const remove = useCallback(
    async (id: string) => {
      try {
        await api.deleteRule(id);
      } catch (e) {
        setError(errorMessage(e));
      }
      await refresh();
    },
    [refresh],
  );
  const save = useCallback(
    async (call: () => Promise<unknown>) => {
      try {
        await call();
        setError('');
        await refresh();
        return true;
      } catch (e) {
        setError(errorMessage(e));
        return false;
      }
    },
    [refresh],
  );
  const add = useCallback((r: RuleInput) => save(() => api.addRule(r)), [save]);
  const update = useCallback((id: string, r: RuleInput) => save(() => api.updateRule(id, r)), [save]);
  return { rules, error, refresh, remove, add, update };
}
