import { useEffect, useRef, useState } from 'react';
import type { InboxApproval } from '../api/types';
import { approvalWhat, nextSentences, type ApprovalNotice } from '../lib/announce';
import type { Store } from '../lib/store';
import { visible, type Segment } from '../state/stream';

/**
 * Tells say each sentence of the reply streaming in once it is complete (never a token at a
 * time), and the rest of it when the streamed text ends or is replaced by its stored row.
 */
export function useStreamSentences(stream: Store<Segment[]>, run: string, from: number, say: (text: string) => void) {
  const latest = useRef(say);
  latest.current = say;
  useEffect(() => {
    let text = '';
    let said = 0;
    const flush = () => {
      const rest = nextSentences(text, said, true).say;
      if (rest) latest.current(rest);
    };
    const onChange = () => {
      const now = visible(stream.get(), run, from).text;
      if (!now.startsWith(text.slice(0, said))) {
        flush();
        said = 0;
      }
      text = now;
      const next = nextSentences(text, said, false);
      said = next.to;
      if (next.say) latest.current(next.say);
    };
    onChange();
    const unsubscribe = stream.subscribe(onChange);
    return () => {
      unsubscribe();
      flush();
    };
  }, [stream, run, from]);
}

/** Tells say of each call that starts waiting for the person, once, with its session, tool and command. */
export function useApprovalNotices(approvals: InboxApproval[], say: (n: ApprovalNotice) => void) {
  const seen = useRef(new Set<string>());
  const latest = useRef(say);
  latest.current = say;
  useEffect(() => {
    for (const a of approvals) {
      const key = `${a.session_id}/${a.run_id}/${a.call_id}`;
      if (seen.current.has(key)) continue;
      seen.current.add(key);
      latest.current({ session: a.session_title, tool: a.tool, what: approvalWhat(a.arguments) });
    }
  }, [approvals]);
}

/**
 * The page's two live regions: polite for the reply's sentences, assertive for a call that
 * needs the person. Each announcement replaces the last (a live region reads what changed).
 */
export function useAnnouncer(stream: Store<Segment[]>, run: string, from: number, approvals: InboxApproval[]) {
  const [polite, setPolite] = useState('');
  const [urgent, setUrgent] = useState<ApprovalNotice | null>(null);
  useStreamSentences(stream, run, from, setPolite);
  useApprovalNotices(approvals, setUrgent);
  return { polite, urgent };
}
