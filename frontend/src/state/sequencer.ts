// Hands must-deliver loop events over in seq order. Go publishes a session's must-deliver
// events with seq growing by one, and the production window delivers them in that order; the
// dev-server build does not (Wails broadcasts each event to the websocket in its own
// goroutine), and an event can be missed (a page reloaded mid-run). Pure: offer() returns the
// events now in order, release() gives up on a hole and returns what was held behind it.
//
// Where the sequence starts is known only from an event that opens it: seq 1 (Go numbers each
// session's events from 1 in a process) or a run_started. Anything else seen first is held
// like an event after a hole, so that an earlier one arriving just after it still comes first.

/** What the sequencer needs of an event. */
export interface Sequenced {
  seq: number;
}

export interface Sequencer<E extends Sequenced> {
  /** The seq expected next; null until the first event sets it. */
  next: number | null;
  /** Events that arrived ahead of a hole, sorted by seq. */
  held: E[];
}

export function newSequencer<E extends Sequenced>(): Sequencer<E> {
  return { next: null, held: [] };
}

/**
 * Takes one event; returns the new state and the events that are now in order. starts says
 * the event opens a sequence (a run_started).
 */
export function offer<E extends Sequenced>(q: Sequencer<E>, ev: E, starts = false): [Sequencer<E>, E[]] {
  const known = q.next !== null;
  if (ev.seq === q.next || (!known && (starts || ev.seq === 1))) return drain({ next: ev.seq + 1, held: q.held }, [ev]);
  // Already delivered (a duplicate, or from before a hole we gave up on).
  if ((known && ev.seq < q.next!) || q.held.some((h) => h.seq === ev.seq)) return [q, []];
  const held = [...q.held, ev].sort((a, b) => a.seq - b.seq);
  return [{ next: q.next, held }, []];
}

/** Gives up waiting for the hole: everything held is delivered in order. */
export function release<E extends Sequenced>(q: Sequencer<E>): [Sequencer<E>, E[]] {
  if (q.held.length === 0) return [q, []];
  const out = q.held;
  return [{ next: out[out.length - 1].seq + 1, held: [] }, out];
}

function drain<E extends Sequenced>(q: Sequencer<E>, out: E[]): [Sequencer<E>, E[]] {
  let { next, held } = q;
  while (held.length > 0 && next !== null && held[0].seq <= next) {
    if (held[0].seq === next) {
      out.push(held[0]);
      next++;
    }
    held = held.slice(1);
  }
  return [{ next, held }, out];
}
