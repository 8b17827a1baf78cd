// The page's types. Everything that crosses the bridge is declared once in Go and generated
// into wire.ts (`make types`; a Go test fails when it is stale): this module re-exports it and
// adds only what the page has of its own: the error helpers.

import type { ChunkKind, ErrorCode, Row } from './wire';

export * from './wire';

/** The rows of one kind: `RowOf<'assistant'>` has an AssistantPayload (Row is a union on kind). */
export type RowOf<K extends ChunkKind> = Extract<Row, { kind: K }>;

/** The error every failed bound method rejects with (Go's error formatter). */
export interface AppError {
  code: ErrorCode;
  message: string;
}

/** The error code of a rejection ("" when it has none). */
export function errorCode(e: unknown): ErrorCode | '' {
  const v = unwrap(e);
  return v && typeof v === 'object' && 'code' in v ? (String((v as AppError).code) as ErrorCode) : '';
}

export function errorMessage(e: unknown): string {
  const v = unwrap(e);
  if (v && typeof v === 'object' && 'message' in v) return String((v as AppError).message);
  return String(v);
}

// The bridge may hand the formatted error over as is, as its JSON text, or
// wrapped in an Error whose message is the {code, message} object.
function unwrap(e: unknown): unknown {
  for (let i = 0; i < 3; i++) {
    if (typeof e === 'string' && e.startsWith('{')) {
      try {
        e = JSON.parse(e);
        continue;
      } catch {
        return e;
      }
    }
    if (e && typeof e === 'object' && 'message' in e) {
      const m = (e as { message: unknown }).message;
      // Wails' calls.js rejects with new Error(formatted): a string formatter
      // result survives as the message, an object one would not.
      if (typeof m !== 'string' || m.startsWith('{')) {
        e = m;
        continue;
      }
    }
    return e;
  }
  return e;
}

