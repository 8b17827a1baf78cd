import { useEffect, useState } from 'react';
import type { InboxApproval, InboxRulePreview } from '../api/types';
import type { AlwaysScope } from '../hooks/useInbox';
import { useModalFocus } from '../hooks/useModalFocus';

const SCOPES: { id: AlwaysScope; label: string }[] = [
  { id: 'session', label: 'This session' },
  { id: 'folder', label: 'This folder' },
  { id: 'everywhere', label: 'Everywhere' },
];

interface Props {
  preview: (scope: AlwaysScope) => Promise<InboxRulePreview | null>;
  /** Saves the rule and approves every call it covers. */
  onConfirm: (scope: AlwaysScope) => Promise<unknown>;
  onCancel: () => void;
}

/**
 * Always allow from the inbox: the exact rule Go would save for the chosen scope and, for a
 * folder or everywhere, every other waiting call it would approve, shown before anything is
 * saved; confirming saves it and approves them all.
 */
export function AlwaysAllow({ preview, onConfirm, onCancel }: Props) {
  const [scope, setScope] = useState<AlwaysScope>('session');
  const [shown, setShown] = useState<InboxRulePreview | null>(null);
  const [busy, setBusy] = useState(false);
  const dialog = useModalFocus<HTMLFormElement>();
  useEffect(() => {
    let live = true;
    setShown(null);
    preview(scope).then((p) => live && setShown(p));
    return () => {
      live = false;
    };
  }, [preview, scope]);
  const others = shown?.others ?? [];
  return (
    <form
      ref={dialog}
      className="always-allow rule-dialog"
      role="dialog"
      aria-label="Always allow"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        await onConfirm(scope);
        setBusy(false);
      }}
      onKeyDown={(e) => e.key === 'Escape' && onCancel()}
    >
      <fieldset className="row">
        <legend>Scope</legend>
        {SCOPES.map((s) => (
          <label key={s.id}>
            <input type="radio" name="always-scope" checked={scope === s.id} onChange={() => setScope(s.id)} />
            {s.label}
          </label>
        ))}
      </fieldset>
      <p className="rule-preview" aria-label="Rule to save">
        <code>{shown ? shown.rule : '…'}</code>
      </p>
      {shown && scope !== 'session' && (
        <div className="also-approves" aria-label="Also approves">
          {others.length === 0 ? (
            <p className="hint">No other waiting call matches it.</p>
          ) : (
            <>
              <p className="hint">
                It also approves {others.length} other waiting call{others.length === 1 ? '' : 's'}:
              </p>
              <ul>
                {others.map((o) => (
                  <li key={`${o.session_id}:${o.call_id}`}>
                    <strong>{o.session_title || 'Untitled'}</strong> — {describeCall(o)}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !shown}>
          {others.length > 0 && scope !== 'session' ? `Save rule and approve ${others.length + 1} calls` : 'Save rule and approve'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A call in one line: the command of a shell call, else the tool and its arguments. */
export function describeCall(a: Pick<InboxApproval, 'tool' | 'arguments'>): string {
  const args = (a.arguments ?? {}) as Record<string, unknown>;
  if (typeof args.command === 'string') return `$ ${args.command}`;
  if (typeof args.path === 'string') return `${a.tool} ${args.path}`;
  return `${a.tool} ${JSON.stringify(args)}`;
}
