import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';

export interface Column<T> {
  key: string;
  header: ReactNode;
  /** CSS grid track, e.g. '160px' or 'minmax(180px, 1fr)'. */
  width: string;
  align?: 'left' | 'right' | 'center';
  render: (row: T, index: number) => ReactNode;
}

/**
 * A table that renders only the rows in view, so a million rows scroll as smoothly as fifty.
 * Rows may still be loading (undefined): a placeholder stands in until the page arrives.
 * Arrow keys, Page Up/Down, Home/End move the selection; Enter opens the selected row.
 */
export function VirtualTable<T>({
  columns,
  rowCount,
  getRow,
  rowKey,
  onRange,
  selected,
  onSelect,
  onOpen,
  rowHeight = 34,
  label,
  rowClass,
}: {
  columns: Column<T>[];
  rowCount: number;
  getRow: (index: number) => T | undefined;
  rowKey: (row: T | undefined, index: number) => string;
  onRange?: (start: number, end: number) => void;
  selected?: number;
  onSelect?: (index: number) => void;
  onOpen?: (index: number) => void;
  rowHeight?: number;
  label: string;
  rowClass?: (row: T, index: number) => string | undefined;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  // The app is not built with the React Compiler, so nothing memoizes around the virtualizer's functions.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({ count: rowCount, getScrollElement: () => scroller.current, estimateSize: () => rowHeight, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? -1;
  const template = columns.map((c) => c.width).join(' ');
  // The narrowest the columns may get; past it the table scrolls sideways instead of squeezing.
  const minWidth = columns.reduce((sum, c) => sum + Number(/\d+/.exec(c.width)?.[0] ?? 80), 0);

  useEffect(() => {
    if (onRange && last >= first) onRange(first, last);
  }, [first, last, onRange]);

  const move = (to: number) => {
    if (rowCount === 0 || !onSelect) return;
    const next = Math.max(0, Math.min(rowCount - 1, to));
    onSelect(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };
  const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 400) / rowHeight) - 1);
  const onKey = (e: KeyboardEvent) => {
    const cur = selected ?? -1;
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(cur + 1),
      ArrowUp: () => move(cur - 1),
      PageDown: () => move(cur + page),
      PageUp: () => move(cur - page),
      Home: () => move(0),
      End: () => move(rowCount - 1),
      Enter: () => cur >= 0 && onOpen?.(cur),
    };
    const act = keys[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  };

  return (
    <div className="vt" role="grid" aria-label={label} aria-rowcount={rowCount + 1}>
      <div className="vt-scroll" ref={scroller} tabIndex={0} onKeyDown={onKey} data-testid="vt-scroll">
        <div className="vt-inner" style={{ minWidth }}>
          <div className="vt-head" role="row" style={{ gridTemplateColumns: template }}>
            {columns.map((c) => (
              <div key={c.key} role="columnheader" className={`vt-cell vt-${c.align ?? 'left'}`}>
                {c.header}
              </div>
            ))}
          </div>
          <div className="vt-body" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const row = getRow(item.index);
              const cls = ['vt-row', item.index % 2 ? 'vt-odd' : '', item.index === selected ? 'vt-selected' : '', row && rowClass ? (rowClass(row, item.index) ?? '') : '']
                .filter(Boolean)
                .join(' ');
              return (
                <div
                  key={rowKey(row, item.index)}
                  role="row"
                  aria-rowindex={item.index + 2}
                  aria-selected={item.index === selected}
                  className={cls}
                  style={{ gridTemplateColumns: template, height: rowHeight, transform: `translateY(${item.start}px)` }}
                  onClick={() => {
                    onSelect?.(item.index);
                    scroller.current?.focus({ preventScroll: true });
                  }}
                  onDoubleClick={() => onOpen?.(item.index)}
                >
                  {row === undefined ? (
                    <div className="vt-cell vt-placeholder" style={{ gridColumn: '1 / -1' }}>
                      <span className="skeleton" />
                    </div>
                  ) : (
                    columns.map((c) => (
                      <div key={c.key} role="gridcell" className={`vt-cell vt-${c.align ?? 'left'}`}>
                        {c.render(row, item.index)}
                      </div>
                    ))
                  )}
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}
