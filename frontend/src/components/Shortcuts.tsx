import { useEffect, useRef } from 'react';
import { SHORTCUTS } from '../hooks/useShortcuts';

/** The shortcuts sheet (`?`): a modal dialog listing every shortcut; Escape or Close ends it. */
export function Shortcuts({ onClose }: { onClose: () => void }) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    // Close is at the end of a sheet taller than a small window: focusing it must not scroll the title away.
    close.current?.focus({ preventScroll: true });
    return () => before?.focus?.();
  }, []);
  return (
    <div className="sheet-backdrop" onClick={onClose}>
      <div
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        className="sheet"
        onClick={(e) => e.stopPropagation()}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          }
        }}
      >
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <table className="shortcuts">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.does}>
                <th scope="row">
                  {s.keys.map((k, i) => (
                    <span key={k}>
                      {i > 0 && '+'}
                      <kbd>{k}</kbd>
                    </span>
                  ))}
                </th>
                <td>{s.does}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="row">
          <button type="button" ref={close} onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
