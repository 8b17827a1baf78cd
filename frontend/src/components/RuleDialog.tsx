import { useState } from 'react';
import type { RuleInput, RuleScope } from '../api/types';

interface Props {
  rule: RuleInput;
  busy: boolean;
  onSave: (r: RuleInput) => void;
  onCancel: () => void;
}

/**
 * The exact rule "Always allow" will save (Go's suggestion), editable first:
 * tool, argument pattern and scope. Saving it also approves the call.
 */
export function RuleDialog({ rule, busy, onSave, onCancel }: Props) {
  const [tool, setTool] = useState(rule.tool);
  const [pattern, setPattern] = useState(rule.pattern);
  const [scope, setScope] = useState<RuleScope>(rule.scope);
  return (
    <form
      className="rule-dialog"
      role="dialog"
      aria-label="Always allow rule"
      onSubmit={(e) => {
        e.preventDefault();
        onSave({ ...rule, tool: tool.trim(), pattern, scope, effect: 'allow' });
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onCancel();
      }}
    >
      <p className="hint">Calls matching this rule will run without asking.</p>
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
          Save rule and approve
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
