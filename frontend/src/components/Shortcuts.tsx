import { useModalFocus } from '../hooks/useModalFocus';
import { SHORTCUTS } from '../hooks/useShortcuts';

/** The shortcuts sheet (`?`): a modal dialog listing every shortcut; Escape or Close ends it. */
export function Shortcuts({ onClose }: { onClose: () => void }) {
  // Close, its one control, takes the focus without scrolling the title of a tall sheet away.
  const dialog = useModalFocus<HTMLDivElement>();
  return (
    <div className="sheet-backdrop" onClick={onClose}>
      <div
        ref={dialog}
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
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
