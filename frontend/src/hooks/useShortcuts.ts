import { useEffect, useRef } from 'react';

/** What the keyboard shortcuts do; App gives the actions. */
export interface ShortcutActions {
  newSession: () => void;
  search: () => void;
  settings: () => void;
  zoom: (dir: 1 | -1 | 0) => void;
  help: () => void;
  /** Opens the find bar over the open session (Ctrl+F). */
  find: () => void;
  /** Stops the running run (Esc, when no dialog or editor has the keys). */
  stop: () => void;
  /** The previous and next session of the list (Alt+Up, Alt+Down). */
  prevSession: () => void;
  nextSession: () => void;
  /** Moves the focus to the call waiting for approval (Ctrl+J). */
  pendingCall: () => void;
  /** Moves the focus to the message box (Ctrl+L). */
  messageBox: () => void;
  /** Opens or closes the inbox (Ctrl+I). */
  inbox: () => void;
  /** The next and previous message or tool card of the conversation (j, k). */
  nextItem: () => void;
  prevItem: () => void;
}

/** The shortcuts, as the sheet lists them (keys as shown, what they do). */
export const SHORTCUTS: { keys: string[]; does: string }[] = [
  { keys: ['Ctrl', 'N'], does: 'New session' },
  { keys: ['Ctrl', 'K'], does: 'Search sessions' },
  { keys: ['Ctrl', ','], does: 'Settings' },
  { keys: ['Ctrl', '='], does: 'Zoom in' },
  { keys: ['Ctrl', '-'], does: 'Zoom out' },
  { keys: ['Ctrl', '0'], does: 'Actual size' },
  { keys: ['Ctrl', 'F'], does: 'Find in the session (Enter: next, Shift+Enter: previous, Esc: close)' },
  { keys: ['Alt', '↑'], does: 'Previous session' },
  { keys: ['Alt', '↓'], does: 'Next session' },
  { keys: ['Ctrl', 'J'], does: 'Go to the tool call waiting for approval' },
  { keys: ['Ctrl', 'L'], does: 'Go to the message box' },
  { keys: ['Ctrl', 'I'], does: 'Open or close the inbox (j / k move, y approve, n deny, e edit, Enter open)' },
  { keys: ['?'], does: 'This list of shortcuts' },
  { keys: ['j'], does: 'Next message or tool card (not while typing)' },
  { keys: ['k'], does: 'Previous message or tool card (not while typing)' },
  { keys: ['Tab'], does: 'Into a focused card: Approve, Deny, Deny with reason, Always allow, Edit arguments' },
  { keys: ['←', '→'], does: 'The side panel’s tabs, once one has the focus (Home, End: the first, the last)' },
  { keys: ['Enter'], does: 'Send the message (Shift+Enter: a new line)' },
  { keys: ['Ctrl', 'Shift', 'Enter'], does: 'Run the message in a new session (you stay in this one)' },
  { keys: ['Ctrl', 'Q'], does: 'Quit (runs going stop)' },
  { keys: ['y'], does: 'Approve the tool call the focus is in (not while typing in it)' },
  { keys: ['n'], does: 'Deny the tool call the focus is in (not while typing in it)' },
  { keys: ['Esc'], does: 'Close a dialog, menu, palette or the side panel drawer; else stop the running reply (also from the message box)' },
];

/** True when keys typed at el are text: a text field, a text area, a select or an editable element. */
export function isTyping(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable) return true;
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  if (el instanceof HTMLInputElement) {
    return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(el.type);
  }
  return false;
}

/** Which action a key press asks for, or null. */
export function shortcutOf(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'target' | 'defaultPrevented'>): keyof ShortcutActions | `zoom${'In' | 'Out' | 'Reset'}` | null {
  const mod = e.ctrlKey || e.metaKey;
  if (mod && !e.altKey) {
    switch (e.key.toLowerCase()) {
      case 'n':
        return 'newSession';
      case 'k':
        return 'search';
      case 'f':
        return 'find';
      case 'j':
        return 'pendingCall';
      case 'l':
        return 'messageBox';
      case 'i':
        return 'inbox';
      case ',':
        return 'settings';
      case '=':
      case '+':
        return 'zoomIn';
      case '-':
      case '_':
        return 'zoomOut';
      case '0':
        return 'zoomReset';
    }
    return null;
  }
  if (e.key === '?' && !mod && !e.altKey && !isTyping(e.target)) return 'help';
  if (!mod && !e.altKey && (e.key === 'j' || e.key === 'k') && !isTyping(e.target) && !inDialog(e.target) && !inInbox(e.target)) return e.key === 'j' ? 'nextItem' : 'prevItem';
  if (e.altKey && !mod && e.key === 'ArrowUp') return 'prevSession';
  if (e.altKey && !mod && e.key === 'ArrowDown') return 'nextSession';
  // Esc belongs first to what it closes: a dialog, a menu, the palette, an editor, a drawer
  // (they take it, preventDefault or stopPropagation). Otherwise it stops the run wherever the
  // focus is, the message box included: a person typing must not have to leave the box to stop.
  if (e.key === 'Escape' && !mod && !e.altKey && !e.defaultPrevented && !inDialog(e.target)) return 'stop';
  return null;
}

/** True when el is in the inbox, whose own j and k move between its cards. */
function inInbox(el: EventTarget | null): boolean {
  return el instanceof Element && el.closest('main.inbox') !== null;
}

/** True when el is inside an open dialog (or one is open at all: it owns Esc). */
function inDialog(el: EventTarget | null): boolean {
  if (el instanceof Element && el.closest('[role="dialog"], dialog, .modal-backdrop, aside.side.open')) return true;
  return document.querySelector('[role="dialog"], dialog[open]') !== null;
}

/**
 * The window's keyboard shortcuts, on the document. Ctrl shortcuts work everywhere (also
 * while typing a message); `?` only when the keys do not go to a text field.
 */
export function useShortcuts(actions: ShortcutActions) {
  const latest = useRef(actions);
  latest.current = actions;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const which = shortcutOf(e);
      if (!which) return;
      e.preventDefault();
      const a = latest.current;
      if (which === 'zoomIn') a.zoom(1);
      else if (which === 'zoomOut') a.zoom(-1);
      else if (which === 'zoomReset') a.zoom(0);
      else if (which !== 'zoom') a[which]();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
