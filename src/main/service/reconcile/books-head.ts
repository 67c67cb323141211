import { closeSync, openSync, readSync, statSync } from 'node:fs';
import Papa from 'papaparse';
import type { BooksSource } from '../../../shared/reconcile';
import { invalidParam } from '../errors';

/*
 * The head of a books file: its header and first rows, read once before anything runs. Detection,
 * the preview and a run all decide what the mapping leaves to the file (decimal separator, date
 * order) from these same rows, so the three agree.
 */

const HEAD_BYTES = 256 * 1024;

export const cleanHeader = (h: string) => h.replace(/^\uFEFF/, '').trim();

export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (err) {
    throw invalidParam(
      'source.path',
      `cannot read ${JSON.stringify(path)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** The first 256 KiB of the file (all of a picked file's text), and whether that is all of it. */
export function head(source: BooksSource): { text: string; complete: boolean; totalBytes: number } {
  if (!('path' in source)) return { text: source.text, complete: true, totalBytes: Buffer.byteLength(source.text) };
  const totalBytes = fileSize(source.path);
  const fd = openSync(source.path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(HEAD_BYTES, totalBytes));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return { text: buf.subarray(0, n).toString('utf8'), complete: n >= totalBytes, totalBytes };
  } finally {
    closeSync(fd);
  }
}

export interface BooksHead {
  headers: string[];
  /** Whole data rows of the head (at most `limit`), keyed by header, cells as written. */
  rows: Record<string, string>[];
  complete: boolean;
  totalBytes: number;
  /** Bytes of the head the rows were read from. */
  headBytes: number;
}

/** The header and up to `limit` whole rows of the head; a file without a header row is 1002 naming `source`. */
export function readHead(source: BooksSource, limit: number): BooksHead {
  const { text, complete, totalBytes } = head(source);
  // A cut head ends inside a row: that row is left out.
  const parsed = Papa.parse<Record<string, string>>(complete ? text : text.slice(0, text.lastIndexOf('\n') + 1), {
    header: true,
    skipEmptyLines: 'greedy',
    preview: limit,
    transformHeader: cleanHeader,
  });
  const headers = (parsed.meta.fields ?? []).filter((h) => h !== '');
  if (headers.length === 0) throw invalidParam('source', 'the file has no header row');
  const rows = parsed.data.map((r) => Object.fromEntries(headers.map((h) => [h, r[h] ?? ''])));
  return { headers, rows, complete, totalBytes, headBytes: Buffer.byteLength(text) };
}
