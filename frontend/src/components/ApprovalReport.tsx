import './reports.css';
import type { Report, Suggestion } from '../api/types';
import { suggestionKey } from '../hooks/useReports';

interface Props {
  report: Report;
  /** The suggestions accepted here (by suggestionKey). */
  accepted: ReadonlySet<string>;
  onAccept: (s: Suggestion) => void;
  /** A session's title for a past call's reference; the id when unknown. */
  titleOf?: (sessionID: string) => string;
}

const seconds = (ms: number) => (ms > 0 ? `${(ms / 1000).toFixed(1)} s` : '–');

const SCOPE: Record<string, string> = { session: 'in this session', workspace: 'in this folder', everywhere: 'everywhere' };

/** A suggested rule in words, as Settings → Rules says rules. */
export function ruleWords(s: Suggestion): string {
  const what = s.rule.pattern === '' ? `every ${s.rule.tool} call` : `${s.rule.tool} ${s.rule.pattern}`;
  return `allow ${what} ${SCOPE[s.rule.scope] ?? s.rule.scope}`;
}

/**
 * The approval report as Go computed it (docs/approvals.md): how many calls the person
 * answered and how fast, what decided the others, and the suggested rules, each with the
 * prompts it would have removed, every past call it would have allowed, and Accept.
 */
export function ApprovalReport({ report, accepted, onAccept, titleOf = (id) => id }: Props) {
  const byRule = Object.entries(report.allowed_by_rule ?? {});
  const ruled = byRule.reduce((n, [, k]) => n + k, 0);
  const d = report.denied;
  return (
    <section className="approval-report" aria-label="Approval report">
      <p role="note" aria-label="Prompts answered">
        You answered {report.asked} {report.asked === 1 ? 'prompt' : 'prompts'} (median {seconds(report.answer_ms.p50)}, p90 {seconds(report.answer_ms.p90)}).
      </p>
      <dl className="report-counts">
        <dt>Allowed by rules</dt>
        <dd title={byRule.map(([id, n]) => `${id}: ${n}`).join(', ')}>{ruled}</dd>
        <dt>Allowed by the mode</dt>
        <dd>{report.allowed_by_mode}</dd>
        <dt>Allowed by hooks</dt>
        <dd>{report.allowed_by_hook}</dd>
        <dt>Allowed by skills</dt>
        <dd>{report.allowed_by_skill}</dd>
        <dt>Ran in the sandbox</dt>
        <dd>{report.sandboxed}</dd>
        <dt>Denied</dt>
        <dd>
          {d.person} by you, {d.rule} by rules, {d.mode} by the mode, {d.hook} by hooks
        </dd>
      </dl>
      <h4>Suggested rules</h4>
      {(report.suggestions ?? []).length === 0 ? (
        <p className="muted">No rule would have spared you two prompts or more without allowing something you refused.</p>
      ) : (
        <ul className="suggestions" aria-label="Suggested rules">
          {(report.suggestions ?? []).map((s) => (
            <SuggestionItem key={suggestionKey(s)} s={s} done={accepted.has(suggestionKey(s))} onAccept={onAccept} titleOf={titleOf} />
          ))}
        </ul>
      )}
    </section>
  );
}

function SuggestionItem({ s, done, onAccept, titleOf }: { s: Suggestion; done: boolean; onAccept: (s: Suggestion) => void; titleOf: (id: string) => string }) {
  const words = ruleWords(s);
  const calls = s.would_allow ?? [];
  return (
    <li aria-label={words}>
      <code>{words}</code> — {s.prompts_removed} prompts fewer
      <details>
        <summary>It would have allowed {calls.length} past {calls.length === 1 ? 'call' : 'calls'}</summary>
        <ul>
          {calls.map((c) => (
            <li key={`${c.session_id}#${c.seq}`}>
              {titleOf(c.session_id)} #{c.seq}
            </li>
          ))}
        </ul>
      </details>
      <button type="button" disabled={done} aria-label={`Accept: ${words}`} onClick={() => onAccept(s)}>
        {done ? 'Saved' : 'Accept'}
      </button>
    </li>
  );
}
