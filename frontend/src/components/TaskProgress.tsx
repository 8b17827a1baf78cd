import { createContext, useContext, useState } from 'react';
import type { Children } from '../hooks/useChildren';
import type { DecisionInput } from '../api/types';

/** What a task card needs from the window: the live children and two actions. */
export interface TaskContext {
  children: Children;
  /** The child session a task call of the open session started, from the session list (after a reopen). */
  childOf: (callId: string) => string | undefined;
  openSession: (id: string) => void;
  decide: (sessionId: string, callId: string, d: DecisionInput) => Promise<boolean>;
}

export const TaskCtx = createContext<TaskContext | null>(null);

interface Props {
  callId: string;
  args: { description?: string; agent?: string } | null;
  /** The task call's result is stored: the child is done. */
  done: boolean;
}

/** A task card's child: its progress, its calls waiting for approval (labelled), and a way to open it. */
export function TaskProgress({ callId, args, done }: Props) {
  const ctx = useContext(TaskCtx);
  const child = ctx?.children[callId];
  const label = `${args?.description ?? 'task'}${args?.agent ? ` (agent ${args.agent})` : ''}`;
  if (!ctx) return null;
  if (!child) {
    // Not seen live (the session was reopened): the stored child can still be opened.
    const id = ctx.childOf(callId);
    if (!id) return null;
    return (
      <div className="task-progress" aria-label={`Child session: ${label}`} role="group">
        <div className="task-progress-line">
          <span>Child session</span>
          <button type="button" className="small" onClick={() => ctx.openSession(id)}>
            Open child session
          </button>
        </div>
      </div>
    );
  }
  return (
    <div className="task-progress" aria-label={`Child session: ${label}`} role="group">
      <div className="task-progress-line">
        <span>{done ? `Child ${child.status}` : `Child: ${child.step}`}</span>
        <span className="muted">
          {child.toolCalls} tool call{child.toolCalls === 1 ? '' : 's'} ·{' '}
          {/* A provider that sends no usage leaves 0: say so rather than show it as free. */}
          {child.status !== 'running' && child.tokens === 0 ? 'usage unreported' : `${child.tokens} tokens · $${child.cost.toFixed(4)}`}
        </span>
        <button type="button" className="small" onClick={() => ctx.openSession(child.sessionId)}>
          Open child session
        </button>
      </div>
      {child.pending.map((p) => (
        <ChildApproval key={p.call_id} label={label} sessionId={child.sessionId} call={p} decide={ctx.decide} />
      ))}
    </div>
  );
}

interface ApprovalProps {
  label: string;
  sessionId: string;
  call: { call_id: string; name: string; arguments: unknown };
  decide: TaskContext['decide'];
}

/** A child's call waiting for the person, on its parent's card: which child asks, the whole call. */
function ChildApproval({ label, sessionId, call, decide }: ApprovalProps) {
  const [busy, setBusy] = useState(false);
  const answer = async (approved: boolean) => {
    setBusy(true);
    await decide(sessionId, call.call_id, { approved, reason: approved ? '' : 'denied by the person', arguments: '', always: null });
    setBusy(false);
  };
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments, null, 2);
  return (
    <div className="child-approval" role="group" aria-label={`Approval for child ${label}`}>
      <div>
        <strong>{label}</strong> asks to run <code>{call.name}</code>
      </div>
      <pre className="child-approval-args">{args}</pre>
      <button type="button" className="small primary" disabled={busy} onClick={() => void answer(true)}>
        Approve
      </button>{' '}
      <button type="button" className="small" disabled={busy} onClick={() => void answer(false)}>
        Deny
      </button>
    </div>
  );
}
