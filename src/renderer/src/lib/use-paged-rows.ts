import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from '../api';

interface PagedState<T> {
  key: string;
  total?: number;
  pages: Map<number, T[]>;
  error?: string;
}

export interface PagedRows<T> {
  /** Known once the first page of this key has arrived. */
  total: number | undefined;
  error: string | undefined;
  getRow: (index: number) => T | undefined;
  /** Ask for the rows start..end (inclusive); pages already here or on their way are not asked twice. */
  onRange: (start: number, end: number) => void;
  reload: () => void;
}

/**
 * Rows of a server-paged list fetched page by page as they scroll into view, so a table can show
 * a million records while holding only the pages the accountant has looked at.
 */
export function usePagedRows<T>(
  key: string,
  fetchPage: (page: number, pageSize: number) => Promise<{ list: T[]; total: number }>,
  pageSize = 200,
): PagedRows<T> {
  const [nonce, setNonce] = useState(0);
  const fullKey = `${key}#${nonce}`;
  const [state, setState] = useState<PagedState<T>>({ key: '', pages: new Map() });
  const fetchRef = useRef(fetchPage);
  const keyRef = useRef(fullKey);
  const inflight = useRef(new Set<string>());

  useEffect(() => {
    fetchRef.current = fetchPage;
    keyRef.current = fullKey;
  });

  const load = useCallback(
    (page: number) => {
      const tag = `${fullKey}|${page}`;
      if (inflight.current.has(tag)) return;
      inflight.current.add(tag);
      fetchRef
        .current(page, pageSize)
        .then(
          (r) =>
            setState((s) => {
              // An answer for filters the screen has since left is dropped; coming back asks again.
              if (keyRef.current !== fullKey) return s;
              const base = s.key === fullKey ? s : { key: fullKey, pages: new Map<number, T[]>() };
              return { key: fullKey, total: r.total, pages: new Map(base.pages).set(page, r.list) };
            }),
          (err: unknown) =>
            setState((s) =>
              keyRef.current !== fullKey
                ? s
                : { ...(s.key === fullKey ? s : { pages: new Map<number, T[]>() }), key: fullKey, error: errorText(err) },
            ),
        )
        .finally(() => inflight.current.delete(tag));
    },
    [fullKey, pageSize],
  );

  useEffect(() => {
    load(1);
  }, [load]);

  const current = state.key === fullKey ? state : undefined;
  const pages = current?.pages;
  const getRow = useCallback((index: number) => pages?.get(Math.floor(index / pageSize) + 1)?.[index % pageSize], [pages, pageSize]);
  const onRange = useCallback(
    (start: number, end: number) => {
      for (let p = Math.floor(start / pageSize) + 1; p <= Math.floor(end / pageSize) + 1; p++) if (!pages?.has(p)) load(p);
    },
    [pages, pageSize, load],
  );
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { total: current?.total, error: current?.error, getRow, onRange, reload };
}
