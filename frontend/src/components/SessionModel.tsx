import { useId, useState } from 'react';
import { useProviderInfos } from '../hooks/useProviders';
import { submitted } from '../lib/forms';
import { CancelButton } from './CancelButton';

interface Props {
  /** What the session's next run uses. */
  provider: string;
  model: string;
  /** Stores the choice for the next run; resolves to the error text, or "" when stored. */
  onSet: (provider: string, model: string) => Promise<string>;
}

/**
 * The header's provider and model: what the session's NEXT run uses (a running run keeps its
 * own; each run row records what it used). A click opens the chooser: the configured
 * providers and each one's listed models; any model name can be typed.
 */
export function SessionModel({ provider, model, onSet }: Props) {
  const [open, setOpen] = useState(false);
  const [prov, setProv] = useState(provider);
  const [mod, setMod] = useState(model);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const { infos, error: listError } = useProviderInfos(open);
  const listID = useId();
  const models = infos.find((i) => i.name === prov)?.models ?? [];

  if (!open) {
    return (
      <button
        type="button"
        className="linklike model"
        aria-label={`Provider and model of the next run: ${provider} · ${model || 'none'}. Change`}
        title="The provider and model this session's next run uses"
        onClick={() => {
          setProv(provider);
          setMod(model);
          setError('');
          setOpen(true);
        }}
      >
        {provider} · {model || 'no model'}
      </button>
    );
  }
  return (
    <form
      className="row session-model"
      aria-label="Provider and model of the next run"
      onSubmit={submitted(async () => {
        setBusy(true);
        const err = await onSet(prov, mod.trim());
        setBusy(false);
        if (err) setError(err);
        else setOpen(false);
      })}
    >
      <select
        aria-label="Session provider"
        value={prov}
        onChange={(e) => {
          const next = e.target.value;
          setProv(next);
          const list = infos.find((i) => i.name === next)?.models ?? [];
          if (list.length > 0 && !list.includes(mod)) setMod(list[0]);
        }}
      >
        {[...new Set([prov, ...infos.map((i) => i.name)])].map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
      <input aria-label="Session model" value={mod} list={listID} onChange={(e) => setMod(e.target.value)} spellCheck={false} />
      <datalist id={listID}>
        {models.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <button type="submit" className="small primary" disabled={busy || !mod.trim()}>
        Use for the next run
      </button>
      <CancelButton onCancel={() => setOpen(false)} small />
      {(error || listError) && (
        <span role="alert" className="bad">
          {error || listError}
        </span>
      )}
    </form>
  );
}
