import { afterEach, beforeEach } from 'vitest';
import { cleanup } from '@testing-library/react';

/** Sets the window size media queries see (happy-dom starts at 1024x768). */
export function setViewport(width: number, height: number) {
  (window as unknown as { happyDOM: { setViewport: (v: { width: number; height: number }) => void } }).happyDOM.setViewport({ width, height });
}

// The default window of the app (main.go): 1280x800.
beforeEach(() => setViewport(1280, 800));
afterEach(() => cleanup());
