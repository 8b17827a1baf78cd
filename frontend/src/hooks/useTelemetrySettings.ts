import { useState } from 'react';
import { api } from '../api/backend';
import type { TelemetryInput, TelemetryView } from '../api/types';
import { errorMessage } from '../api/types';
import { useLoaded } from './useLoaded';

export const NO_TELEMETRY: TelemetryView = {
  on: false,
  endpoint: '',
  protocol: '',
  headers_set: false,
  contents: false,
  from_env: false,
  disabled: false,
  active: false,
  exported: 0,
  dropped: 0,
  last_error: '',
};

/**
 * Settings → Telemetry: the saved configuration, a draft of it, and Save, which Go checks
 * (a turned-on endpoint that is not a URL is refused) before keeping it beside the API key.
 * The headers are write-only: the draft starts empty and an empty field keeps the saved ones.
 */
export function useTelemetrySettings() {
  const t = useLoaded<TelemetryView>(api.telemetry, NO_TELEMETRY);
  const [edit, setEdit] = useState<TelemetryInput | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const v = t.value;
  const draft: TelemetryInput = edit ?? { on: v.on, endpoint: v.endpoint, protocol: v.protocol || 'http/protobuf', headers: '', clear_headers: false, contents: v.contents };
  const set = (p: Partial<TelemetryInput>) => {
    setSaved(false);
    setEdit({ ...draft, ...p });
  };
  const save = async () => {
    setBusy(true);
    try {
      await api.saveTelemetry(draft);
      setEdit(null);
      setSaved(true);
      t.setError('');
      await t.refresh();
    } catch (e) {
      t.setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  return { view: v, draft, set, save, saved, busy, error: t.error };
}
