import type { ComponentProps } from 'react';
import './reports.css';
import { useApprovalReport, useRunCosts } from '../hooks/useReports';
import { ApprovalReport } from './ApprovalReport';
import { BudgetMeters } from './BudgetMeters';
import { HarnessMeter, ProviderLimits } from './RunCosts';

type Props = ComponentProps<typeof BudgetMeters> & { sessionID: string | null };

/**
 * The Budget tab: the run's meters, then, for an open session, the provider's latest rate
 * limits beside them, what Loopdesk itself adds to each request, and the session's approval
 * report.
 */
export function BudgetTab({ sessionID, ...meters }: Props) {
  return (
    // Focusable: it scrolls, and a keyboard alone must be able to scroll it.
    <div className="budget-tab" tabIndex={0}>
      <BudgetMeters {...meters} />
      {sessionID && <SessionCosts key={sessionID} sessionID={sessionID} />}
    </div>
  );
}

function SessionCosts({ sessionID }: { sessionID: string }) {
  const costs = useRunCosts(sessionID);
  const approvals = useApprovalReport(sessionID, '');
  return (
    <>
      <ProviderLimits limits={costs.limits} />
      <HarnessMeter harness={costs.harness} />
      {approvals.error && (
        <p className="error" role="alert">
          {approvals.error}
        </p>
      )}
      {approvals.report && <ApprovalReport report={approvals.report} accepted={approvals.accepted} onAccept={(s) => void approvals.accept(s)} />}
    </>
  );
}
