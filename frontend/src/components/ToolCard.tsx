import { ReviewHunks } from './ReviewHunks';
import { TaskCtx, TaskProgress } from './TaskProgress';
import { memo, useContext, useEffect, useState, type KeyboardEvent } from 'react';
import type { ApprovalPayload, DecisionInput, HookPayload, RuleInput, ToolResultPayload } from '../api/types';
import type { PendingCall, RunningTool } from '../state/session';
import { useNow } from '../hooks/useNow';
import { useFocusFallback } from '../hooks/useModalFocus';
import { useHunkChoices } from '../hooks/useHunkChoices';
import { describeHook, formatDuration, parseArgs, prettyJSON } from '../lib/format';
import { useCheckpoints, useRowChanges } from './CheckpointContext';
import { DiffView } from './LazyDiffView';
import { FileChanges } from './FileChanges';
import { RuleDialog } from './RuleDialog';
import { CopyButton } from './MessageControls';
import { PagedOutput, resultLines } from './PagedOutput';
import { RememberForm } from './RememberForm';
import { isTyping } from '../hooks/useShortcuts';

/** What a card needs from the session to act on a pending call. */
export interface CardActions {
  decide: (callID: string, d: DecisionInput) => Promise<boolean>;
  suggestRule: (callID: string) => Promise<RuleInput | null>;
  /** The file's current content, or null when it does not exist. */
  readFile: (path: string) => Promise<string | null>;
  /** The whole output of the tool result at row seq, which the page got cut (PagedOutput). */
  moreOutput?: (seq: number) => Promise<string | null>;
}

interface Props {
  call: { id: string; name: string; arguments: string };
  result?: { seq: number; payload: ToolResultPayload };
  approval?: { seq: number; payload: ApprovalPayload };
  /** The runs of the hooks of this call (PreToolUse, PostToolUse). */
  hooks?: { seq: number; payload: HookPayload }[];
  pending?: PendingCall;
  output?: string;
  running?: RunningTool;
  actions: CardActions;
}

type Mode = 'none' | 'reason' | 'edit' | 'rule';

const LONG_RESULT = 20;

/**
 * One tool call, inline in the conversation: its arguments (the command for
 * shell calls, a diff for file writes), streamed output while it runs, its
 * result, and — while it waits for a person — the approval controls. y and n
 * approve and deny while the focus is anywhere in the card but a text field.
 */
export const ToolCard = memo(function ToolCard({ call, result, approval, hooks, pending, output, running, actions }: Props) {
  const [busy, setBusy] = useState(false);
  const now = useNow(Boolean(running));
  const server = useCheckpoints().serverOf(call.name);
  // What runs (or ran): the pending call, the person's edit, or the model's call.
  const ran = approval?.payload.arguments || '';
  const raw = pending?.arguments ?? (ran || call.arguments);
  const args = parseArgs(raw);
  // Under review, every approval (Approve, y, Always allow) carries the person's hunk choices:
  // there is one approval path, and it writes what the review shows.
  const review = useHunkChoices(pending?.hunks);
  const reviewing = Boolean(pending?.hunks?.length);

  const decide = async (d: Partial<DecisionInput>) => {
    setBusy(true);
    const hunks = reviewing && d.approved && !d.arguments ? review.choices : undefined;
    const ok = await actions.decide(call.id, { approved: false, reason: '', arguments: '', always: null, hunks, ...d });
    setBusy(false);
    return ok;
  };

  // An answer folds the buttons and forms away: the focus stays on the card.
  const card = useFocusFallback<HTMLElement>();

  const onKeyDown = async (e: KeyboardEvent<HTMLElement>) => {
    // Anywhere in the card (its buttons too), never while typing in one of its fields (a
    // reason, edited arguments) or inside a card nested in this one.
    if (!pending || busy || isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target instanceof Element && e.target.closest('.tool-card') !== e.currentTarget) return;
    if (e.key !== 'y' && e.key !== 'n') return;
    e.preventDefault();
    // Keyboard decisions walk the pending cards: focus moves to the next one.
    const card = e.currentTarget;
    const cards = [...document.querySelectorAll<HTMLElement>('.tool-card.pending')];
    const next = cards[cards.indexOf(card) + 1] ?? cards.find((c) => c !== card);
    // With none left, the card keeps the focus (the button pressed in it goes away).
    if (await decide({ approved: e.key === 'y' })) (next ?? card).focus();
  };

  const denied = approval?.payload.decision === 'denied';
  // A task call whose child runs is running, also on a page that opened after it started.
  const child = useContext(TaskCtx)?.children[call.id];
  const status = statusOf({ pending: Boolean(pending), running: running && now - running.since, task: call.name === 'task', denied, result, childRunning: child?.status === 'running' });

  return (
    <section
      ref={card}
      className={`tool-card${pending ? ' pending' : ''}${result?.payload.is_error ? ' error' : ''}`}
      aria-label={`Tool call ${call.name}`}
      data-call-id={call.id}
      tabIndex={0}
      onKeyDown={(e) => void onKeyDown(e)}
    >
      <header>
        <span className="tool-name">{call.name}</span>
        {server && (
          <span className="tool-server" title={`A tool of the MCP server “${server}”`}>
            MCP server: {server}
          </span>
        )}
        <span className={`tool-status ${status.split(' ')[0].toLowerCase()}`}>{status}</span>
        <CopyButton label="Copy" text={() => (typeof args?.command === 'string' ? args.command : prettyJSON(raw))} />
      </header>
      <Arguments name={call.name} raw={raw} args={args} pending={Boolean(pending)} resultSeq={result?.seq} readFile={actions.readFile} />
      {call.name === 'run_shell_command' && !denied && <SandboxNote pending={pending} result={result?.payload} />}
      {call.name === 'task' && <TaskProgress callId={call.id} args={args as { description?: string; agent?: string } | null} done={Boolean(result)} />}
      {approval && <ApprovalNote approval={approval} />}
      <CallRecord call={call} ran={ran} approval={approval} hooks={hooks} output={output} result={result} more={actions.moreOutput} />
      {pending && (
        <div className="approval" role="group" aria-label="Approval">
          {pending.note && (
            <p className="grant-note" role="note">
              {pending.note}
            </p>
          )}
          {pending.hunks && pending.hunks.length > 0 && <ReviewHunks hunks={pending.hunks} choices={review.choices} onChoose={review.choose} />}
          {call.name === 'remember' && <RememberForm raw={raw} busy={busy} onApprove={(args) => void decide({ approved: true, arguments: args })} />}
          <ApprovalControls
            hunks={pending.hunks?.length ?? 0}
            kept={review.kept}
            raw={raw}
            busy={busy}
            decide={decide}
            suggestRule={() => actions.suggestRule(call.id)}
          />
        </div>
      )}
    </section>
  );
});

interface StatusOf {
  pending: boolean;
  /** How long the call has run, while it runs. */
  running: number | undefined;
  task: boolean;
  denied: boolean;
  result: Props['result'];
  childRunning: boolean;
}

/** The card's status word: "Needs approval", "Running 3 s", "Denied", "Error", "Done", "Waiting". */
function statusOf({ pending, running, task, denied, result, childRunning }: StatusOf): string {
  if (pending) return 'Needs approval';
  if (running !== undefined) return `Running ${task ? 'child session ' : ''}${formatDuration(running)}`;
  if (denied) return 'Denied';
  if (result) return result.payload.is_error ? 'Error' : 'Done';
  return task && childRunning ? 'Running child session' : 'Waiting';
}

/** Who approved or denied the call, the person's reason, and the rule an "Always" answer saved. */
function ApprovalNote({ approval }: { approval: NonNullable<Props['approval']> }) {
  const p = approval.payload;
  return (
    <p className={`approval-note ${p.decision}`} data-seq={approval.seq}>
      {p.decision === 'approved' ? 'Approved' : 'Denied'} by {describeBy(p.by, p.reason)}
      {/* A rule's or mode's reason only restates who decided; a person's is theirs. */}
      {p.reason && p.by === 'person' && <>: “{p.reason}”</>}
      {/* The rule an "Always" answer saved is Go's words for it, never quoted as the person's. */}
      {p.rule && (
        <>
          , and {p.decision === 'approved' ? 'allowed' : 'denied'} from now on: <span className="approval-rule">{p.rule}</span>
        </>
      )}
    </p>
  );
}

/** What happened to the call: its hooks, the review or edit before it ran, its output and result. */
function CallRecord({ call, ran, approval, hooks, output, result, more }: Pick<Props, 'call' | 'approval' | 'hooks' | 'output' | 'result'> & { ran: string; more?: CardActions['moreOutput'] }) {
  const lines = result ? resultLines(result.payload) : 0;
  return (
    <>
      {hooks && hooks.length > 0 && (
        <ul className="hook-runs" aria-label="Hooks of this call">
          {hooks.map((h) => (
            <li key={h.seq} data-seq={h.seq} className={h.payload.failed || h.payload.decision === 'deny' ? 'bad' : undefined} title={h.payload.stderr}>
              {describeHook(h.payload)}
            </li>
          ))}
        </ul>
      )}
      {approval?.payload.reviewed && approval.payload.reviewed.length > 0 ? (
        <p className="review-note">Reviewed before it ran: {describeReview(approval.payload.reviewed)}</p>
      ) : ran && ran !== call.arguments && (
        <details className="edited-note">
          <summary>Arguments edited before it ran; the model asked for:</summary>
          <pre>{prettyJSON(call.arguments)}</pre>
        </details>
      )}
      {output && !result && (
        <pre className="tool-output" role="log" aria-label="Output" aria-live="off">
          {output}
        </pre>
      )}
      {result && (
        <details className="tool-result" open={lines <= LONG_RESULT} data-seq={result.seq}>
          <summary>
            Result{result.payload.is_error ? ' (error)' : ''} · {lines} line{lines === 1 ? '' : 's'}
          </summary>
          <PagedOutput payload={result.payload} seq={result.seq} more={more} />
        </details>
      )}
      {result && <FileChanges seq={result.seq} />}
    </>
  );
}

interface ControlProps {
  /** The hunks under review (0: not a reviewed write) and how many are kept. */
  hunks: number;
  kept: number;
  /** The arguments as they would run, for Edit arguments. */
  raw: string;
  busy: boolean;
  decide: (d: Partial<DecisionInput>) => Promise<boolean>;
  suggestRule: () => Promise<RuleInput | null>;
}

/** Approve, Deny, Deny with reason, Always allow or deny (with the rule shown first), Edit arguments. */
function ApprovalControls({ hunks, kept, raw, busy, decide, suggestRule }: ControlProps) {
  const [mode, setMode] = useState<Mode>('none');
  const [rule, setRule] = useState<RuleInput | null>(null);
  const [ruleEffect, setRuleEffect] = useState<'allow' | 'deny'>('allow');
  // Kept while the form is folded away, so reopening it shows what was typed.
  const [reason, setReason] = useState('');
  const answer = async (d: Partial<DecisionInput>) => {
    if (await decide(d)) setMode('none');
  };
  const openRule = async (effect: 'allow' | 'deny' = 'allow') => {
    const r = await suggestRule();
    if (r) {
      setRule({ ...r, effect });
      setRuleEffect(effect);
      setMode('rule');
    }
  };
  const toggle = (m: Mode) => setMode(mode === m ? 'none' : m);
  return (
    <>
      <div className="row">
        <button type="button" className="primary" disabled={busy} onClick={() => void answer({ approved: true })}>
          {hunks > 0 ? `Approve ${kept} of ${hunks} hunk${hunks === 1 ? '' : 's'}` : 'Approve'}
        </button>
        <button type="button" disabled={busy} onClick={() => void answer({ approved: false })}>
          Deny
        </button>
        <button type="button" disabled={busy} onClick={() => toggle('reason')}>
          Deny with reason
        </button>
        <button type="button" disabled={busy} onClick={() => void openRule('allow')}>
          Always allow
        </button>
        <button type="button" disabled={busy} onClick={() => void openRule('deny')}>
          Always deny
        </button>
        <button type="button" disabled={busy} onClick={() => toggle('edit')}>
          Edit arguments
        </button>
        <span className="hint keys">y / n</span>
      </div>
      {mode === 'reason' && <ReasonForm reason={reason} onReason={setReason} busy={busy} onDeny={() => void answer({ approved: false, reason: reason.trim() })} />}
      {mode === 'edit' && <EditArgsForm raw={raw} busy={busy} onApprove={(args) => void answer({ approved: true, arguments: args })} onCancel={() => setMode('none')} />}
      {mode === 'rule' && rule && (
        <RuleDialog
          key={ruleEffect}
          rule={rule}
          busy={busy}
          effect={ruleEffect}
          onCancel={() => setMode('none')}
          onSave={(r) => void answer({ approved: ruleEffect === 'allow', always: r })}
        />
      )}
    </>
  );
}

/** Deny with reason: the model reads the reason. */
export function ReasonForm({ reason, onReason, busy, onDeny }: { reason: string; onReason: (r: string) => void; busy: boolean; onDeny: () => void }) {
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        onDeny();
      }}
    >
      <input aria-label="Reason" value={reason} autoFocus onChange={(e) => onReason(e.target.value)} placeholder="Why not? The model reads this." />
      <button type="submit" disabled={busy || !reason.trim()}>
        Send denial
      </button>
    </form>
  );
}

/** Edit arguments: the call's JSON, approved as edited once it parses as an object. */
export function EditArgsForm({ raw, busy, onApprove, onCancel }: { raw: string; busy: boolean; onApprove: (args: string) => void; onCancel: () => void }) {
  const [edited, setEdited] = useState(() => prettyJSON(raw));
  const [editError, setEditError] = useState('');
  return (
    <form
      className="edit-args"
      onSubmit={(e) => {
        e.preventDefault();
        if (!parseArgs(edited)) {
          setEditError('The arguments must be a JSON object.');
          return;
        }
        onApprove(JSON.stringify(JSON.parse(edited)));
      }}
    >
      <textarea aria-label="Arguments" value={edited} rows={Math.min(14, edited.split('\n').length + 1)} spellCheck={false} onChange={(e) => setEdited(e.target.value)} />
      <div className="row">
        <button type="submit" className="primary" disabled={busy}>
          Approve edited call
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        {editError && (
          <span role="alert" className="bad">
            {editError}
          </span>
        )}
      </div>
    </form>
  );
}

/** What the person chose for each hunk, readably: "hunk 1 kept, hunk 2 dropped". */
function describeReview(actions: string[]): string {
  const done: Record<string, string> = { keep: 'kept', drop: 'dropped', edit: 'edited' };
  return actions.map((a, i) => `hunk ${i + 1} ${done[a] ?? a}`).join(', ');
}

/** Who decided; a rule's reason is the rule itself in Go's words ("allow write_file *.md in this session"). */
function describeBy(by: string, reason: string): string {
  if (by === 'person') return 'you';
  if (by.startsWith('rule:')) return reason ? `the rule: ${reason}` : 'a saved rule';
  if (by.startsWith('mode:')) return `approval mode “${by.slice(5)}”`;
  if (by === 'hook') return 'a hook';
  if (by.startsWith('skill:')) return `skill ${by.slice(6)} (its allowed-tools)`;
  return by;
}

function Arguments({
  name,
  raw,
  args,
  pending,
  resultSeq,
  readFile,
}: {
  name: string;
  raw: string;
  args: Record<string, unknown> | undefined;
  pending: boolean;
  resultSeq?: number;
  readFile: (path: string) => Promise<string | null>;
}) {
  if (args && name === 'run_shell_command' && typeof args.command === 'string') {
    const { command, ...rest } = args;
    return (
      <>
        <pre className="command" aria-label="Command">
          $ {command}
        </pre>
        {Object.keys(rest).length > 0 && <pre className="args">{JSON.stringify(rest, null, 2)}</pre>}
      </>
    );
  }
  if (args && name === 'edit_file' && typeof args.old_string === 'string' && typeof args.new_string === 'string') {
    return (
      <>
        <p className="path">{String(args.path ?? '')}{args.replace_all ? ' (every occurrence)' : ''}</p>
        <DiffView label={`Change to ${String(args.path ?? '')}`} before={args.old_string} after={args.new_string} />
      </>
    );
  }
  if (args && name === 'write_file' && typeof args.content === 'string') {
    return <WriteDiff path={String(args.path ?? '')} content={args.content} pending={pending} resultSeq={resultSeq} readFile={readFile} />;
  }
  return <pre className="args">{prettyJSON(raw)}</pre>;
}

/**
 * A pending write is diffed against the file as it is now; a done one against the file as it
 * was before the call, from the call's checkpoint record (the file now may have moved on).
 * A done write with no record of that file (it failed, or wrote what was there) shows the
 * content alone.
 */
function WriteDiff({
  path,
  content,
  pending,
  resultSeq,
  readFile,
}: {
  path: string;
  content: string;
  pending: boolean;
  resultSeq?: number;
  readFile: (path: string) => Promise<string | null>;
}) {
  const { fileDiff } = useCheckpoints();
  const recorded = useRowChanges(resultSeq)?.find((c) => c.path === path);
  const [before, setBefore] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    if (pending) readFile(path).then((c) => live && setBefore(c ?? ''));
    else if (resultSeq !== undefined && recorded)
      fileDiff(resultSeq, path).then(
        (d) => live && setBefore(d.before),
        () => live && setBefore(''),
      );
    return () => {
      live = false;
    };
  }, [pending, path, readFile, resultSeq, recorded, fileDiff]);
  const created = pending ? before === '' : recorded?.change === 'created';
  return (
    <>
      <p className="path">{path}{created ? ' (new file)' : ''}</p>
      <DiffView label={`Change to ${path}`} before={before ?? ''} after={content} />
    </>
  );
}

/**
 * Where a shell command runs, as Go said: on the approval card whether it will run in the
 * sandbox (and whether it asks for network); on a finished call whether it ran in it.
 */
function SandboxNote({ pending, result }: { pending?: PendingCall; result?: ToolResultPayload }) {
  if (pending) {
    const text = pending.sandboxed
      ? `Will run in the sandbox: only this folder is writable${pending.network ? '; with network' : ''}.`
      : pending.network
        ? 'Asks for network: it would reach the internet and local services.'
        : 'Not sandboxed: it will run with your full rights.';
    return (
      <p className={`sandbox-note ${pending.sandboxed ? 'sandboxed' : 'unconfined'}`} aria-label="Sandbox">
        {text}
      </p>
    );
  }
  if (!result) return null;
  return (
    <p className={`sandbox-note ${result.sandboxed ? 'sandboxed' : 'unconfined'}`} aria-label="Sandbox">
      {result.sandboxed ? 'Ran in the sandbox' : 'Ran without the sandbox'}
    </p>
  );
}
