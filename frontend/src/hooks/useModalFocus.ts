import { useEffect, useRef } from 'react';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The controls of el that Tab stops at, in order. */
function focusables(el: HTMLElement): HTMLElement[] {
  return [...el.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((c) => !c.hidden && c.getAttribute('aria-hidden') !== 'true');
}

/**
 * A dialog's focus: on open it goes inside (to what autoFocus chose, else the first control);
 * Tab and Shift+Tab cycle within it, also when a click left the focus outside; on close it
 * returns to where it was before, when that is still on the page. Put the ref on the dialog.
 */
export function useModalFocus<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!el.contains(document.activeElement)) (focusables(el)[0] ?? el).focus({ preventScroll: true });
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Tab') return;
      const all = focusables(el);
      if (all.length === 0) return e.preventDefault();
      const at = all.indexOf(document.activeElement as HTMLElement);
      if (e.shiftKey && at <= 0) {
        e.preventDefault();
        all[all.length - 1].focus();
      } else if (!e.shiftKey && (at === -1 || at === all.length - 1)) {
        e.preventDefault();
        all[0].focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (before?.isConnected) before.focus({ preventScroll: true });
    };
  }, []);
  return ref;
}
