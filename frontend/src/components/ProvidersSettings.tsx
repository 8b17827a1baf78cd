import { useState } from 'react';
import type { ConnectionResult, KeyOrigin, Provider, ProviderInfo, ProviderKind } from '../api/types';
import { useProviders } from '../hooks/useProviders';
import { submitted } from '../lib/forms';
import { CancelButton } from './CancelButton';

/**
 * Settings → Providers: every provider a session can use — "default" (the endpoint above) and
 * the entries of providers.json — with its kind, base URL, models, and where its key comes
 * from (an environment variable or a 0600 file; the key itself never reaches the page or the
 * file). Add, edit, remove, Test connection (which can fill the model list). "Save providers"
 * is the only thing that writes the file.
 */
export function ProvidersSettings({ onSaved }: { onSaved?: () => void }) {
  const p = useProviders();
  const [editing, setEditing] = useState<Provider | null>(null);
  const [adding, setAdding] = useState(false);
  const fileNames = new Set(p.draft.map((x) => x.name));

  return (
    <section className="providers-settings" aria-label="Providers">
      <h2>Providers</h2>
      <p className="muted">
        Each session uses one provider and model, chosen in its header. <code>default</code> is the endpoint above; others live in <code>{p.path || 'providers.json'}</code>.
      </p>
      {p.fileError && (
        <p role="alert" className="bad file-error">
          The providers file could not be read: {p.fileError}
        </p>
      )}
      <ul className="providers">
        {p.infos
          .filter((i) => i.name === 'default')
          .map((i) => (
            <li key="default" className="provider" aria-label="Provider default">
              <div className="row">
                <strong>default</strong>
                <span className="muted">
                  {i.kind} · {i.base_url || '(no endpoint yet)'} · {keyText(i.key)}
                </span>
                <TestButton name="default" result={p.tests.default} onTest={() => void p.test({ name: 'default', kind: 'openai', base_url: i.base_url, models: [] })} />
              </div>
            </li>
          ))}
        {p.draft.map((x) => (
          <ProviderItem
            key={x.name}
            provider={x}
            info={p.infos.find((i) => i.name === x.name)}
            keyTyped={p.pendingKeys.includes(x.name)}
            result={p.tests[x.name]}
            onTest={async () => {
              const r = await p.test(x);
              if (r.ok && !x.models?.length && (r.models ?? []).length > 0) p.put({ ...x, models: r.models ?? [] });
            }}
            onEdit={() => setEditing(x)}
            onRemove={() => p.remove(x.name)}
          />
        ))}
      </ul>
      {(editing || adding) && (
        <ProviderForm
          key={editing?.name ?? '(new)'}
          initial={editing}
          taken={[...fileNames].filter((n) => n !== editing?.name)}
          keySet={Boolean(editing && (p.pendingKeys.includes(editing.name) || p.infos.find((i) => i.name === editing.name)?.key.found))}
          onSubmit={(x, key) => {
            p.put(x, editing?.name, key || undefined);
            setEditing(null);
            setAdding(false);
          }}
          onCancel={() => {
            setEditing(null);
            setAdding(false);
          }}
        />
      )}
      <div className="row">
        {!editing && !adding && (
          <button type="button" onClick={() => setAdding(true)}>
            Add provider
          </button>
        )}
        <button
          type="button"
          className="primary"
          disabled={!p.dirty}
          onClick={async () => {
            await p.save();
            onSaved?.();
          }}
        >
          Save providers
        </button>
        {p.dirty && <span className="muted">Unsaved changes: the file is written only when you save.</span>}
        {p.saved && (
          <span role="status" className="ok">
            Providers saved.
          </span>
        )}
        {p.error && (
          <span role="alert" className="bad">
            {p.error}
          </span>
        )}
      </div>
    </section>
  );
}

interface ItemProps {
  provider: Provider;
  /** What Go knows of it as saved (absent until saved). */
  info: ProviderInfo | undefined;
  keyTyped: boolean;
  result: ConnectionResult | 'testing' | undefined;
  onTest: () => void;
  onEdit: () => void;
  onRemove: () => void;
}

/** One provider of the file: kind, base URL, where its key comes from, models; Test, Edit, Remove. */
function ProviderItem({ provider: x, info, keyTyped, result, onTest, onEdit, onRemove }: ItemProps) {
  return (
    <li className="provider" aria-label={`Provider ${x.name}`}>
      <div className="row">
        <strong>{x.name}</strong>
        <span className="muted">
          {x.kind} · {x.base_url} · {keyTyped ? 'key typed (saved with the providers)' : info ? keyText(info.key) : keySpec(x)}
          {x.thinking_budget ? ` · thinking ${x.thinking_budget} tokens` : ''}
        </span>
        <TestButton name={x.name} result={result} onTest={onTest} />
        <button type="button" className="small" aria-label={`Edit provider ${x.name}`} onClick={onEdit}>
          Edit
        </button>
        <button type="button" className="small danger" aria-label={`Remove provider ${x.name}`} onClick={onRemove}>
          Remove
        </button>
      </div>
      <div className="muted small-print">Models: {x.models?.length ? x.models.join(', ') : 'none listed (Test connection fills them)'}</div>
      {info?.error && (
        <p role="alert" className="bad">
          {info.error}
        </p>
      )}
    </li>
  );
}

function keyText(k: KeyOrigin): string {
  if (k.from === 'none' || !k.from) return 'no key';
  const where = k.from === 'env' ? `key from $${k.name}` : `key file ${k.name}`;
  return k.found ? where : `${where} (not set)`;
}

function keySpec(x: Provider): string {
  if (x.api_key_env) return `key from $${x.api_key_env}`;
  if (x.api_key_file) return `key file ${x.api_key_file}`;
  return 'no key';
}

function TestButton({ name, result, onTest }: { name: string; result: ConnectionResult | 'testing' | undefined; onTest: () => void }) {
  return (
    <>
      <button type="button" className="small" aria-label={`Test ${name} connection`} disabled={result === 'testing'} onClick={onTest}>
        {result === 'testing' ? 'Testing…' : 'Test connection'}
      </button>
      {result && result !== 'testing' && (
        <span role="status" className={result.ok ? 'ok' : 'bad'}>
          {result.ok ? `Connected: ${(result.models ?? []).length} model(s).` : result.error}
        </span>
      )}
    </>
  );
}

const EMPTY: Provider = { name: '', kind: 'openai', base_url: '', api_key_env: '', api_key_file: '', models: [], thinking_budget: 0 };

/** The form's provider as saved (trimmed, models listed once), or why it cannot be. */
function checkProvider(p: Provider, models: string, taken: string[]): Provider | string {
  const name = p.name.trim();
  if (!name) return 'Give the provider a name.';
  if (name === 'default') return '"default" is the endpoint above; choose another name.';
  if (taken.includes(name)) return `There is already a provider named ${name}.`;
  if (!p.base_url.trim()) return 'Enter the base URL.';
  const list = models
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const out: Provider = { name, kind: p.kind, base_url: p.base_url.trim(), models: [...new Set(list)] };
  if (p.api_key_env?.trim()) out.api_key_env = p.api_key_env.trim();
  if (p.api_key_file?.trim()) out.api_key_file = p.api_key_file.trim();
  if (p.thinking_budget) out.thinking_budget = p.thinking_budget;
  return out;
}

/**
 * The add/edit form of one provider. Its key is typed here (Go keeps it in a 0600 file of its
 * own; the page never sees it again, only whether one is set) or named: a variable or a file.
 */
function ProviderForm({
  initial,
  taken,
  keySet,
  onSubmit,
  onCancel,
}: {
  initial: Provider | null;
  taken: string[];
  keySet: boolean;
  onSubmit: (p: Provider, key: string) => void;
  onCancel: () => void;
}) {
  const [p, setP] = useState<Provider>({ ...EMPTY, ...initial });
  const [key, setKey] = useState('');
  const [models, setModels] = useState((initial?.models ?? []).join(', '));
  const [problem, setProblem] = useState('');
  const set = (patch: Partial<Provider>) => setP({ ...p, ...patch });

  const submit = () => {
    const out = checkProvider(p, models, taken);
    if (typeof out === 'string') return setProblem(out);
    onSubmit(out, key.trim());
  };

  return (
    <form
      className="provider-form"
      aria-label={initial ? `Edit provider ${initial.name}` : 'New provider'}
      onSubmit={submitted(submit)}
    >
      <label>
        Name
        <input value={p.name} onChange={(e) => set({ name: e.target.value })} spellCheck={false} />
      </label>
      <label>
        Kind
        <select value={p.kind} onChange={(e) => set({ kind: e.target.value as ProviderKind })}>
          <option value="openai">OpenAI-compatible (Chat Completions)</option>
          <option value="anthropic">Anthropic (Messages API)</option>
        </select>
      </label>
      <label>
        Provider base URL
        <input
          value={p.base_url}
          onChange={(e) => set({ base_url: e.target.value })}
          placeholder={p.kind === 'anthropic' ? 'https://api.anthropic.com (without /v1)' : 'https://api.deepseek.com/v1'}
          spellCheck={false}
        />
      </label>
      <label>
        API key
        <input
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          placeholder={keySet ? 'A key is set: type to replace it' : 'Kept in its own 0600 file, never shown again'}
          spellCheck={false}
        />
      </label>
      <label>
        Key environment variable
        <input value={p.api_key_env ?? ''} onChange={(e) => set({ api_key_env: e.target.value })} placeholder="e.g. ANTHROPIC_API_KEY" spellCheck={false} />
      </label>
      <label>
        Key file (mode 0600)
        <input value={p.api_key_file ?? ''} onChange={(e) => set({ api_key_file: e.target.value })} placeholder="e.g. ~/.config/loopdesk/anthropic.key" spellCheck={false} />
      </label>
      <label>
        Models (comma-separated)
        <input value={models} onChange={(e) => setModels(e.target.value)} placeholder="e.g. claude-sonnet-4-5" spellCheck={false} />
      </label>
      <label>
        Thinking budget (tokens, 0 off)
        <input type="number" min="0" step="1024" value={p.thinking_budget ?? 0} onChange={(e) => set({ thinking_budget: Math.max(0, Math.floor(Number(e.target.value) || 0)) })} />
      </label>
      <div className="row">
        <button type="submit" className="primary">
          {initial ? 'Apply' : 'Add'}
        </button>
        <CancelButton onCancel={onCancel} />
        {problem && (
          <span role="alert" className="bad">
            {problem}
          </span>
        )}
      </div>
    </form>
  );
}
