import './inbox.css';
import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { InboxApproval, InboxEnded } from '../api/types';
import type { InboxState } from '../hooks/useInbox';
import { useNow } from '../hooks/useNow';
import { isTyping } from '../hooks/useShortcuts';
import { formatCost, formatDuration, STOP_TEXT } from '../lib/format';
import { cardKey } from '../state/inbox';
import { InboxCard, originText, type CardMode } from './InboxCard';

interface Props {
  inbox: InboxState;
  /** A session's title ("" when not listed): a child's card names its parent. */
  titleOf?: (sessionID: string) => string;
  onOpenSession: (id: string) => void;
  onClose: () => void;
}

/** Puts the keyboard focus on a card (after it is rendered). */
function focusCard(key: string | null) {
  if (!key) return;
  requestAnimationFrame(() => {
    const el = document.querySelector<HTMLElement>(`.inbox-card[data-key="${CSS.escape(key)}"]`);
    el?.scrollIntoView?.({ block: 'nearest' });
    el?.focus({ preventScroll: true });
  });
}

/**
 * "Needs you": every waiting call, oldest first, and the runs that ended since the person
 * last looked. Keys while the focus is in it (never while typing): j / k move, y approve,
 * n deny, Enter open the session, e edit the arguments. A card that arrives never takes the
 * focus; opening the inbox puts it on the selected card.
 */
export function Inbox({ inbox, titleOf = () => '', onOpenSession, onClose }: Props) {
  const { approvals, ended, selected, error } = inbox;
  const now = useNow(approvals.length > 0);
  const [open, setOpen] = useState<{ key: string; mode: CardMode } | null>(null);
  const follow = useRef(false); // the keyboard answered: the focus follows the selection

  useEffect(() => focusCard(inbox.selected), []); // eslint-disable-line react-hooks/exhaustive-deps -- on opening only
  useEffect(() => {
    if (follow.current) focusCard(selected);
    follow.current = false;
  }, [selected]);

  const openSession = useCallback((a: InboxApproval) => onOpenSession(a.session_id), [onOpenSession]);
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (isTyping(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target instanceof Element && e.target.closest('[role="dialog"]')) return;
    const current = approvals.find((a) => cardKey(a) === selected);
    const act: Record<string, () => void> = {
      j: () => inbox.move(1),
      k: () => inbox.move(-1),
      y: () => current && void inbox.answer(current, true),
      n: () => current && void inbox.answer(current, false),
      e: () => current && setOpen({ key: cardKey(current), mode: 'edit' }),
      Enter: () => current && openSession(current),
    };
    // Enter on a button presses the button.
    if (!act[e.key] || (e.key === 'Enter' && e.target instanceof HTMLButtonElement)) return;
    e.preventDefault();
    follow.current = e.key !== 'e' && e.key !== 'Enter';
    act[e.key]();
  };

  return (
    <main className="main inbox" aria-label="Inbox" onKeyDown={onKeyDown}>
      <header className="inbox-head">
        <h1>Needs you</h1>
        <span className="muted">{approvals.length === 0 ? 'nothing waits' : `${approvals.length} waiting`}</span>
        <span className="hint keys">j / k move · y approve · n deny · e edit · Enter open</span>
        <button type="button" onClick={onClose} aria-label="Close the inbox">
          Close
        </button>
      </header>
      {error && (
        <div className="banner" role="alert">
          {error}
        </div>
      )}
      <section className="inbox-calls" aria-label="Waiting calls">
        {approvals.length === 0 && <p className="empty">No call waits for you.</p>}
        {approvals.map((a) => {
          const key = cardKey(a);
          return (
            <InboxCard
              key={key}
              approval={a}
              parentTitle={a.parent_session_id ? titleOf(a.parent_session_id) : ''}
              selected={key === selected}
              now={now}
              mode={open?.key === key ? open.mode : 'none'}
              onMode={(mode) => setOpen(mode === 'none' ? null : { key, mode })}
              onSelect={() => inbox.select(key)}
              answer={(approve, reason, args) => inbox.answer(a, approve, reason, args)}
              preview={(scope) => inbox.preview(a, scope)}
              alwaysAllow={(scope) => inbox.alwaysAllow(a, scope)}
              onOpen={() => openSession(a)}
            />
          );
        })}
      </section>
      <EndedRuns ended={ended} onDismiss={(id) => void inbox.dismiss(id)} onOpen={onOpenSession} />
    </main>
  );
}

/** Runs that ended since the person last looked, each dismissable. */
function EndedRuns({ ended, onDismiss, onOpen }: { ended: InboxEnded[]; onDismiss: (runID: string) => void; onOpen: (sessionID: string) => void }) {
  if (ended.length === 0) return null;
  return (
    <section className="inbox-ended" aria-label="Ended runs">
      <h2>Ended since you last looked</h2>
      <ul>
        {ended.map((r) => (
          <li key={r.run_id} className={`ended ${r.status === 'completed' ? 'ended-ok' : 'ended-bad'}`}>
            <button type="button" className="link" onClick={() => onOpen(r.session_id)}>
              {r.session_title || 'Untitled'}
            </button>
            <span className="status">{STOP_TEXT[r.status] ?? r.status}</span>
            {r.reason && <span className="reason">{r.reason}</span>}
            {originText(r.origin) && <span className="origin">from {originText(r.origin)}</span>}
            <span className="spend">
              {formatCost(r.cost_usd)} · {formatDuration(r.duration_ms)}
            </span>
            <button type="button" className="small" aria-label={`Dismiss ${r.session_title || 'Untitled'}`} onClick={() => onDismiss(r.run_id)}>
              Dismiss
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
