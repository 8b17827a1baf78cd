import { useEffect, useRef } from 'react';
import type { AssistantPayload, Chunk, ToolResultPayload, UserPayload } from '../api/types';
import type { RunOutcome, RunState } from '../hooks/useChat';
import { Markdown } from './Markdown';

interface Props {
  rows: Chunk[];
  streaming: string;
  state: RunState;
  outcome: RunOutcome | null;
  error: string;
}

const STOP_TEXT: Record<string, string> = {
  cancelled: 'Stopped.',
  truncated: 'The reply was cut off: the model hit its output limit.',
  refused: 'The provider refused to answer (content filter).',
  provider_error: 'The model endpoint failed.',
};

/** The conversation: stored rows, the reply streaming in, and how the run ended. */
export function Conversation({ rows, streaming, state, outcome, error }: Props) {
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'end' });
  }, [rows.length, streaming]);

  return (
    <section className="conversation" aria-label="Conversation">
      {rows.length === 0 && state === 'idle' && (
        <p className="hint">Ask the agent something to start this session.</p>
      )}
      {rows.map((r) => (
        <Row key={r.seq} row={r} />
      ))}
      {state !== 'idle' && (
        <article className="msg assistant streaming" aria-label="Assistant reply (streaming)" aria-busy="true">
          {streaming ? <Markdown text={streaming} /> : <p className="status">Waiting for the model…</p>}
        </article>
      )}
      {outcome && outcome.status !== 'completed' && (
        <div className="run-outcome" role="alert">
          <strong>{STOP_TEXT[outcome.status] ?? `Run ended: ${outcome.status}`}</strong>
          {outcome.error && <span className="detail"> {outcome.error}</span>}
        </div>
      )}
      {error && (
        <div className="run-outcome" role="alert">
          {error}
        </div>
      )}
      <div ref={end} />
    </section>
  );
}

function Row({ row }: { row: Chunk }) {
  switch (row.kind) {
    case 'user': {
      const p = row.payload as UserPayload;
      return (
        <article className="msg user" aria-label="You">
          <p className="plain">{p.text}</p>
        </article>
      );
    }
    case 'assistant': {
      const p = row.payload as AssistantPayload;
      return (
        <article className="msg assistant" aria-label="Assistant">
          {p.reasoning && (
            <details className="reasoning">
              <summary>Reasoning</summary>
              <p className="plain">{p.reasoning}</p>
            </details>
          )}
          {p.text && <Markdown text={p.text} />}
          {(p.tool_calls ?? []).map((c) => (
            <div className="tool-call" key={c.id}>
              <span className="tool-name">{c.name}</span>
              <code>{c.arguments}</code>
            </div>
          ))}
        </article>
      );
    }
    case 'tool_result': {
      const p = row.payload as ToolResultPayload;
      return (
        <details className={p.is_error ? 'tool-result error' : 'tool-result'}>
          <summary>
            {p.name} result{p.is_error ? ' (error)' : ''}
          </summary>
          <pre>{p.content}</pre>
        </details>
      );
    }
    default:
      return null;
  }
}
