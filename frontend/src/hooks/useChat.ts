import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type WireEvent } from '../api/backend';
import type { Chunk } from '../api/types';
import { errorMessage } from '../api/types';

export type RunState = 'idle' | 'waiting' | 'streaming';

/** What the last run ended with, shown under the conversation. */
export interface RunOutcome {
  status: string;
  error: string;
}

/**
 * The conversation of one session: its stored rows, the reply streaming in,
 * and send/stop. Text deltas are buffered and flushed once per animation
 * frame, so a fast stream costs one render per frame, not one per token.
 */
export function useChat(sessionID: string | null, onChanged?: () => void) {
  const [rows, setRows] = useState<Chunk[]>([]);
  const [streaming, setStreaming] = useState('');
  const [state, setState] = useState<RunState>('idle');
  const [outcome, setOutcome] = useState<RunOutcome | null>(null);
  const [error, setError] = useState('');
  const buffer = useRef('');
  const frame = useRef<number | null>(null);
  const current = useRef(sessionID);
  current.current = sessionID;
  const changed = useRef(onChanged);
  changed.current = onChanged;

  const reload = useCallback(async (id: string) => {
    try {
      const view = await api.openSession(id);
      if (current.current === id) setRows(view.rows);
    } catch (e) {
      if (current.current === id) setError(errorMessage(e));
    }
  }, []);

  // The session the state below belongs to. send() claims a just-created
  // session before React selects it, so selecting it then does not wipe a
  // run that has already started.
  const loadedFor = useRef<string | null>(null);

  useEffect(() => {
    if (loadedFor.current === sessionID) return;
    loadedFor.current = sessionID;
    setRows([]);
    setStreaming('');
    setState('idle');
    setOutcome(null);
    setError('');
    buffer.current = '';
    if (sessionID) void reload(sessionID);
  }, [sessionID, reload]);

  useEffect(() => {
    const flush = () => {
      frame.current = null;
      const text = buffer.current;
      setStreaming(text);
    };
    const off = api.onEvent((ev: WireEvent) => {
      if (ev.session_id !== current.current) return;
      switch (ev.type) {
        case 'run_started':
          buffer.current = '';
          setStreaming('');
          setState('waiting');
          setOutcome(null);
          break;
        case 'text_delta':
          buffer.current += String(ev.text ?? '');
          setState('streaming');
          if (frame.current === null) frame.current = requestAnimationFrame(flush);
          break;
        case 'run_finished': {
          if (frame.current !== null) cancelAnimationFrame(frame.current);
          frame.current = null;
          setState('idle');
          setOutcome({ status: String(ev.status ?? ''), error: String(ev.error ?? '') });
          // The stored rows are the truth; the streamed text was a preview.
          void reload(ev.session_id).then(() => {
            buffer.current = '';
            setStreaming('');
          });
          changed.current?.();
          break;
        }
      }
    });
    return () => {
      off();
      if (frame.current !== null) cancelAnimationFrame(frame.current);
    };
  }, [reload]);

  /** Sends text to the session (id overrides the current one, for a session just created). */
  const send = useCallback(
    async (text: string, id: string | null = sessionID): Promise<boolean> => {
      if (!id) return false;
      current.current = id;
      loadedFor.current = id;
      setError('');
      try {
        setState('waiting');
        await api.sendMessage(id, text);
        await reload(id);
        changed.current?.();
        return true;
      } catch (e) {
        setState('idle');
        setError(errorMessage(e));
        return false;
      }
    },
    [sessionID, reload],
  );

  const stop = useCallback(() => {
    if (sessionID) void api.cancel(sessionID);
  }, [sessionID]);

  return { rows, streaming, state, outcome, error, send, stop };
}
