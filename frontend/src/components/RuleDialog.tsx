import { useState } from 'react';
import type { RuleEffect, RuleInput, RuleScope } from '../api/types';
import { useModalFocus } from '../hooks/useModalFocus';
import { submitted } from '../lib/forms';
import { CancelButton } from './CancelButton';

interface Props {
  rule: RuleInput;
  busy: boolean;
  /** allow ("Always allow": saving approves the call) or deny ("Always deny": saving denies it). */
  effect?: RuleEffect;
  onSave: (r: RuleInput) => void;
  onCancel: () => void;
}

/**
 * The exact rule "Always allow" or "Always deny" will save (Go's suggestion), editable first:
 * tool, argument pattern and scope, shown as one line before saving. Saving it also answers
 * the call.
 */
export function RuleDialog({ rule, busy, effect = 'allow', onSave, onCancel }: Props) {
  const [tool, setTool] = useState(rule.tool);
  const [pattern, setPattern] = useState(rule.pattern);
  const [scope, setScope] = useState<RuleScope>(rule.scope);
  const allow = effect === 'allow';
  const dialog = useModalFocus<HTMLFormElement>();
  return (
    <form
      ref={dialog}
      className="rule-dialog"
      role="dialog"
      aria-label={allow ? 'Always allow rule' : 'Always deny rule'}
      onSubmit={submitted(() => onSave({ ...rule, tool: tool.trim(), pattern, scope, effect }))}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel();
      }}
    >
      <p className="hint">{allow ? 'Calls matching this rule will run without asking.' : 'Calls matching this rule will be denied without asking.'}</p>
      <p className="rule-preview" aria-label="Rule to save">
        <code>{ruleText({ tool: tool.trim(), pattern, scope, effect })}</code>
      </p>
      <label>
        Tool
        <input value={tool} onChange={(e) => setTool(e.target.value)} spellCheck={false} />
      </label>
      <label>
        Pattern
        <input value={pattern} autoFocus onChange={(e) => setPattern(e.target.value)} spellCheck={false} />
      </label>
      <label>
        Scope
        <select value={scope} onChange={(e) => setScope(e.target.value as RuleScope)}>
          <option value="session">This session</option>
          <option value="workspace">This workspace</option>
        </select>
      </label>
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !tool.trim()}>
          {allow ? 'Save rule and approve' : 'Save rule and deny'}
        </button>
        <CancelButton onCancel={onCancel} />
      </div>
    </form>
  );
}

/** The rule as one line, exactly as it will be saved. */
export function ruleText(r: { tool: string; pattern: string; scope: RuleScope; effect: RuleEffect }): string {
  const where = r.scope === 'workspace' ? 'in this workspace' : 'in this session';
  return `${r.effect} ${r.tool || '?'} ${r.pattern.trim() || '*'} ${where}`;
}
