import { useState } from 'react';
import type { ApprovalMode, InstructionFile, MemoryFigure, Run, SessionMode, Totals } from '../api/types';
import { formatTokens } from '../lib/format';
import { MemoryCount } from './MemorySettings';

interface Props {
  mode: SessionMode;
  totals: Totals | null;
  /** The session's runs, oldest first: the last one's mode is shown. */
  runs: Run[];
  running: boolean;
  defaultApprove: ApprovalMode;
  onSetMode: (mode: string, approve: string) => void;
  onExecutePlan: (approve: string) => void;
  loadInstructions: () => Promise<InstructionFile[] | null>;
  /** The memories the next run carries beside AGENTS.md (Go's count and estimate). */
  memories?: MemoryFigure | null;
}

const APPROVALS: { value: ApprovalMode; label: string }[] = [
  { value: 'ask', label: 'Ask for every call' },
  { value: 'read-only', label: 'Read-only runs, ask for the rest' },
  { value: 'sandboxed', label: 'File tools and sandboxed commands run, ask for the rest' },
  { value: 'review', label: 'Review each hunk before a file is written' },
  { value: 'auto', label: 'Run everything' },
];

/**
 * The session's steering line under the header: its mode (plan or execute), its own approval
 * mode (kept with the session in Go; "" follows the saved default), "Execute plan", what all
 * its runs used, and the AGENTS.md files its runs carry (each can be opened).
 */
export function SteerBar({ mode, totals, runs, running, defaultApprove, onSetMode, onExecutePlan, loadInstructions, memories }: Props) {
  const defaultLabel = APPROVALS.find((a) => a.value === defaultApprove)?.label ?? defaultApprove;
  const [files, setFiles] = useState<InstructionFile[] | null>(null);
  const [openPath, setOpenPath] = useState('');
  const last = runs.at(-1);
  const planning = mode.mode === 'plan';
  return (
    <>
      <div className="steer-bar" aria-label="Session mode and totals" role="group">
        <span className={`mode-badge ${mode.mode}`} aria-label={`Mode: ${planning ? 'plan' : 'execute'}`}>
          {planning ? 'Plan mode' : 'Execute'}
        </span>
        <label>
          Mode
          <select aria-label="Session mode" value={mode.mode} disabled={running} onChange={(e) => onSetMode(e.target.value, mode.approve)}>
            <option value="execute">Execute</option>
            <option value="plan">Plan (read-only tools, ends with a plan)</option>
          </select>
        </label>
        <label title="This session's approval mode: its next run uses it; the default is set in Settings">
          {planning ? 'then' : 'Approval'}
          <select
            aria-label={planning ? 'Approval mode for the plan' : 'Approval mode'}
            value={mode.approve}
            onChange={(e) => onSetMode(mode.mode, e.target.value)}
          >
            <option value="">Default: {defaultLabel}</option>
            {APPROVALS.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
        {planning && (
          <button type="button" className="primary small" disabled={running || !last} onClick={() => onExecutePlan(mode.approve || defaultApprove)}>
            Execute plan
          </button>
        )}
        {last?.mode && (
          <span className="muted" title="The mode the last run ran in">
            last run: {last.mode}
          </span>
        )}
        {totals && (
          <span className="totals" aria-label="Session totals">
            {plural(totals.runs, 'run')} · {plural(totals.turns, 'turn')} · {plural(totals.tool_calls, 'tool call')} · {formatTokens(totals.input_tokens)} in /{' '}
            {formatTokens(totals.output_tokens)} out · ${totals.cost.toFixed(4)}
            {totals.children && totals.children.length > 0 && (
              <details className="children-totals">
                <summary>incl. {plural(totals.children.length, 'child session')}</summary>
                <ul aria-label="Spend per child session">
                  {totals.children.map((c) => (
                    <li key={c.session_id}>
                      {c.session_id.slice(0, 8)}:{' '}
                      {c.input_tokens === 0 && c.output_tokens === 0
                        ? 'usage unreported'
                        : `${formatTokens(c.input_tokens)} in / ${formatTokens(c.output_tokens)} out · $${c.cost.toFixed(4)}`}
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </span>
        )}
        <button
          type="button"
          className="small linklike"
          onClick={async () => {
            if (files) return setFiles(null);
            setFiles((await loadInstructions()) ?? []);
          }}
        >
          {files ? 'Hide AGENTS.md' : 'AGENTS.md'}
        </button>
        <MemoryCount figure={memories} />
      </div>
      {files && (
        <section className="instructions-panel" aria-label="Instruction files">
          {files.length === 0 && <p className="muted">No AGENTS.md in this folder or in your config folder.</p>}
          {files.map((f) => (
            <div key={f.path}>
              <strong>{f.scope === 'personal' ? 'Personal' : 'Folder'}</strong> <code>{f.path}</code> ({f.bytes} bytes){' '}
              <button type="button" className="small" aria-label={`Open ${f.path}`} onClick={() => setOpenPath(openPath === f.path ? '' : f.path)}>
                {openPath === f.path ? 'Close' : 'Open'}
              </button>
              {f.warning && (
                <p role="alert" className="bad">
                  Cut: {f.warning}
                </p>
              )}
              {openPath === f.path && <pre>{f.preview}</pre>}
            </div>
          ))}
        </section>
      )}
    </>
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
