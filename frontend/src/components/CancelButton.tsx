/** The Cancel of a form, an editor or a dialog: it only closes what it is in ("small" in a row). */
export function CancelButton({ onCancel, autoFocus, small }: { onCancel: () => void; autoFocus?: boolean; small?: boolean }) {
  return (
    <button type="button" className={small ? 'small' : undefined} autoFocus={autoFocus} onClick={onCancel}>
      Cancel
    </button>
  );
}
