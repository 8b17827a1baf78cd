import { useEffect, useId, useRef, useState } from 'react';
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
import { PricesTable, SAVED_BY_SAVE, SettingsNav, SettingsSection, WindowsTable } from './SettingsSections';

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
 * Settings, in sections with a list of them beside an area that scrolls on its own; one Save
 * below it for the form (sections that save themselves say so). Settings: endpoint presets with Test connection and the model list, the API
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
  const body = useRef<HTMLDivElement>(null);

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
      <SettingsNav body={body} />
      <div className="settings-body" ref={body} role="region" aria-label="Section contents">
        {!settings?.configured && <p className="hint">Choose an OpenAI-compatible endpoint to start. Local servers need no key.</p>}
        <SettingsSection id="endpoint">
          <EndpointFields
            presets={presets}
            baseURL={baseURL}
            setBaseURL={setBaseURL}
            apiKey={apiKey}
            setApiKey={setApiKey}
            clearKey={clearKey}
            setClearKey={setClearKey}
            keySource={settings?.key_source}
            test={test}
            setTest={setTest}
            testing={testing}
            runTest={runTest}
          />
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
        </SettingsSection>

        <SettingsSection id="approvals">
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
          <p className="note">Each rule below is saved on its own, with Save rule.</p>
          <RulesTable rules={rules.rules} sessionID={sessionID ?? null} onAdd={rules.add} onUpdate={rules.update} onRemove={(id) => void rules.remove(id)} />
          {rules.error && (
            <p role="alert" className="bad">
              {rules.error}
            </p>
          )}
        </SettingsSection>

        <SettingsSection id="budgets">
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
        </SettingsSection>

        <SettingsSection id="prices">
          <PricesTable prices={prices} model={model} onChange={setPrices} />
        </SettingsSection>
        <SettingsSection id="context">
          <WindowsTable windows={windows} model={model} onChange={setWindows} />
        </SettingsSection>
        <SettingsSection id="vision">
          <VisionSettings rows={vision} onChange={setVision} providers={providerNames} provider={provider} model={model} />
        </SettingsSection>

        <SettingsSection id="appearance">
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
        </SettingsSection>

        <SettingsSection id="providers">
          <ProvidersSettings onSaved={() => void loadProviderNames()} />
        </SettingsSection>
        <SettingsSection id="mcp">
          <McpSettings />
        </SettingsSection>
        <SettingsSection id="hooks">
          <HooksSettings sessionID={sessionID ?? null} />
        </SettingsSection>
        <SettingsSection id="skills">
          <SkillsSettings sessionID={sessionID ?? null} />
        </SettingsSection>
        <SettingsSection id="agents">
          <AgentsSettings sessionID={sessionID ?? null} />
        </SettingsSection>
      </div>

      {/* Below the scrolling area, never over it: nothing of a section hides behind it. */}
      <footer className="settings-actions">
        <div className="row">
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
        <p className="note">
          Save writes {SAVED_BY_SAVE.join(', ')}; the other sections save themselves. The key is kept in a file only you can read in your config folder, never in the session database.
        </p>
      </footer>
    </section>
  );
}

interface EndpointProps {
  presets: Preset[];
  baseURL: string;
  setBaseURL: (v: string) => void;
  apiKey: string;
  setApiKey: (v: string) => void;
  clearKey: boolean;
  setClearKey: (v: boolean) => void;
  keySource?: string;
  test: ConnectionResult | null;
  setTest: (r: ConnectionResult | null) => void;
  testing: boolean;
  runTest: () => void;
}

/** The endpoint: presets, base URL, the key, and Test connection. */
function EndpointFields({ presets, baseURL, setBaseURL, apiKey, setApiKey, clearKey, setClearKey, keySource, test, setTest, testing, runTest }: EndpointProps) {
  return (
    <>
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
            keySource === 'file' ? 'A key is saved (leave empty to keep it)' : keySource === 'env' ? 'Using OPENAI_API_KEY from the environment' : 'Not needed for local servers'
          }
        />
      </label>
      {keySource === 'file' && (
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
    </>
  );
}
