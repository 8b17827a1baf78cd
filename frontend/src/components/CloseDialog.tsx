import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useCloseRequest } from '../hooks/useLifecycle';

/** Keeps Tab and Shift+Tab inside el: from its last control to its first and back. */
function trapTab(e: KeyboardEvent<HTMLElement>, el: HTMLElement | null) {
  if (e.key !== 'Tab' || !el) return;
  const controls = [...el.querySelectorAll<HTMLElement>('button:not([disabled])')];
  if (controls.length === 0) return;
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * The question the window asks when it is closed while runs go: "N runs are going". Stop them
 * (then quit), Keep them running (the window hides; launching Loopdesk again brings it back),
 * or Cancel (Esc). Modal: the focus stays inside until it is answered.
 */
export function CloseDialog() {
  const { runs, answer } = useCloseRequest();
  if (runs === null) return null;
  return <CloseQuestion runs={runs} onAnswer={answer} />;
}

export function CloseQuestion({ runs, onAnswer }: { runs: number; onAnswer: (choice: 'stop' | 'keep' | 'cancel') => void }) {
  const box = useRef<HTMLDivElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    keep.current?.focus();
    return () => before?.focus?.();
  }, []);
  const title = runs === 1 ? '1 run is going' : `${runs} runs are going`;
  return (
    <div className="modal-backdrop">
      <div
        ref={box}
        className="modal close-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="close-title"
        aria-describedby="close-text"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onAnswer('cancel');
          }
          trapTab(e, box.current);
        }}
      >
        <h2 id="close-title">{title}</h2>
        <p id="close-text">
          Stop {runs === 1 ? 'it' : 'them'} and quit, or keep {runs === 1 ? 'it' : 'them'} running without the window: notifications still come, and
          launching Loopdesk again brings the window back. Loopdesk quits by itself when the last run ends.
        </p>
        <div className="row">
          <button type="button" className="danger" onClick={() => onAnswer('stop')}>
            Stop {runs === 1 ? 'it' : 'them'}
          </button>
          <button type="button" ref={keep} onClick={() => onAnswer('keep')}>
            Keep {runs === 1 ? 'it' : 'them'} running
          </button>
          <button type="button" onClick={() => onAnswer('cancel')}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
