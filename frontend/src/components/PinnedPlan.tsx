import { useState } from 'react';
import type { PinnedPlan as Pinned, Plan, PlanStep, StepStatus } from '../api/types';
import { CancelButton } from './CancelButton';

/** A plan being edited: its steps are always a list (Go may send none as null). */
type Draft = Plan & { plan: PlanStep[] };

const MARK: Record<StepStatus, string> = { pending: '○', in_progress: '◐', completed: '●' };
const LABEL: Record<StepStatus, string> = { pending: 'pending', in_progress: 'in progress', completed: 'completed' };

interface Props {
  plan: Pinned | null;
  /** A run is going: the plan cannot be edited until it stops. */
  running: boolean;
  error: string;
  onSave: (p: Plan) => Promise<boolean>;
}

/** The session's latest plan, pinned above the message box; the person can edit its steps. */
export function PinnedPlan({ plan, running, error, onSave }: Props) {
  const [draft, setDraft] = useState<Draft | null>(null);
  if (!plan && !draft) return null;
  if (draft) return <PlanEditor draft={draft} error={error} onChange={setDraft} onCancel={() => setDraft(null)} onSave={async () => {
    if (await onSave(draft)) setDraft(null);
  }} />;
  const p = plan as Pinned;
  const steps = p.plan ?? [];
  const done = steps.filter((s) => s.status === 'completed').length;
  return (
    <section className="pinned-plan" aria-label="Plan">
      <header className="pinned-plan-head">
        <strong>Plan</strong>
        <span className="muted">
          {done}/{steps.length} done{p.by === 'person' ? ' · edited by you' : ''}
        </span>
        <button
          type="button"
          className="small"
          disabled={running}
          title={running ? 'Stop the run to edit the plan' : undefined}
          onClick={() => setDraft({ explanation: p.explanation, plan: steps.map((s) => ({ ...s })) })}
        >
          Edit plan
        </button>
      </header>
      {p.explanation && <p className="muted pinned-plan-why">{p.explanation}</p>}
      <ol className="pinned-plan-steps">
        {steps.map((s, i) => (
          <li key={i} className={`step-${s.status}`} aria-label={`${s.step} (${LABEL[s.status]})`}>
            <span aria-hidden="true">{MARK[s.status]}</span> {s.step}
          </li>
        ))}
      </ol>
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}

interface EditorProps {
  draft: Draft;
  error: string;
  onChange: (p: Draft) => void;
  onCancel: () => void;
  onSave: () => void;
}

function PlanEditor({ draft, error, onChange, onCancel, onSave }: EditorProps) {
  const setStep = (i: number, patch: Partial<PlanStep>) =>
    onChange({ ...draft, plan: draft.plan.map((s, j) => (j === i ? { ...s, ...patch } : s)) });
  return (
    <section className="pinned-plan editing" aria-label="Edit plan">
      <ol className="pinned-plan-steps">
        {draft.plan.map((s, i) => (
          <li key={i}>
            <input aria-label={`Step ${i + 1}`} value={s.step} onChange={(e) => setStep(i, { step: e.target.value })} />
            <select aria-label={`Status of step ${i + 1}`} value={s.status} onChange={(e) => setStep(i, { status: e.target.value as StepStatus })}>
              <option value="pending">pending</option>
              <option value="in_progress">in progress</option>
              <option value="completed">completed</option>
            </select>
            <button type="button" className="small" aria-label={`Remove step ${i + 1}`}
              onClick={() => onChange({ ...draft, plan: draft.plan.filter((_, j) => j !== i) })}>
              ×
            </button>
          </li>
        ))}
      </ol>
      <div className="pinned-plan-actions">
        <button type="button" className="small" onClick={() => onChange({ ...draft, plan: [...draft.plan, { step: '', status: 'pending' }] })}>
          Add step
        </button>
        <CancelButton onCancel={onCancel} small />
        <button type="button" className="small primary" onClick={onSave}>
          Save plan
        </button>
      </div>
      <p className="muted">The model reads your edit as a note at its next request.</p>
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}
