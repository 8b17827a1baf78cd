// afterFirstPaint runs start once the page's first frame is on screen: after the next
// animation frame, in a task of its own (a frame's callbacks run before it is painted).
// index.html's frame (the session list's fixed parts) paints first, and the app's script is
// compiled and run afterwards, instead of holding the page's main thread, and with it the
// first paint, until React has rendered (docs/benchmarks.md, "The SDKs' clients out of the
// binary"). A page that is not shown gets no frames: it starts at once, and a page whose
// frame never comes starts after fallbackMs. start runs exactly once.
export interface FrameClock {
  visible(): boolean;
  requestAnimationFrame(cb: () => void): void;
  setTimeout(cb: () => void, ms: number): void;
}

export const fallbackMs = 250;

export function afterFirstPaint(start: () => void, clock: FrameClock): void {
  let started = false;
  const once = () => {
    if (!started) {
      started = true;
      start();
    }
  };
  if (!clock.visible()) {
    once();
    return;
  }
  clock.requestAnimationFrame(() => clock.setTimeout(once, 0));
  clock.setTimeout(once, fallbackMs);
}

export const windowClock: FrameClock = {
  visible: () => document.visibilityState === 'visible',
  requestAnimationFrame: (cb) => window.requestAnimationFrame(cb),
  setTimeout: (cb, ms) => window.setTimeout(cb, ms),
};
