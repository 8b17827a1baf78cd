import type { InboxApproval } from '../api/types';
import { useAnnouncer } from '../hooks/useAnnouncer';
import type { Store } from '../lib/store';
import type { Segment } from '../state/stream';

interface Props {
  stream: Store<Segment[]>;
  run: string;
  from: number;
  /** The calls waiting for the person in every session (the inbox's). */
  approvals: InboxApproval[];
}

/**
 * What a screen reader is told without moving the focus: the reply streaming in, politely,
 * a sentence at a time; a new call waiting for approval, assertively, with its session, tool
 * and command. A new approval never takes the focus from where the person types.
 */
export function Announcer({ stream, run, from, approvals }: Props) {
  const { polite, urgent } = useAnnouncer(stream, run, from, approvals);
  return (
    <div className="sr-only">
      <div aria-live="polite" aria-atomic="true" data-testid="announce-polite">
        {polite}
      </div>
      <div aria-live="assertive" aria-atomic="true" data-testid="announce-assertive">
        {urgent && (
          <>
            Approval needed in {urgent.session || 'a session'}: {urgent.tool} — {urgent.what}
          </>
        )}
      </div>
    </div>
  );
}
