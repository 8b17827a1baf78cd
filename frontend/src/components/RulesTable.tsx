import { useState } from 'react';
import type { RuleEffect, RuleInput, RuleScope, RuleView } from '../api/types';
import { EditableTable, type Column } from './EditableTable';
import { ruleText } from './RuleDialog';
import { submitted } from '../lib/forms';
import { CancelButton } from './CancelButton';

interface Props {
  /** As Go lists them: a rule and its forks' copies are one row; Edit and Delete act on all. */
  rules: RuleView[];
  /** The open session: new rules are scoped to it or to its workspace. */
  sessionID: string | null;
  onAdd: (r: RuleInput) => Promise<boolean>;
  onUpdate: (id: string, r: RuleInput) => Promise<boolean>;
  onRemove: (id: string) => void;
  /** Why Go refused the last add, edit or delete. */
  error?: string;
}

interface Draft {
  tool: string;
  pattern: string;
  effect: RuleEffect;
  scope: RuleScope;
}

const EMPTY: Draft = { tool: 'run_shell_command', pattern: '', effect: 'deny', scope: 'session' };

const COLUMNS: Column<RuleView>[] = [
  { header: 'Tool', cell: (r) => r.tool },
  { header: 'Pattern', cell: (r) => <code>{r.pattern}</code> },
  { header: 'Effect', cell: (r) => r.effect },
  { header: 'Applies to', cell: (r) => r.where },
];

/**
 * The saved approval rules: allow, ask and deny rules can be added and edited here, with the
 * exact rule shown before it is saved. Go decides with them; deny wins.
 */
export function RulesTable({ rules, sessionID, onAdd, onUpdate, onRemove, error }: Props) {
  const [editing, setEditing] = useState<string>('');
  const input = (d: Draft): RuleInput => ({ ...d, tool: d.tool.trim(), pattern: d.pattern.trim() || '*', session_id: sessionID ?? '' });
  return (
    <EditableTable
      label="Saved rules"
      columns={COLUMNS}
      rows={rules}
      rowKey={(r) => r.id}
      rowTitle={(r) => r.text}
      renderRow={(r) =>
        editing === r.id ? (
          <EditingRule key={r.id} rule={r} onSave={async (d) => (await onUpdate(r.id, { ...input(d), scope: r.scope })) && setEditing('')} onCancel={() => setEditing('')} />
        ) : undefined
      }
      actions={(r) => (
        <>
          <button type="button" className="small" aria-label={`Edit rule ${r.tool} ${r.pattern}`} onClick={() => setEditing(r.id)}>
            Edit
          </button>
          <button type="button" className="small" aria-label={`Delete rule ${r.tool} ${r.pattern}`} onClick={() => onRemove(r.id)}>
            Delete
          </button>
        </>
      )}
      empty="No saved rules. “Always allow” or “Always deny” on a tool call creates one, or add one below."
      footer={<NewRule sessionID={sessionID} onAdd={(d) => onAdd(input(d))} />}
      message={error}
    />
  );
}

/** A saved rule being edited in its row: tool, pattern and effect; its scope stays. */
function EditingRule({ rule, onSave, onCancel }: { rule: RuleView; onSave: (d: Draft) => void; onCancel: () => void }) {
  const [edit, setEdit] = useState<Draft>({ tool: rule.tool, pattern: rule.pattern, effect: rule.effect, scope: rule.scope });
  return (
    <tr>
      <td>
        <input aria-label="Edited rule tool" value={edit.tool} onChange={(e) => setEdit({ ...edit, tool: e.target.value })} />
      </td>
      <td>
        <input aria-label="Edited rule pattern" value={edit.pattern} onChange={(e) => setEdit({ ...edit, pattern: e.target.value })} />
      </td>
      <td>
        <EffectSelect label="Edited rule effect" value={edit.effect} onChange={(effect) => setEdit({ ...edit, effect })} />
      </td>
      <td>{rule.scope}</td>
      <td>
        <code aria-label="Rule to save">{ruleText(edit)}</code>{' '}
        <button type="button" className="small primary" disabled={!edit.tool.trim()} onClick={() => onSave(edit)}>
          Save rule
        </button>
        <CancelButton onCancel={onCancel} small />
      </td>
    </tr>
  );
}

/** The form below the table that adds a rule for the open session or its workspace. */
function NewRule({ sessionID, onAdd }: { sessionID: string | null; onAdd: (d: Draft) => Promise<boolean> }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  return (
    <form
      className="row rule-add"
      aria-label="New rule"
      onSubmit={submitted(async () => {
        if (await onAdd(draft)) setDraft(EMPTY);
      })}
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
