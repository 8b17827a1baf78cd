import { useEffect, useId, useState } from 'react';
import { api } from '../api/backend';
import type { ConnectionResult, Preset, Settings } from '../api/types';
import { errorMessage } from '../api/types';

interface Props {
  settings: Settings | null;
  onSaved: (s: Settings) => void;
  onClose?: () => void;
}

/** Endpoint settings: presets, base URL, model, API key, Test connection. */
export function SettingsPanel({ settings, onSaved, onClose }: Props) {
  const [presets, setPresets] = useState<Preset[]>([]);
  const [baseURL, setBaseURL] = useState(settings?.base_url ?? '');
  const [model, setModel] = useState(settings?.model ?? '');
  const [apiKey, setApiKey] = useState('');
  const [models, setModels] = useState<string[]>([]);
  const [test, setTest] = useState<ConnectionResult | null>(null);
  const [testing, setTesting] = useState(false);
  const [error, setError] = useState('');
  const [saved, setSaved] = useState(false);
  const listID = useId();

  useEffect(() => {
    api.presets().then(setPresets, (e) => setError(errorMessage(e)));
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
      const s = await api.saveSettings({ base_url: baseURL, model, api_key: apiKey, clear_key: false });
      setApiKey('');
      setSaved(true);
      onSaved(s);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return (
    <section className="settings" aria-label="Settings">
      <h1>Settings</h1>
      {!settings?.configured && (
        <p className="hint">Choose an OpenAI-compatible endpoint to start. Local servers need no key.</p>
      )}
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
        Model
        <input value={model} onChange={(e) => setModel(e.target.value)} list={listID} placeholder="e.g. gpt-4.1-mini or llama3.2" spellCheck={false} />
        <datalist id={listID}>
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </label>
      <div className="row">
        <button type="button" className="primary" onClick={save}>
          Save
        </button>
        {onClose && settings?.configured && (
          <button type="button" onClick={onClose}>
            Close
          </button>
        )}
        {saved && <span role="status" className="ok">Saved.</span>}
        {error && (
          <span role="alert" className="bad">
            {error}
          </span>
        )}
      </div>
      <p className="note">
        The key is kept in a file only you can read in your config folder, never in the session database.
      </p>
    </section>
  );
}
