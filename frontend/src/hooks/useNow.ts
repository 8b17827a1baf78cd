import { useEffect, useState } from 'react';

type Listener = (now: number) => void;

// One timer per period for the whole page, whatever the number of clocks on screen: every
// elapsed time of that period moves in the same task, so React renders them together and the
// window repaints once a tick, not once per running session (each repaint costs CPU with
// nothing streaming; docs/benchmarks.md, "Many agents at once").
const clocks = new Map<number, { listeners: Set<Listener>; timer: ReturnType<typeof setInterval> }>();

function subscribe(intervalMs: number, listener: Listener): () => void {
  let clock = clocks.get(intervalMs);
  if (!clock) {
    const listeners = new Set<Listener>();
    const timer = setInterval(() => {
      const now = Date.now();
      listeners.forEach((l) => l(now));
    }, intervalMs);
    clock = { listeners, timer };
    clocks.set(intervalMs, clock);
  }
  const { listeners, timer } = clock;
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size > 0) return;
    clearInterval(timer);
    clocks.delete(intervalMs);
  };
}

/**
 * The current time, re-read every intervalMs while active (for elapsed-time displays). An
 * inactive clock (a session that neither runs nor waits) holds no timer; active ones of the
 * same period share one.
 */
export function useNow(active: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    return subscribe(intervalMs, setNow);
  }, [active, intervalMs]);
  return now;
}
