import { afterEach, beforeEach } from 'vitest';
import { cleanup, configure } from '@testing-library/react';

// findBy*/waitFor poll until what they wait for appears; their default limit (1 s) is a
// wall-clock bound that a busy machine (make test runs Go, the page and Chromium at once on
// two cores) exceeds while a lazily loaded chunk such as the markdown renderer loads. The limit
// only decides how long a failing test takes to fail.
configure({ asyncUtilTimeout: 10_000 });

/** Sets the window size media queries see (happy-dom starts at 1024x768). */
export function setViewport(width: number, height: number) {
  (window as unknown as { happyDOM: { setViewport: (v: { width: number; height: number }) => void } }).happyDOM.setViewport({ width, height });
}

// The default window of the app (main.go): 1280x800.
beforeEach(() => setViewport(1280, 800));
afterEach(() => cleanup());
