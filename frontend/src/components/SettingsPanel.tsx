import { useEffect, useId, useState } from 'react';
import { api } from '../api/backend';
import type { ApprovalMode, Budgets, ConnectionResult, ContextWindow, ModelVision, Preset, Price, Settings, Theme } from '../api/types';
import { VisionSettings } from './VisionSettings';
import { errorMessage } from '../api/types';
import { useRules } from '../hooks/useSettings';
import { RulesTable } from './RulesTable';
import { HooksSettings } from './HooksSettings';
import { McpSettings } from './McpSettings';
import { ProvidersSettings } from './ProvidersSettings';
import { AgentsSettings } from './AgentsSettings';
import { SkillsSettings } from './SkillsSettings';

interface Props {
  settings: Settings | null;
  onSaved: (s: Settings) => void;
  onClose?: () => void;
  /** The open session, which new rules are scoped to. */
  sessionID?: string | null;
  /** Shows a theme immediately, before it is saved. */
  onPreviewTheme?: (t: Theme) => void;
}

const NO_BUDGETS: Budgets = { max_turns: 0, max_tool_calls: 0, max_tokens: 0, max_cost_usd: 0, timeout_seconds: 0 };

const BUDGET_FIELDS: { key: keyof Budgets; label: string; step: string }[] = [
  { key: 'max_turns', label: 'Max turns', step: '1' },
  { key: 'max_tool_calls', label: 'Max tool calls', step: '1' },
  { key: 'max_tokens', label: 'Max tokens', step: '1000' },
  { key: 'max_cost_usd', label: 'Max cost (USD)', step: '0.01' },
  { key: 'timeout_seconds', label: 'Timeout (seconds)', step: '10' },
];

const num = (s: string) => {
  const n = Number(s);
  return Number.isFinite(n) && n >= 0 ? n : 0;
};

/**
 * Settings: endpoint presets with Test connection and the model list, the API
 * key, the default approval mode and the saved rules, default budgets, the
 * price table and context windows per model, and the theme.
 */
export function SettingsPanel({ settings, sessionID, onSaved, onClose, onPreviewTheme }: Props) {
  const [presets, setPresets] = useState<Preset[]>([]);
  const [provider, setProvider] = useState(settings?.provider ?? 'default');
  const [providerNames, setProviderNames] = useState<string[]>(['default']);
  const [baseURL, setBaseURL] = useState(settings?.base_url ?? '');
  const [model, setModel] = useState(settings?.model ?? '');
  const [apiKey, setApiKey] = useState('');
  const [clearKey, setClearKey] = useState(false);
  const [mode, setMode] = useState<ApprovalMode>(settings?.approval_mode ?? 'ask');
  const [budgets, setBudgets] = useState<Budgets>(settings?.budgets ?? NO_BUDGETS);
  const [prices, setPrices] = useState<Price[]>(settings?.prices ?? []);
  const [windows, setWindows] = useState<ContextWindow[]>(settings?.context_windows ?? []);
  const [vision, setVision] = useState<ModelVision[]>(settings?.vision ?? []);
  const [theme, setTheme] = useState<Theme>(settings?.theme ?? 'system');
  const [notifications, setNotifications] = useState(settings?.notifications ?? true);
  const [models, setModels] = useState<string[]>([]);
  const [test, setTest] = useState<ConnectionResult | null>(null);
  const [testing, setTesting] = useState(false);
  const [error, setError] = useState('');
  const [saved, setSaved] = useState(false);
  const rules = useRules();
  const listID = useId();

  // Settings may arrive after the panel mounted (first start).
  useEffect(() => {
    if (!settings) return;
    setProvider(settings.provider || 'default');
    setBaseURL(settings.base_url);
    setModel(settings.model);
    setMode(settings.approval_mode ?? 'ask');
    setBudgets(settings.budgets ?? NO_BUDGETS);
    setPrices(settings.prices ?? []);
    setWindows(settings.context_windows ?? []);
    setVision(settings.vision ?? []);
    setTheme(settings.theme ?? 'system');
    setNotifications(settings.notifications ?? true);
  }, [settings]);

  useEffect(() => {
    api.presets().then(setPresets, (e) => setError(errorMessage(e)));
  }, []);

  const loadProviderNames = () =>
    api.listProviders().then(
      (v) => setProviderNames((v.infos ?? []).map((i) => i.name)),
      (e) => setError(errorMessage(e)),
    );
  useEffect(() => {
    void loadProviderNames();
  }, []);

  const runTest = async () => {
    setTesting(true);
    setTest(null);
    try {
      const r = await api.testConnection(baseURL, apiKey);
      setTest(r);
      if (r.ok) {
        const list = r.models ?? [];
        setModels(list);
        if (!model && list.length > 0) setModel(list[0]);
      }
    } catch (e) {
      setTest({ ok: false, models: null, error: errorMessage(e) });
    } finally {
      setTesting(false);
    }
  };

  const save = async () => {
    setError('');
    setSaved(false);
    try {
      const s = await api.saveSettings({
        provider,
        base_url: baseURL,
        model,
        api_key: apiKey,
        clear_key: clearKey,
        approval_mode: mode,
        budgets,
        prices: prices.filter((p) => p.model.trim()),
        context_windows: windows.filter((w) => w.model.trim()),
        vision: vision.filter((v) => v.model.trim()),
        theme,
        notifications,
      });
      setApiKey('');
      setClearKey(false);
      setSaved(true);
      onSaved(s);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return (
    <section className="settings" aria-label="Settings">
      <h1>Settings</h1>
      {!settings?.configured && <p className="hint">Choose an OpenAI-compatible endpoint to start. Local servers need no key.</p>}

      <h2>Endpoint</h2>
      <div className="presets" role="group" aria-label="Endpoint presets">
        {presets.map((p) => (
          <button
            type="button"
            key={p.name}
            className={p.base_url === baseURL ? 'preset current' : 'preset'}
            onClick={() => {
              setBaseURL(p.base_url);
              setTest(null);
            }}
          >
            {p.name}
          </button>
        ))}
      </div>
      <label>
        Base URL
        <input value={baseURL} onChange={(e) => setBaseURL(e.target.value)} placeholder="http://localhost:11434/v1" spellCheck={false} />
      </label>
      <label>
        API key
        <input
          type="password"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          autoComplete="off"
          placeholder={
            settings?.key_source === 'file'
              ? 'A key is saved (leave empty to keep it)'
              : settings?.key_source === 'env'
                ? 'Using OPENAI_API_KEY from the environment'
                : 'Not needed for local servers'
          }
        />
      </label>
      {settings?.key_source === 'file' && (
        <label className="check">
          <input type="checkbox" checked={clearKey} onChange={(e) => setClearKey(e.target.checked)} /> Forget the saved key
        </label>
      )}
      <div className="row">
        <button type="button" onClick={runTest} disabled={testing || !baseURL}>
          {testing ? 'Testing…' : 'Test connection'}
        </button>
        {test && (
          <span role="status" className={test.ok ? 'ok' : 'bad'}>
            {test.ok ? `Connected: ${(test.models ?? []).length} model(s) available.` : test.error}
          </span>
        )}
      </div>
      <label>
        Provider for new sessions
        <select value={provider} onChange={(e) => setProvider(e.target.value)}>
          {[...new Set([...providerNames, provider])].map((n) => (
            <option key={n} value={n}>
              {n === 'default' ? 'default (this endpoint)' : n}
            </option>
          ))}
        </select>
      </label>
      <label>
        Model
        <input value={model} onChange={(e) => setModel(e.target.value)} list={listID} placeholder="e.g. gpt-4.1-mini or llama3.2" spellCheck={false} />
        <datalist id={listID}>
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </label>

      <h2>Approvals</h2>
      <label>
        Default approval mode
        <select value={mode} onChange={(e) => setMode(e.target.value as ApprovalMode)}>
          <option value="ask">Ask for every call</option>
          <option value="read-only">Run read-only tools, ask for the rest</option>
          <option value="sandboxed">Run file tools and sandboxed commands, ask for the rest</option>
          <option value="review">Review each hunk before a file is written; ask for the rest</option>
          <option value="auto">Run everything without asking</option>
          <option value="deny">Deny every call</option>
        </select>
      </label>
      <RulesTable rules={rules.rules} sessionID={sessionID ?? null} onAdd={rules.add} onUpdate={rules.update} onRemove={(id) => void rules.remove(id)} />
      {rules.error && (
        <p role="alert" className="bad">
          {rules.error}
        </p>
      )}

      <h2>Default budgets</h2>
      <p className="note">0 means no limit. Each run stops when it reaches one.</p>
      <div className="budget-grid">
        {BUDGET_FIELDS.map((f) => (
          <label key={f.key}>
            {f.label}
            <input type="number" min="0" step={f.step} value={budgets[f.key]} onChange={(e) => setBudgets({ ...budgets, [f.key]: num(e.target.value) })} />
          </label>
        ))}
      </div>

      <h2>Prices</h2>
      <p className="note">US dollars per million tokens. Models not listed (local ones) cost nothing. Cache reads and writes at 0 are priced as input.</p>
      <table className="grid" aria-label="Prices">
        <thead>
          <tr>
            <th>Model</th>
            <th>Input</th>
            <th>Output</th>
            <th>Cache read</th>
            <th>Cache write</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {prices.map((p, i) => (
            <tr key={i}>
              <td>
                <input aria-label={`Price model ${i + 1}`} value={p.model} onChange={(e) => setPrices(replace(prices, i, { ...p, model: e.target.value }))} />
              </td>
              <td>
                <input aria-label={`Input price ${i + 1}`} type="number" min="0" step="0.01" value={p.input_per_mtok} onChange={(e) => setPrices(replace(prices, i, { ...p, input_per_mtok: num(e.target.value) }))} />
              </td>
              <td>
                <input aria-label={`Output price ${i + 1}`} type="number" min="0" step="0.01" value={p.output_per_mtok} onChange={(e) => setPrices(replace(prices, i, { ...p, output_per_mtok: num(e.target.value) }))} />
              </td>
              <td>
                <input aria-label={`Cache read price ${i + 1}`} type="number" min="0" step="0.01" value={p.cache_read_per_mtok ?? 0} onChange={(e) => setPrices(replace(prices, i, { ...p, cache_read_per_mtok: num(e.target.value) }))} />
              </td>
              <td>
                <input aria-label={`Cache write price ${i + 1}`} type="number" min="0" step="0.01" value={p.cache_write_per_mtok ?? 0} onChange={(e) => setPrices(replace(prices, i, { ...p, cache_write_per_mtok: num(e.target.value) }))} />
              </td>
              <td>
                <button type="button" className="small" aria-label={`Remove price ${i + 1}`} onClick={() => setPrices(prices.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" onClick={() => setPrices([...prices, { model: model || '', input_per_mtok: 0, output_per_mtok: 0, cache_read_per_mtok: 0, cache_write_per_mtok: 0 }])}>
          Add price
        </button>
      </div>

      <h2>Context windows</h2>
      <table className="grid" aria-label="Context windows">
        <thead>
          <tr>
            <th>Model</th>
            <th>Tokens</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {windows.map((w, i) => (
            <tr key={i}>
              <td>
                <input aria-label={`Context model ${i + 1}`} value={w.model} onChange={(e) => setWindows(replace(windows, i, { ...w, model: e.target.value }))} />
              </td>
              <td>
                <input aria-label={`Context tokens ${i + 1}`} type="number" min="0" step="1024" value={w.tokens} onChange={(e) => setWindows(replace(windows, i, { ...w, tokens: num(e.target.value) }))} />
              </td>
              <td>
                <button type="button" className="small" aria-label={`Remove context window ${i + 1}`} onClick={() => setWindows(windows.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" onClick={() => setWindows([...windows, { model: model || '', tokens: 128000 }])}>
          Add context window
        </button>
      </div>

      <VisionSettings rows={vision} onChange={setVision} providers={providerNames} provider={provider} model={model} />

      <ProvidersSettings onSaved={() => void loadProviderNames()} />

      <McpSettings />

      <HooksSettings sessionID={sessionID ?? null} />
      <SkillsSettings sessionID={sessionID ?? null} />
      <AgentsSettings sessionID={sessionID ?? null} />

      <h2>Appearance</h2>
      <label>
        Theme
        <select
          value={theme}
          onChange={(e) => {
            const t = e.target.value as Theme;
            setTheme(t);
            onPreviewTheme?.(t);
          }}
        >
          <option value="system">Follow the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      <label className="check">
        <input type="checkbox" checked={notifications} onChange={(e) => setNotifications(e.target.checked)} />
        Desktop notifications when a call waits for approval or a run ends while the window is in the background
      </label>

      <div className="row sticky-actions">
        <button type="button" className="primary" onClick={save}>
          Save
        </button>
        {onClose && settings?.configured && (
          <button type="button" onClick={onClose}>
            Close
          </button>
        )}
        {saved && (
          <span role="status" className="ok">
            Saved.
          </span>
        )}
        {error && (
          <span role="alert" className="bad">
            {error}
          </span>
        )}
      </div>
      <p className="note">The key is kept in a file only you can read in your config folder, never in the session database.</p>
    </section>
  );
}

function replace<T>(list: T[], i: number, v: T): T[] {
  return list.map((x, j) => (j === i ? v : x));
}
