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

/** The conversation's messages and tool cards, in the order they show. */
const ITEMS = '.conversation article.msg, .conversation .tool-card';

/**
 * Moves the focus to the next (by 1) or previous (by -1) message or tool card from the one the
 * focus is in (the innermost, as a card sits inside its message); from none, to the first or
 * the last. The item is brought into view.
 */
export function focusConversationItem(by: 1 | -1): boolean {
  const items = [...document.querySelectorAll<HTMLElement>(ITEMS)];
  if (items.length === 0) return false;
  const active = document.activeElement;
  let at = -1;
  items.forEach((el, i) => {
    if (active && el.contains(active)) at = i;
  });
  const next = items[at === -1 ? (by === 1 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, at + by))];
  if (!next.hasAttribute('tabindex')) next.tabIndex = -1;
  next.scrollIntoView?.({ block: 'nearest' });
  next.focus({ preventScroll: true });
  return true;
}

/** Focuses the message box. */
export function focusMessageBox(): boolean {
  const box = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message"]');
  if (!box) return false;
  box.focus();
  return true;
}
