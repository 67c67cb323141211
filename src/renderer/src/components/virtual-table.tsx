import { useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';

export interface Column<T> {
  key: string;
  header: ReactNode;
  /** CSS grid track, e.g. '160px' or 'minmax(180px, 1fr)'. */
  width: string;
  align?: 'left' | 'right' | 'center';
  /** A sortable column's state, for assistive technology (the header itself holds the control). */
  sort?: 'ascending' | 'descending' | 'none';
  render: (row: T, index: number) => ReactNode;
}

/** Room for a two-line header: a label over the field's name. */
const HEADER_HEIGHT = 44;
/**
 * Browsers cap an element's height (Chromium near 33.5 million px, Firefox near 17.9 million), and a
 * million 34 px rows are taller than that. Past this height the scroll bar stands for the whole list
 * at a scale, so every row stays reachable.
 */
const MAX_SCROLL_PX = 8_000_000;

/** Virtual offset (in rows' pixels) per physical scroll pixel. */
function scaleOf(totalPx: number, physicalPx: number, viewportPx: number): number {
  if (totalPx <= physicalPx) return 1;
  return (totalPx - viewportPx) / Math.max(1, physicalPx - viewportPx);
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
  const totalPx = HEADER_HEIGHT + rowCount * rowHeight;
  const physicalPx = Math.min(totalPx, MAX_SCROLL_PX);
  const scale = useRef(1);

  // The app is not built with the React Compiler, so nothing memoizes around the virtualizer's functions.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rowCount,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    paddingStart: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
    observeElementOffset: (instance: Virtualizer<HTMLDivElement, Element>, cb) => {
      const el = instance.scrollElement;
      if (!el) return;
      let idle: number | undefined;
      const report = (scrolling: boolean) => cb(el.scrollTop * scale.current, scrolling);
      const onScroll = () => {
        report(true);
        window.clearTimeout(idle);
        idle = window.setTimeout(() => report(false), 150);
      };
      report(false);
      el.addEventListener('scroll', onScroll, { passive: true });
      return () => {
        window.clearTimeout(idle);
        el.removeEventListener('scroll', onScroll);
      };
    },
    scrollToFn: (offset, { adjustments = 0, behavior }, instance) => {
      instance.scrollElement?.scrollTo({ top: (offset + adjustments) / scale.current, behavior });
    },
  });

  const viewportPx = scroller.current?.clientHeight ?? 600;
  useEffect(() => {
    scale.current = scaleOf(totalPx, physicalPx, viewportPx);
  });

  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? -1;
  const template = columns.map((c) => c.width).join(' ');
  // The narrowest the columns may get; past it the table scrolls sideways instead of squeezing.
  const minWidth = columns.reduce((sum, c) => sum + Number(/\d+/.exec(c.width)?.[0] ?? 80), 0);
  // Rows are placed in virtual coordinates; the physical scroll position trails them by this much.
  const virtualOffset = virtualizer.scrollOffset ?? 0;
  const shift = virtualOffset - virtualOffset / scaleOf(totalPx, physicalPx, viewportPx);

  useEffect(() => {
    if (onRange && last >= first) onRange(first, last);
  }, [first, last, onRange]);

  // Scrolled here rather than with the virtualizer's scrollToIndex, which stops at the element's
  // (capped) height instead of the list's.
  const reveal = (index: number) => {
    const el = scroller.current;
    if (!el) return;
    const k = scaleOf(totalPx, physicalPx, el.clientHeight);
    const top = HEADER_HEIGHT + index * rowHeight;
    const viewTop = el.scrollTop * k;
    const target =
      top - HEADER_HEIGHT < viewTop
        ? top - HEADER_HEIGHT
        : top + rowHeight > viewTop + el.clientHeight
          ? top + rowHeight - el.clientHeight
          : viewTop;
    if (target !== viewTop) el.scrollTop = target / k;
  };
  const move = (to: number) => {
    if (rowCount === 0 || !onSelect) return;
    const next = Math.max(0, Math.min(rowCount - 1, to));
    onSelect(next);
    reveal(next);
  };
  const page = Math.max(1, Math.floor((viewportPx - HEADER_HEIGHT) / rowHeight) - 1);
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
    <div className="vt">
      {/* The grid is the scroller that takes the focus and the keys: a focusable box between grid and rows would break the grid for screen readers. */}
      <div
        className="vt-scroll"
        role="grid"
        aria-label={label}
        aria-rowcount={rowCount + 1}
        ref={scroller}
        tabIndex={0}
        onKeyDown={onKey}
        data-testid="vt-scroll"
      >
        <div className="vt-inner" style={{ minWidth, height: physicalPx }}>
          <div className="vt-head" role="row" style={{ gridTemplateColumns: template, height: HEADER_HEIGHT }}>
            {columns.map((c) => (
              <div key={c.key} role="columnheader" aria-sort={c.sort} className={`vt-cell vt-${c.align ?? 'left'}`}>
                {c.header}
              </div>
            ))}
          </div>
          {items.map((item) => {
            const row = getRow(item.index);
            const cls = [
              'vt-row',
              item.index % 2 ? 'vt-odd' : '',
              item.index === selected ? 'vt-selected' : '',
              row && rowClass ? (rowClass(row, item.index) ?? '') : '',
            ]
              .filter(Boolean)
              .join(' ');
            return (
              <div
                key={rowKey(row, item.index)}
                role="row"
                aria-rowindex={item.index + 2}
                aria-selected={item.index === selected}
                className={cls}
                style={{ gridTemplateColumns: template, height: rowHeight, transform: `translateY(${item.start - shift}px)` }}
                onClick={() => {
                  onSelect?.(item.index);
                  scroller.current?.focus({ preventScroll: true });
                }}
                onDoubleClick={() => onOpen?.(item.index)}
              >
                {row === undefined ? (
                  <div role="gridcell" className="vt-cell vt-placeholder" style={{ gridColumn: '1 / -1' }}>
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
  );
}
