import { describe, expect, it } from 'vitest';
import { afterFirstPaint, fallbackMs, type FrameClock } from './afterPaint';

// A clock the test drives: frames and timers run only when the test says so.
function manualClock(visible: boolean) {
  const frames: (() => void)[] = [];
  const timers: { cb: () => void; ms: number }[] = [];
  const clock: FrameClock = {
    visible: () => visible,
    requestAnimationFrame: (cb) => void frames.push(cb),
    setTimeout: (cb, ms) => void timers.push({ cb, ms }),
  };
  const runTimers = (upTo: number) => {
    for (const t of timers.splice(0).filter((t) => t.ms <= upTo)) t.cb();
  };
  return { clock, frames, timers, runTimers };
}

describe('afterFirstPaint', () => {
  it('starts the app in a task after the first frame, not in the frame and not before it', () => {
    const m = manualClock(true);
    let runs = 0;
    afterFirstPaint(() => runs++, m.clock);
    expect(runs).toBe(0);
    expect(m.frames).toHaveLength(1);
    m.frames[0]();
    expect(runs).toBe(0); // the frame is not painted yet while its callbacks run
    m.runTimers(0);
    expect(runs).toBe(1);
  });

  it('starts at once when the page is not shown (no frames come)', () => {
    const m = manualClock(false);
    let runs = 0;
    afterFirstPaint(() => runs++, m.clock);
    expect(runs).toBe(1);
    expect(m.frames).toHaveLength(0);
  });

  it('starts after the fallback when no frame comes, and only once when the frame comes after all', () => {
    const m = manualClock(true);
    let runs = 0;
    afterFirstPaint(() => runs++, m.clock);
    m.runTimers(fallbackMs);
    expect(runs).toBe(1);
    m.frames[0]();
    m.runTimers(fallbackMs);
    expect(runs).toBe(1);
  });
});
