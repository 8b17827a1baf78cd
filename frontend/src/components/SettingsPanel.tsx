import { useId, useRef } from 'react';
import type { ApprovalMode, Budgets, ConnectionResult, Preset, Settings, Theme } from '../api/types';
import { VisionSettings } from './VisionSettings';
import { useRules } from '../hooks/useSettings';
import { useSettingsForm, type SettingsDraft } from '../hooks/useSettingsForm';
import { RulesTable } from './RulesTable';
import { HooksSettings } from './HooksSettings';
import { McpSettings } from './McpSettings';
import { ProvidersSettings } from './ProvidersSettings';
import { AgentsSettings } from './AgentsSettings';
import { SkillsSettings } from './SkillsSettings';
import { MemorySettings } from './MemorySettings';
import { EffectiveSettings } from './EffectiveSettings';
import { TelemetrySettings } from './TelemetrySettings';
import { BackupsSettings } from './BackupsSettings';
import { PricesTable, SAVED_BY_SAVE, SettingsNav, SettingsSection, WindowsTable } from './SettingsSections';
import { nonNegative } from './EditableTable';
import { DatabaseTotal } from './Organise';
import { useDatabaseSize } from '../hooks/useOrganise';

interface Props {
  settings: Settings | null;
  onSaved: (s: Settings) => void;
  onClose?: () => void;
  /** The open session, which new rules are scoped to. */
  sessionID?: string | null;
  /** Shows a theme immediately, before it is saved. */
  onPreviewTheme?: (t: Theme) => void;
  /** Opens a session at a row (a memory's Show source). */
  onShowSource?: (sessionID: string, seq: number) => void;
}

const BUDGET_FIELDS: { key: keyof Budgets; label: string; step: string }[] = [
  { key: 'max_turns', label: 'Max turns', step: '1' },
  { key: 'max_tool_calls', label: 'Max tool calls', step: '1' },
  { key: 'max_tokens', label: 'Max tokens', step: '1000' },
  { key: 'max_cost_usd', label: 'Max cost (USD)', step: '0.01' },
  { key: 'timeout_seconds', label: 'Timeout (seconds)', step: '10' },
];

type Form = ReturnType<typeof useSettingsForm>;

/**
 * Settings, in sections with a list of them beside an area that scrolls on its own; one Save
 * below it for the form (sections that save themselves say so). Settings: endpoint presets with Test connection and the model list, the API
 * key, the default approval mode and the saved rules, default budgets, the
 * price table and context windows per model, and the theme.
 */
export function SettingsPanel({ settings, sessionID, onSaved, onClose, onPreviewTheme, onShowSource }: Props) {
  const f = useSettingsForm(settings, onSaved);
  const { draft: d, set } = f;
  const body = useRef<HTMLDivElement>(null);
  const session = sessionID ?? null;
  return (
    <section className="settings" aria-label="Settings">
      <h1>Settings</h1>
      <SettingsNav body={body} />
      <div className="settings-body" ref={body} role="region" aria-label="Section contents">
        {settings?.problem && (
          <p role="alert" className="bad settings-problem">
            {settings.problem}
          </p>
        )}
        {!settings?.configured && !settings?.problem && <p className="hint">Choose an OpenAI-compatible endpoint to start. Local servers need no key.</p>}
        <SettingsSection id="endpoint">
          <EndpointSection form={f} keySource={settings?.key_source} />
          <EffectiveSettings version={settings} />
        </SettingsSection>
        <SettingsSection id="approvals">
          <ApprovalsSection mode={d.mode} onMode={(mode) => set({ mode })} sessionID={session} />
        </SettingsSection>
        <SettingsSection id="budgets">
          <BudgetsSection budgets={d.budgets} onChange={(budgets) => set({ budgets })} />
        </SettingsSection>
        <SettingsSection id="prices">
          <PricesTable prices={d.prices} model={d.model} onChange={(prices) => set({ prices })} />
        </SettingsSection>
        <SettingsSection id="context">
          <WindowsTable windows={d.windows} model={d.model} onChange={(windows) => set({ windows })} />
        </SettingsSection>
        <SettingsSection id="vision">
          <VisionSettings rows={d.vision} onChange={(vision) => set({ vision })} providers={f.providerNames} provider={d.provider} model={d.model} />
        </SettingsSection>
        <SettingsSection id="appearance">
          <AppearanceSection draft={d} set={set} onPreviewTheme={onPreviewTheme} />
        </SettingsSection>
        <SettingsSection id="providers">
          <ProvidersSettings onSaved={() => void f.reloadProviders()} />
        </SettingsSection>
        <SettingsSection id="mcp">
          <McpSettings />
        </SettingsSection>
        <SettingsSection id="hooks">
          <HooksSettings sessionID={session} />
        </SettingsSection>
        <SettingsSection id="skills">
          <SkillsSettings sessionID={session} />
        </SettingsSection>
        <SettingsSection id="memory">
          <MemorySettings sessionID={session} onShowSource={onShowSource} everyFolderChoice />
        </SettingsSection>
        <SettingsSection id="agents">
          <AgentsSettings sessionID={session} />
        </SettingsSection>
        <SettingsSection id="telemetry">
          <TelemetrySettings />
        </SettingsSection>
        <SettingsSection id="storage">
          <Storage />
        </SettingsSection>
        <SettingsSection id="backups">
          <BackupsSettings />
        </SettingsSection>
      </div>
      <SaveBar onSave={() => void f.save()} onClose={onClose && settings?.configured ? onClose : undefined} saved={f.saved} error={f.error} />
    </section>
  );
}

/** Below the scrolling area, never over it: nothing of a section hides behind it. */
function SaveBar({ onSave, onClose, saved, error }: { onSave: () => void; onClose?: () => void; saved: boolean; error: string }) {
  return (
    <footer className="settings-actions">
      <div className="row">
        <button type="button" className="primary" onClick={onSave}>
          Save
        </button>
        {onClose && (
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
  );
}

/** The endpoint, the provider and the model new sessions use. */
function EndpointSection({ form: f, keySource }: { form: Form; keySource?: string }) {
  const { draft: d, set } = f;
  const listID = useId();
  return (
    <>
      <EndpointFields
        presets={f.presets}
        baseURL={d.baseURL}
        setBaseURL={(baseURL) => set({ baseURL })}
        apiKey={d.apiKey}
        setApiKey={(apiKey) => set({ apiKey })}
        clearKey={d.clearKey}
        setClearKey={(clearKey) => set({ clearKey })}
        keySource={keySource}
        test={f.test}
        setTest={f.setTest}
        testing={f.testing}
        runTest={() => void f.runTest()}
      />
      <label>
        Provider for new sessions
        <select value={d.provider} onChange={(e) => set({ provider: e.target.value })}>
          {[...new Set([...f.providerNames, d.provider])].map((n) => (
            <option key={n} value={n}>
              {n === 'default' ? 'default (this endpoint)' : n}
            </option>
          ))}
        </select>
      </label>
      <label>
        Model
        <input value={d.model} onChange={(e) => set({ model: e.target.value })} list={listID} placeholder="e.g. gpt-4.1-mini or llama3.2" spellCheck={false} />
        <datalist id={listID}>
          {f.models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </label>
    </>
  );
}

/** The default approval mode (saved with Save) and the rules (each saved on its own). */
function ApprovalsSection({ mode, onMode, sessionID }: { mode: ApprovalMode; onMode: (m: ApprovalMode) => void; sessionID: string | null }) {
  const rules = useRules();
  return (
    <>
      <h2>Approvals</h2>
      <label>
        Default approval mode
        <select value={mode} onChange={(e) => onMode(e.target.value as ApprovalMode)}>
          <option value="ask">Ask for every call</option>
          <option value="read-only">Run read-only tools, ask for the rest</option>
          <option value="sandboxed">Run file tools and sandboxed commands, ask for the rest</option>
          <option value="review">Review each hunk before a file is written; ask for the rest</option>
          <option value="auto">Run everything without asking</option>
          <option value="deny">Deny every call</option>
        </select>
      </label>
      <p className="note">Each rule below is saved on its own, with Save rule.</p>
      <RulesTable rules={rules.rules} sessionID={sessionID} onAdd={rules.add} onUpdate={rules.update} onRemove={(id) => void rules.remove(id)} error={rules.error} />
    </>
  );
}

function BudgetsSection({ budgets, onChange }: { budgets: Budgets; onChange: (b: Budgets) => void }) {
  return (
    <>
      <h2>Default budgets</h2>
      <p className="note">0 means no limit. Each run stops when it reaches one.</p>
      <div className="budget-grid">
        {BUDGET_FIELDS.map((f) => (
          <label key={f.key}>
            {f.label}
            <input type="number" min="0" step={f.step} value={budgets[f.key]} onChange={(e) => onChange({ ...budgets, [f.key]: nonNegative(e.target.value) })} />
          </label>
        ))}
      </div>
    </>
  );
}

function AppearanceSection({ draft, set, onPreviewTheme }: { draft: SettingsDraft; set: (p: Partial<SettingsDraft>) => void; onPreviewTheme?: (t: Theme) => void }) {
  return (
    <>
      <h2>Appearance</h2>
      <label>
        Theme
        <select
          value={draft.theme}
          onChange={(e) => {
            const t = e.target.value as Theme;
            set({ theme: t });
            onPreviewTheme?.(t);
          }}
        >
          <option value="system">Follow the system</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      <label className="check">
        <input type="checkbox" checked={draft.notifications} onChange={(e) => set({ notifications: e.target.checked })} />
        Desktop notifications when a call waits for approval or a run ends while the window is in the background
      </label>
    </>
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

function Storage() {
  const db = useDatabaseSize();
  return <DatabaseTotal size={db.size} busy={db.busy} error={db.error} onCompact={() => void db.compact()} />;
}
