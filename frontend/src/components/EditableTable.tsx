import type { ReactNode } from 'react';

export interface Column<T> {
  header: string;
  /** A row's cell; set replaces the row (a no-op for a table whose rows Go owns). */
  cell: (row: T, set: (next: T) => void, i: number) => ReactNode;
}

interface Common<T> {
  /** The table's accessible name. */
  label: string;
  columns: Column<T>[];
  rows: T[];
  rowKey?: (row: T, i: number) => string | number;
  /** A row shown whole in its own way (a rule being edited); undefined shows its cells. */
  renderRow?: (row: T, i: number) => ReactNode | undefined;
  rowTitle?: (row: T) => string | undefined;
  /** What an empty table says, across all its columns. */
  empty?: ReactNode;
  /** Why the last change or save was refused; shown below the table. */
  message?: string;
}

/** Rows the page holds until the panel's Save: add and remove here, cells edit in place. */
interface Local<T> extends Common<T> {
  onChange: (rows: T[]) => void;
  newRow: () => T;
  addLabel: string;
  /** The accessible name of row i's Remove button (i from 0). */
  removeLabel: (i: number) => string;
}

/** Rows Go owns: each row's own actions, and a footer to add one. */
interface Owned<T> extends Common<T> {
  actions: (row: T, i: number) => ReactNode;
  footer: ReactNode;
}

const replace = <T,>(xs: T[], i: number, x: T) => xs.map((y, j) => (j === i ? x : y));

/**
 * Settings' editable tables (prices, context windows, vision, saved rules): a header row, a row
 * per entry with its cells and actions, an empty note, the way to add one, and the reason a
 * change was refused.
 */
export function EditableTable<T>(props: Local<T> | Owned<T>) {
  const { label, columns, rows, rowKey = (_, i) => i, renderRow, rowTitle, empty, message } = props;
  const local = 'onChange' in props ? props : null;
  const set = (i: number) => (next: T) => local?.onChange(replace(rows, i, next));
  const actions = (row: T, i: number) =>
    local ? (
      <button type="button" className="small" aria-label={local.removeLabel(i)} onClick={() => local.onChange(rows.filter((_, j) => j !== i))}>
        Remove
      </button>
    ) : (
      (props as Owned<T>).actions(row, i)
    );
  return (
    <>
      <table className="grid" aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header}>{c.header}</th>
            ))}
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(
            (r, i) =>
              renderRow?.(r, i) ?? (
                <tr key={rowKey(r, i)} title={rowTitle?.(r)}>
                  {columns.map((c) => (
                    <td key={c.header}>{c.cell(r, set(i), i)}</td>
                  ))}
                  <td>{actions(r, i)}</td>
                </tr>
              ),
          )}
          {rows.length === 0 && empty && (
            <tr>
              <td colSpan={columns.length + 1} className="muted">
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {local ? (
        <div className="row">
          <button type="button" onClick={() => local.onChange([...rows, local.newRow()])}>
            {local.addLabel}
          </button>
        </div>
      ) : (
        (props as Owned<T>).footer
      )}
      {message && (
        <p role="alert" className="bad">
          {message}
        </p>
      )}
    </>
  );
}

/** A number field that takes only a non-negative number (anything else is 0). */
export function NumberCell({ label, value, step, onChange }: { label: string; value: number; step: string; onChange: (n: number) => void }) {
  return <input aria-label={label} type="number" min="0" step={step} value={value} onChange={(e) => onChange(nonNegative(e.target.value))} />;
}

export const nonNegative = (s: string) => {
  const n = Number(s);
  return Number.isFinite(n) && n >= 0 ? n : 0;
};
