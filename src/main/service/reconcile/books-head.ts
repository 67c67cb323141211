import type { BooksSource } from '../../../shared/reconcile';
import { invalidParam } from '../errors';
import { FileError, iterateRows, openSource, sniff, type OpenedSource, type Sniffed } from '../tables/source';

/*
 * A books file through the one table reader (tables/source.ts), as ledgers are read: its encoding,
 * delimiter, line ends and lines above the header decided the same way. The head (header and first
 * rows) is read once before anything runs; detection, the preview and a run decide what the
 * mapping leaves to the file (decimal separator, date order) from these same rows, so the three agree.
 */

/** Where a row's cells past the header's width go (a key no header can be): the row is refused, never read by position. */
export const EXTRA_CELLS = '\u0001extra';

export interface BooksFile {
  opened: OpenedSource;
  sniffed: Sniffed;
  /** The header's names, trimmed, blank ones left out. */
  headers: string[];
  /** Data rows of the head (at most `limit`), keyed by header, cells as written. */
  rows: Record<string, string>[];
  /** Whether the head is the whole file. */
  complete: boolean;
  /** Rows in the file: exact for a file read whole, else estimated from the head. */
  rowEstimate: number | null;
  /** A row of cells keyed by header; cells past the header's width that hold something go under EXTRA_CELLS. */
  keyed(cells: readonly string[]): Record<string, string | string[]>;
}

const refusal = (err: unknown): never => {
  if (err instanceof FileError) throw invalidParam('source', err.message);
  throw err;
};

/** Open a books file and read its head; a file that cannot be read as a table is 1002 naming `source` and why. */
export function openBooks(source: BooksSource, limit: number): BooksFile {
  let opened: OpenedSource;
  let sniffed: Sniffed;
  try {
    opened = openSource(source);
  } catch (err) {
    if (err instanceof FileError && 'path' in source)
      throw invalidParam('source.path', `cannot read ${JSON.stringify(source.path)}: ${err.message}`);
    return refusal(err);
  }
  try {
    sniffed = sniff(opened);
  } catch (err) {
    return refusal(err);
  }
  const named = sniffed.headers.map((h, i) => ({ name: h.trim(), i })).filter((h) => h.name !== '');
  if (named.length === 0) throw invalidParam('source', 'the file has no header row');
  const width = sniffed.headers.length;
  const keyed = (cells: readonly string[]): Record<string, string | string[]> => {
    const row: Record<string, string | string[]> = {};
    for (const h of named) row[h.name] = cells[h.i] ?? '';
    if (cells.length > width) row[EXTRA_CELLS] = cells.slice(width);
    return row;
  };
  const rows = sniffed.headRows.slice(0, limit).map((cells) => keyed(cells) as Record<string, string>);
  return {
    opened,
    sniffed,
    headers: named.map((h) => h.name),
    rows,
    complete: opened.head.length === opened.size,
    rowEstimate: sniffed.rowEstimate,
    keyed,
  };
}

/** Every data row of the file, keyed by header, with its 1-based row number (blank rows counted, not given). */
export async function* booksRows(file: BooksFile): AsyncGenerator<{ row: number; cells: Record<string, string | string[]> }> {
  try {
    for await (const { cells, row } of iterateRows(file.opened, file.sniffed)) {
      if (cells.every((c) => c.trim() === '')) continue;
      yield { row, cells: file.keyed(cells) };
    }
  } catch (err) {
    refusal(err);
  }
}
