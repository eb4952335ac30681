/** @jsxImportSource react */
import type { ReactNode } from 'react';
import { useWords } from '../context';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** the column the list is sorted by (creation): its header toggles the order */
  sort?: { asc: boolean; toggle: () => void };
}

/**
 * The console's one table: a header row (the sorted column says its order to screen readers), a row per
 * item, and a last cell with the row's actions. It scrolls sideways inside its box, never the page. An
 * empty list is a sentence instead, one that says how to fill it where the caller knows.
 */
export function DataTable<T>(props: {
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  actions?: (row: T) => ReactNode;
  /** what an empty list says instead of the table: best, what to do to fill it */
  empty?: ReactNode;
}) {
  const t = useWords();
  if (props.rows.length === 0) return <p className="empty">{props.empty ?? t.none}</p>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            {props.columns.map((c) =>
              c.sort ? (
                <th key={c.header} scope="col" aria-sort={c.sort.asc ? 'ascending' : 'descending'}>
                  <button type="button" className="sort" onClick={c.sort.toggle}>
                    {c.header} {c.sort.asc ? '↑' : '↓'}
                  </button>
                </th>
              ) : (
                <th key={c.header} scope="col">
                  {c.header}
                </th>
              ),
            )}
            {props.actions && (
              <th scope="col">
                <span className="visually-hidden">{t.actions}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((c) => (
                <td key={c.header}>{c.cell(row)}</td>
              ))}
              {props.actions && <td className="row-actions">{props.actions(row)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A creation date in the page's language. */
export function dateCell(d: Date | undefined): string {
  return d ? d.toLocaleDateString(document.documentElement.lang) : '';
}
