import type { ReactNode } from 'react';

export interface SimpleColumn<T> {
  key: string;
  header: ReactNode;
  align?: 'left' | 'right' | 'center';
  width?: string;
  /** Kept in view at the table's right edge while the rest scrolls sideways (the figure a row is read for). */
  pinned?: boolean;
  render: (row: T) => ReactNode;
}

/** A plain table for lists the service pages (tens of rows): all rows rendered, header kept in view. */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  label,
  onRowClick,
  selectedKey,
  rowClass,
}: {
  columns: SimpleColumn<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  label: string;
  onRowClick?: (row: T) => void;
  selectedKey?: string;
  rowClass?: (row: T) => string | undefined;
}) {
  return (
    <div className="table-wrap">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th
                key={c.key}
                className={`al-${c.align ?? 'left'}${c.pinned ? ' pinned-right' : ''}`}
                style={c.width ? { width: c.width } : undefined}
                scope="col"
              >
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const key = rowKey(r);
            const cls = [onRowClick ? 'clickable' : '', key === selectedKey ? 'selected' : '', rowClass?.(r) ?? '']
              .filter(Boolean)
              .join(' ');
            return (
              <tr
                key={key}
                className={cls || undefined}
                onClick={onRowClick ? () => onRowClick(r) : undefined}
                tabIndex={onRowClick ? 0 : undefined}
                onKeyDown={
                  onRowClick
                    ? (e) => {
                        if (e.key === 'Enter') onRowClick(r);
                      }
                    : undefined
                }
                aria-selected={selectedKey !== undefined ? key === selectedKey : undefined}
              >
                {columns.map((c) => (
                  <td key={c.key} className={`al-${c.align ?? 'left'}${c.pinned ? ' pinned-right' : ''}`}>
                    {c.render(r)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
