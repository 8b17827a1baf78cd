import { useCloseRequest } from '../hooks/useLifecycle';
import { useModalFocus } from '../hooks/useModalFocus';

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
  const box = useModalFocus<HTMLDivElement>();
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
          <button type="button" autoFocus onClick={() => onAnswer('keep')}>
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
