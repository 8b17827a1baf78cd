import { useCallback, useEffect, useState } from 'react';
import { api } from '../api/backend';
import type { ConnectionResult, Provider, ProviderInfo } from '../api/types';
import { errorMessage } from '../api/types';

/**
 * Settings → Providers: providers.json as saved and as being edited (nothing is written until
 * save()), every provider as runs see it ("default" first, where each key comes from), and the
 * result of Test connection per provider.
 */
export function useProviders() {
  const [path, setPath] = useState('');
  const [fileError, setFileError] = useState('');
  const [draft, setDraft] = useState<Provider[]>([]);
  const [infos, setInfos] = useState<ProviderInfo[]>([]);
  const [dirty, setDirty] = useState(false);
  const [error, setError] = useState('');
  const [saved, setSaved] = useState(false);
  const [tests, setTests] = useState<Record<string, ConnectionResult | 'testing'>>({});
  /** Keys typed in a provider's form, kept until save() hands each to Go (never shown again). */
  const [keys, setKeys] = useState<Record<string, string>>({});

  const show = (v: Awaited<ReturnType<typeof api.listProviders>>) => {
    setPath(v.path);
    setFileError(v.error);
    setDraft(v.providers ?? []);
    setInfos(v.infos ?? []);
    setDirty(false);
  };

  const load = useCallback(async () => {
    try {
      show(await api.listProviders());
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const edit = (next: Provider[]) => {
    setDraft(next);
    setDirty(true);
    setSaved(false);
  };
  /** Puts an entry in the draft; key, when given, is typed for it (an empty one: none typed). */
  const put = (p: Provider, replacing?: string, key?: string) => {
    const at = draft.findIndex((x) => x.name === (replacing ?? p.name));
    edit(at < 0 ? [...draft, p] : draft.map((x, i) => (i === at ? p : x)));
    const { [replacing ?? p.name]: typed, ...rest } = keys;
    const next = key === undefined ? typed : key.trim();
    setKeys(next ? { ...rest, [p.name]: next } : rest);
  };
  const remove = (name: string) => edit(draft.filter((p) => p.name !== name));

  const save = async () => {
    setError('');
    try {
      let v = await api.saveProviders(draft);
      // Each typed key goes to its own 0600 file once its provider is saved.
      for (const [name, key] of Object.entries(keys)) v = await api.setProviderKey(name, key);
      setKeys({});
      show(v);
      setSaved(true);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  /** Tests a provider as edited; "default" tests the saved endpoint. A listed model list fills an empty one. */
  const test = async (p: Provider) => {
    setTests((t) => ({ ...t, [p.name]: 'testing' }));
    let r: ConnectionResult;
    try {
      r = await api.testProvider(p);
    } catch (e) {
      r = { ok: false, models: null, error: errorMessage(e) };
    }
    setTests((t) => ({ ...t, [p.name]: r }));
    return r;
  };

  return { path, fileError, draft, infos, dirty, error, saved, tests, pendingKeys: Object.keys(keys), put, remove, save, test, reload: load };
}

/** The providers a session can choose, loaded when `open` turns true (the header's chooser). */
export function useProviderInfos(open: boolean) {
  const [infos, setInfos] = useState<ProviderInfo[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    if (!open) return;
    let live = true;
    api.listProviders().then(
      (v) => {
        if (!live) return;
        setInfos(v.infos ?? []);
        setError(v.error ? `The providers file could not be read: ${v.error}` : '');
      },
      (e) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [open]);
  return { infos, error };
}
