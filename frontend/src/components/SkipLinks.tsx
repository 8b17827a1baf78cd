import { focusMessageBox, focusPendingCall } from '../lib/jump';

/**
 * The first stops of Tab: past every row's controls straight to the call waiting for
 * approval (when there is one) or to the message box. Hidden until focused (style.css).
 */
export function SkipLinks({ pending }: { pending: boolean }) {
  return (
    <div className="skip-links">
      {pending && (
        <button type="button" className="skip-link" onClick={focusPendingCall}>
          Skip to the call waiting for approval
        </button>
      )}
      <button type="button" className="skip-link" onClick={focusMessageBox}>
        Skip to the message box
      </button>
    </div>
  );
}
