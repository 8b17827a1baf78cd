import { memo, useState } from 'react';
import type { InboxApproval, InboxRulePreview } from '../api/types';
import type { AlwaysScope } from '../hooks/useInbox';
import { formatDuration, prettyJSON } from '../lib/format';
import { AlwaysAllow } from './AlwaysAllow';
import { PatchView } from './ChangesPanel';
import { EditArgsForm, ReasonForm } from './ToolCard';

/** Which form of a card is open. */
export type CardMode = 'none' | 'reason' | 'edit' | 'always';

interface Props {
  approval: InboxApproval;
  /** The parent session's title, for a child's call. */
  parentTitle: string;
  selected: boolean;
  /** The current time, for how long it has waited. */
  now: number;
  mode: CardMode;
  onMode: (m: CardMode) => void;
  onSelect: () => void;
  answer: (approve: boolean, reason?: string, args?: string) => Promise<boolean>;
  preview: (scope: AlwaysScope) => Promise<InboxRulePreview | null>;
  alwaysAllow: (scope: AlwaysScope) => Promise<unknown>;
  onOpen: () => void;
}

/**
 * One waiting call in the inbox: where it waits (the session, the child's description and
 * agent, the folder, provider · model, where the run came from), the full command or
 * arguments (the diff for a file edit), how long it has waited, and its answers.
 */
export const InboxCard = memo(function InboxCard({ approval: a, parentTitle, selected, now, mode, onMode, onSelect, answer, preview, alwaysAllow, onOpen }: Props) {
  const [busy, setBusy] = useState(false);
  const waited = Math.max(a.waiting_ms, now - Date.parse(a.requested_at));
  // One answer at a time: a double click sends one.
  const answerOnce = async (approve: boolean, reason?: string, args?: string) => {
    setBusy(true);
    const ok = await answer(approve, reason, args);
    setBusy(false);
    return ok;
  };
  const raw = JSON.stringify(a.arguments ?? {});
  const toggle = (m: CardMode) => onMode(mode === m ? 'none' : m);
  const done = async (p: Promise<boolean>) => (await p) && onMode('none');
  return (
    <article
      className={`inbox-card${selected ? ' selected' : ''}`}
      data-key={`${a.session_id}:${a.call_id}`}
      tabIndex={0}
      aria-label={`${a.tool} waiting in ${a.session_title || 'Untitled'}`}
      aria-current={selected ? 'true' : undefined}
      onFocus={onSelect}
    >
      <header>
        <span className="session-title">{a.session_title || 'Untitled'}</span>
        {a.parent_session_id && (
          <span className="child-of" aria-label="Child">
            {childLabel(a, parentTitle)}
          </span>
        )}
        <span className="waited" aria-label="Waiting for">
          waiting {formatDuration(waited)}
        </span>
      </header>
      <p className="where">
        <span className="folder" title={a.workspace}>
          {a.workspace || 'no folder'}
        </span>
        <span>
          {a.provider} · {a.model}
        </span>
        {a.origin && a.origin.kind !== 'window' && <span className="origin">{originText(a.origin)}</span>}
      </p>
      <CallBody approval={a} />
      {a.review && (
        <p className="review-note" role="note">
          Review hunk by hunk in the session (Open session). Approve here keeps every hunk.
        </p>
      )}
      {a.note && (
        <p className="grant-note" role="note">
          {a.note}
        </p>
      )}
      <div className="row" role="group" aria-label="Answer">
        <button type="button" className="primary" disabled={busy} onClick={() => void answerOnce(true)}>
          {a.review ? 'Approve all hunks' : 'Approve'}
        </button>
        <button type="button" disabled={busy} onClick={() => void answerOnce(false)}>
          Deny
        </button>
        <button type="button" onClick={() => toggle('reason')}>
          Deny with reason
        </button>
        <button type="button" onClick={() => toggle('edit')}>
          Edit arguments
        </button>
        <button type="button" onClick={() => toggle('always')}>
          Always allow
        </button>
        <button type="button" onClick={onOpen}>
          Open session
        </button>
      </div>
      {mode === 'reason' && <ReasonFor answer={answerOnce} busy={busy} onDone={() => onMode('none')} />}
      {mode === 'edit' && <EditArgsForm raw={raw} busy={busy} onApprove={(args) => void done(answerOnce(true, '', args))} onCancel={() => onMode('none')} />}
      {mode === 'always' && <AlwaysAllow preview={preview} onConfirm={alwaysAllow} onCancel={() => onMode('none')} />}
    </article>
  );
});

/** Deny with reason, its text kept by the form while it is open. */
function ReasonFor({ answer, busy, onDone }: { answer: Props['answer']; busy: boolean; onDone: () => void }) {
  const [reason, setReason] = useState('');
  return <ReasonForm reason={reason} onReason={setReason} busy={busy} onDeny={async () => (await answer(false, reason.trim())) && onDone()} />;
}

/** The call as it would run: the command of a shell call, the diff of a file edit, else its arguments. */
function CallBody({ approval: a }: { approval: InboxApproval }) {
  const args = (a.arguments ?? {}) as Record<string, unknown>;
  const { command, ...rest } = args;
  if (a.tool === 'run_shell_command' && typeof command === 'string') {
    return (
      <>
        <p className="tool-name">{a.tool}</p>
        <pre className="command" aria-label="Command">
          $ {command}
        </pre>
        {Object.keys(rest).length > 0 && <pre className="args">{JSON.stringify(rest, null, 2)}</pre>}
      </>
    );
  }
  return (
    <>
      <p className="tool-name">
        {a.tool}
        {typeof args.path === 'string' && <span className="path"> {args.path}</span>}
      </p>
      {a.diff ? <PatchView patch={withoutFileHeader(a.diff)} /> : <pre className="args">{prettyJSON(JSON.stringify(args))}</pre>}
    </>
  );
}

/** Where a run came from, in words ("" when not known: a run recorded before it was kept). */
export function originText(o: InboxApproval['origin'] | null | undefined): string {
  switch (o?.kind) {
    case 'window':
      return 'the window';
    case 'run':
      return `loopdesk run (pid ${o.pid})`;
    case 'acp':
      return `editor: ${o.client || 'unnamed'}`;
  }
  return '';
}

/** Who asks, for a child's call: "child of Refactor: write the tests · agent tester". */
export function childLabel(a: Pick<InboxApproval, 'child_description' | 'child_agent' | 'session_title'>, parentTitle: string): string {
  const of = parentTitle ? `child of ${parentTitle}` : 'child';
  const what = a.child_description && a.child_description !== a.session_title ? `: ${a.child_description}` : '';
  return `${of}${what}${a.child_agent ? ` · agent ${a.child_agent}` : ''}`;
}

/** The diff's hunks: the file's name is on the card already, over them. */
function withoutFileHeader(diff: string): string {
  return diff.replace(/^--- .*\n\+\+\+ .*\n/, '');
}
