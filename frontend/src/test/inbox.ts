// Inbox items as Go's inbox.View carries them, for the page's tests.
import type { InboxApproval, InboxEnded } from '../api/types';

const origin = { kind: 'window', pid: 1, client: '' };

/** A shell call waiting in session since requestedAt. */
export function inboxApproval(session: string, call: string, requestedAt: string, over: Partial<InboxApproval> = {}): InboxApproval {
  return {
    kind: 'approval',
    session_id: session,
    session_title: `Session ${session}`,
    parent_session_id: null,
    child_description: '',
    child_agent: '',
    workspace: '/home/me/project',
    provider: 'default',
    model: 'fake-model',
    run_id: `run-${session}`,
    call_id: call,
    tool: 'run_shell_command',
    arguments: { command: `echo ${call}` },
    diff: '',
    review: false,
    note: '',
    read_only: false,
    sandboxed: true,
    requested_at: requestedAt,
    waiting_ms: 0,
    origin,
    ...over,
  };
}

/** A run that ended with status (a failure's reason given). */
export function inboxEnded(run: string, status: string, over: Partial<InboxEnded> = {}): InboxEnded {
  return {
    kind: 'ended',
    run_id: run,
    session_id: `s-${run}`,
    session_title: `Ended ${run}`,
    parent_session_id: null,
    call_id: '',
    tool: '',
    arguments: null,
    waiting_ms: 0,
    workspace: '/home/me/project',
    provider: 'default',
    model: 'fake-model',
    status,
    reason: status === 'completed' ? '' : 'the cost budget was used up',
    cost_usd: 0.12,
    duration_ms: 65_000,
    ended_at: '2026-12-07T05:00:00Z',
    origin,
    ...over,
  };
}
