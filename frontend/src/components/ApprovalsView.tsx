import { useState } from 'react';
import { useModalFocus } from '../hooks/useModalFocus';
import { useApprovalReport } from '../hooks/useReports';
import { ApprovalReport } from './ApprovalReport';

const SINCE: [string, string][] = [
  ['1d', 'Last day'],
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
  ['', 'All time'],
];

/**
 * The approval report of every session (docs/approvals.md), over a period the person picks,
 * in a dialog over the window; Escape or Close ends it.
 */
export function ApprovalsView({ titleOf, onClose }: { titleOf: (id: string) => string; onClose: () => void }) {
  const [since, setSince] = useState('7d');
  const { report, error, accepted, accept } = useApprovalReport('', since);
  const dialog = useModalFocus<HTMLDivElement>();
  return (
    <div className="modal-backdrop">
      <div
        ref={dialog}
        className="modal approvals-view"
        role="dialog"
        aria-modal="true"
        aria-label="Approvals in every session"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          }
        }}
      >
        <h2>Approvals in every session</h2>
        <label>
          Period{' '}
          <select aria-label="Period" value={since} onChange={(e) => setSince(e.target.value)}>
            {SINCE.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {report ? <ApprovalReport report={report} accepted={accepted} onAccept={(s) => void accept(s)} titleOf={titleOf} /> : <p className="muted">Loading…</p>}
        <button type="button" autoFocus onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
