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

/**
 * Keeps the focus in el when the control inside it that had the focus goes away (a form folded
 * after an answer, buttons replaced by the outcome): it falls back to el itself (focusable),
 * never to the page's body. Put the ref on el.
 */
export function useFocusFallback<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let inside = false;
    const onIn = () => (inside = true);
    // Focus moved to something else (not to nothing, as when the focused control is removed).
    const onOut = (e: FocusEvent) => {
      if (e.relatedTarget instanceof Node) inside = el.contains(e.relatedTarget);
    };
    const lost = new MutationObserver(() => {
      const at = document.activeElement;
      if (inside && (at === null || at === document.body)) el.focus({ preventScroll: true });
    });
    el.addEventListener('focusin', onIn);
    el.addEventListener('focusout', onOut);
    lost.observe(el, { childList: true, subtree: true });
    return () => {
      el.removeEventListener('focusin', onIn);
      el.removeEventListener('focusout', onOut);
      lost.disconnect();
    };
  }, []);
  return ref;
}
