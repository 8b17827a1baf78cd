/**
 * Keyboard jumps the shortcuts and the skip links share: to the call waiting for the person
 * and to the message box. Each returns whether there was somewhere to go.
 */

/** Focuses the first tool card waiting for approval and brings it into view. */
export function focusPendingCall(): boolean {
  const card = document.querySelector<HTMLElement>('.conversation .tool-card.pending');
  if (!card) return false;
  card.scrollIntoView?.({ block: 'nearest' });
  card.focus({ preventScroll: true });
  return true;
}

/** Focuses the message box. */
export function focusMessageBox(): boolean {
  const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]');
  if (!box) return false;
  box.focus();
  return true;
}
