// Loop events. Their names, payloads and the LoopEvent union are declared once in Go
// (backend/loop/events.go) and generated into wire.ts; this module adds the narrowing helper.
//
// Every event arrives flat: "type", "session_id", "run_id", "seq" plus its payload's fields.
// seq grows by one per must-deliver event of a session; deltas (LOSSY_EVENTS) carry the seq of
// the last must-deliver event and may arrive merged. Stored rows arrive on rows_stored, before
// the event that tells what they mean; a gap in seq means something was missed: read the rows
// after the last one held (Sessions.RowsAfter), never the whole session.

import { EVENT_TYPES, type LoopEvent } from './wire';

/** Narrows a flat wire object to a LoopEvent when its type is one of ours. */
export function isLoopEvent(ev: { type: string }): ev is LoopEvent {
  return (EVENT_TYPES as readonly string[]).includes(ev.type);
}
