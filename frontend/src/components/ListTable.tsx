import type { ReactNode } from 'react';

/**
 * A read-only table of Settings (agents, skills, hooks and their runs, the settings in effect):
 * a header row of column names over the rows the caller renders.
 */
export function ListTable({ label, className, columns, children }: { label?: string; className?: string; columns: string[]; children: ReactNode }) {
  return (
    <table aria-label={label} className={className}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c}>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
