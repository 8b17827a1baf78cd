import { useCallback, useEffect, useReducer, useState } from 'react';
import { api } from '../api/backend';
import type { ApprovalMode, Budgets, ConnectionResult, ContextWindow, ModelVision, Preset, Price, Settings, Theme } from '../api/types';
import { errorMessage } from '../api/types';

const NO_BUDGETS: Budgets = { max_turns: 0, max_tool_calls: 0, max_tokens: 0, max_cost_usd: 0, timeout_seconds: 0 };

/** What the panel's one Save writes, as edited and not saved yet. */
export interface SettingsDraft {
  provider: string;
  baseURL: string;
  model: string;
  /** Typed here only: Go keeps the key, the page never reads it back. */
  apiKey: string;
  clearKey: boolean;
  mode: ApprovalMode;
  budgets: Budgets;
  prices: Price[];
  windows: ContextWindow[];
  vision: ModelVision[];
  theme: Theme;
  notifications: boolean;
}

type Action = { type: 'set'; patch: Partial<SettingsDraft> } | { type: 'load'; settings: Settings };

/** The draft of saved settings; a typed key is not saved settings and is kept. */
function fromSettings(s: Settings | null, keep: Pick<SettingsDraft, 'apiKey' | 'clearKey'>): SettingsDraft {
  return {
    ...keep,
    provider: s?.provider || 'default',
    baseURL: s?.base_url ?? '',
    model: s?.model ?? '',
    mode: s?.approval_mode ?? 'ask',
    budgets: s?.budgets ?? NO_BUDGETS,
    prices: s?.prices ?? [],
    windows: s?.context_windows ?? [],
    vision: s?.vision ?? [],
    theme: s?.theme ?? 'system',
    notifications: s?.notifications ?? true,
  };
}

function reduce(d: SettingsDraft, a: Action): SettingsDraft {
  return a.type === 'set' ? { ...d, ...a.patch } : fromSettings(a.settings, d);
}

/** Endpoint presets and the providers a session can use, read from Go; reloadProviders after Save providers. */
function useChoices(setError: (e: string) => void) {
  const [presets, setPresets] = useState<Preset[]>([]);
  const [providerNames, setProviderNames] = useState<string[]>(['default']);
  const reloadProviders = useCallback(
    () =>
      api.listProviders().then(
        (v) => setProviderNames((v.infos ?? []).map((i) => i.name)),
        (e) => setError(errorMessage(e)),
      ),
    [setError],
  );
  useEffect(() => {
    api.presets().then(setPresets, (e) => setError(errorMessage(e)));
    void reloadProviders();
  }, [reloadProviders, setError]);
  return { presets, providerNames, reloadProviders };
}

/** Test connection of the typed endpoint; its models fill the model list (and an empty model). */
function useConnectionTest(draft: SettingsDraft, set: (p: Partial<SettingsDraft>) => void) {
  const [models, setModels] = useState<string[]>([]);
  const [test, setTest] = useState<ConnectionResult | null>(null);
  const [testing, setTesting] = useState(false);
  const runTest = async () => {
    setTesting(true);
    setTest(null);
    try {
      const r = await api.testConnection(draft.baseURL, draft.apiKey);
      setTest(r);
      if (r.ok) {
        const list = r.models ?? [];
        setModels(list);
        if (!draft.model && list.length > 0) set({ model: list[0] });
      }
    } catch (e) {
      setTest({ ok: false, models: null, error: errorMessage(e) });
    } finally {
      setTesting(false);
    }
  };
  return { models, test, setTest, testing, runTest };
}

/**
 * Settings' form: the draft of what Save writes (loaded again when the settings arrive after
 * the panel mounted, on first start), the presets and provider names to choose from, Test
 * connection, and Save, whose result goes to onSaved. Rows whose model is empty are dropped.
 */
export function useSettingsForm(settings: Settings | null, onSaved: (s: Settings) => void) {
  const [draft, dispatch] = useReducer(reduce, settings, (s) => fromSettings(s, { apiKey: '', clearKey: false }));
  const set = useCallback((patch: Partial<SettingsDraft>) => dispatch({ type: 'set', patch }), []);
  const [error, setError] = useState('');
  const [saved, setSaved] = useState(false);
  const choices = useChoices(setError);
  const connection = useConnectionTest(draft, set);

  useEffect(() => {
    if (settings) dispatch({ type: 'load', settings });
  }, [settings]);

  const save = async () => {
    setError('');
    setSaved(false);
    const d = draft;
    try {
      const s = await api.saveSettings({
        provider: d.provider,
        base_url: d.baseURL,
        model: d.model,
        api_key: d.apiKey,
        clear_key: d.clearKey,
        approval_mode: d.mode,
        budgets: d.budgets,
        prices: d.prices.filter((p) => p.model.trim()),
        context_windows: d.windows.filter((w) => w.model.trim()),
        vision: d.vision.filter((v) => v.model.trim()),
        theme: d.theme,
        notifications: d.notifications,
      });
      set({ apiKey: '', clearKey: false });
      setSaved(true);
      onSaved(s);
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return { draft, set, error, saved, save, ...choices, ...connection };
}
