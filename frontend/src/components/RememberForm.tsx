import './memory.css';
import { useState } from 'react';

/**
 * The approval card of a remember call: the memory the model proposes, where it would apply,
 * and its text to edit before approving it (only the person approves a memory: every later run
 * of the folder carries it). Approve and Deny below answer the call as the model sent it.
 */
export function RememberForm({ raw, busy, onApprove }: { raw: string; busy: boolean; onApprove: (args: string) => void }) {
  const proposed = parse(raw);
  const [text, setText] = useState(proposed.text);
  const where = proposed.scope === 'personal' ? 'every folder (personal)' : 'this folder';
  return (
    <form
      className="remember-form"
      onSubmit={(e) => {
        e.preventDefault();
        onApprove(JSON.stringify({ text: text.trim(), scope: proposed.scope }));
      }}
    >
      <p className="note">The agent asks to remember this for {where}. Later runs carry it until you remove it (Settings → Memory).</p>
      <textarea aria-label="Memory text" rows={Math.min(8, text.split('\n').length + 1)} value={text} onChange={(e) => setText(e.target.value)} />
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !text.trim()}>
          Remember this text
        </button>
      </div>
    </form>
  );
}

function parse(raw: string): { text: string; scope: string } {
  try {
    const v = JSON.parse(raw) as { text?: unknown; scope?: unknown };
    return { text: typeof v.text === 'string' ? v.text : '', scope: v.scope === 'personal' ? 'personal' : 'project' };
  } catch {
    return { text: '', scope: 'project' };
  }
}
