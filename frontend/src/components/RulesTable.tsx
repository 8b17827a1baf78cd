import { useState } from 'react';
import type { RuleEffect, RuleInput, RuleScope, RuleView } from '../api/types';
import { ruleText } from './RuleDialog';

interface Props {
  /** As Go lists them: a rule and its forks' copies are one row; Edit and Delete act on all. */
  rules: RuleView[];
  /** The open session: new rules are scoped to it or to its workspace. */
  sessionID: string | null;
  onAdd: (r: RuleInput) => Promise<boolean>;
  onUpdate: (id: string, r: RuleInput) => Promise<boolean>;
  onRemove: (id: string) => void;
}

interface Draft {
  tool: string;
  pattern: string;
  effect: RuleEffect;
  scope: RuleScope;
}

const EMPTY: Draft = { tool: 'run_shell_command', pattern: '', effect: 'deny', scope: 'session' };

/**
 * The saved approval rules: allow, ask and deny rules can be added and edited here, with the
 * exact rule shown before it is saved. Go decides with them; deny wins.
 */
export function RulesTable({ rules, sessionID, onAdd, onUpdate, onRemove }: Props) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<string>('');
  const [edit, setEdit] = useState<Draft>(EMPTY);
  const input = (d: Draft): RuleInput => ({ ...d, tool: d.tool.trim(), pattern: d.pattern.trim() || '*', session_id: sessionID ?? '' });
  return (
    <>
      <table className="grid" aria-label="Saved rules">
        <thead>
          <tr>
            <th>Tool</th>
            <th>Pattern</th>
            <th>Effect</th>
            <th>Applies to</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rules.map((r) =>
            editing === r.id ? (
              <tr key={r.id}>
                <td>
                  <input aria-label="Edited rule tool" value={edit.tool} onChange={(e) => setEdit({ ...edit, tool: e.target.value })} />
                </td>
                <td>
                  <input aria-label="Edited rule pattern" value={edit.pattern} onChange={(e) => setEdit({ ...edit, pattern: e.target.value })} />
                </td>
                <td>
                  <EffectSelect label="Edited rule effect" value={edit.effect} onChange={(effect) => setEdit({ ...edit, effect })} />
                </td>
                <td>{r.scope}</td>
                <td>
                  <code aria-label="Rule to save">{ruleText(edit)}</code>{' '}
                  <button
                    type="button"
                    className="small primary"
                    disabled={!edit.tool.trim()}
                    onClick={async () => {
                      if (await onUpdate(r.id, { ...input(edit), scope: r.scope })) setEditing('');
                    }}
                  >
                    Save rule
                  </button>
                  <button type="button" className="small" onClick={() => setEditing('')}>
                    Cancel
                  </button>
                </td>
              </tr>
            ) : (
              <tr key={r.id} title={r.text}>
                <td>{r.tool}</td>
                <td>
                  <code>{r.pattern}</code>
                </td>
                <td>{r.effect}</td>
                <td>{r.where}</td>
                <td>
                  <button
                    type="button"
                    className="small"
                    aria-label={`Edit rule ${r.tool} ${r.pattern}`}
                    onClick={() => {
                      setEdit({ tool: r.tool, pattern: r.pattern, effect: r.effect, scope: r.scope });
                      setEditing(r.id);
                    }}
                  >
                    Edit
                  </button>
                  <button type="button" className="small" aria-label={`Delete rule ${r.tool} ${r.pattern}`} onClick={() => onRemove(r.id)}>
                    Delete
                  </button>
                </td>
              </tr>
            ),
          )}
          {rules.length === 0 && (
            <tr>
              <td colSpan={5} className="muted">
                No saved rules. “Always allow” or “Always deny” on a tool call creates one, or add one below.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <form
        className="row rule-add"
        aria-label="New rule"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await onAdd(input(draft))) setDraft(EMPTY);
        }}
      >
        <input aria-label="New rule tool" value={draft.tool} onChange={(e) => setDraft({ ...draft, tool: e.target.value })} />
        <input aria-label="New rule pattern" placeholder="* or git push*" value={draft.pattern} onChange={(e) => setDraft({ ...draft, pattern: e.target.value })} />
        <EffectSelect label="New rule effect" value={draft.effect} onChange={(effect) => setDraft({ ...draft, effect })} />
        <select aria-label="New rule scope" value={draft.scope} onChange={(e) => setDraft({ ...draft, scope: e.target.value as RuleScope })}>
          <option value="session">The open session</option>
          <option value="workspace">Its workspace</option>
        </select>
        <code aria-label="Rule to save">{ruleText(draft)}</code>
        <button type="submit" className="small" disabled={!sessionID || !draft.tool.trim()} title={sessionID ? undefined : 'Open a session first'}>
          Add rule
        </button>
      </form>
    </>
  );
}

function EffectSelect({ label, value, onChange }: { label: string; value: RuleEffect; onChange: (e: RuleEffect) => void }) {
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value as RuleEffect)}>
      <option value="allow">allow</option>
      <option value="ask">ask</option>
      <option value="deny">deny</option>
    </select>
  );
}
