import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import Papa from 'papaparse';
import type { BooksDetected, BooksSource } from '../../../shared/reconcile';
import { invalidParam } from '../errors';
import { suggestBooksMapping } from './books-map';

/* Reading the accountant's books CSV: a streamed file (any length) or the text of a picked file. */

const SAMPLE_ROWS = 20;
const SAMPLE_BYTES = 256 * 1024;

export const sourceName = (source: BooksSource): string => ('path' in source ? basename(source.path) : source.name);

const cleanHeader = (h: string) => h.replace(/^\uFEFF/, '').trim();

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (err) {
    throw invalidParam(
      'source.path',
      `cannot read ${JSON.stringify(path)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

function head(source: BooksSource): { text: string; complete: boolean; totalBytes: number } {
  if (!('path' in source)) return { text: source.text, complete: true, totalBytes: Buffer.byteLength(source.text) };
  const totalBytes = fileSize(source.path);
  const fd = openSync(source.path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(SAMPLE_BYTES, totalBytes));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return { text: buf.subarray(0, n).toString('utf8'), complete: n >= totalBytes, totalBytes };
  } finally {
    closeSync(fd);
  }
}

/** Headers, the first rows, a row estimate and a first guess at the mapping. */
export function detectBooks(source: BooksSource): BooksDetected {
  const { text, complete, totalBytes } = head(source);
  const parsed = Papa.parse<Record<string, string>>(text, {
    header: true,
    skipEmptyLines: 'greedy',
    preview: complete ? 0 : SAMPLE_ROWS + 1,
    transformHeader: cleanHeader,
  });
  const headers = (parsed.meta.fields ?? []).filter((h) => h !== '');
  if (headers.length === 0) throw invalidParam('source', 'the file has no header row');
  const rows = complete ? parsed.data : parsed.data.slice(0, SAMPLE_ROWS);
  const sampleBytes = complete ? totalBytes : Buffer.byteLength(text);
  const estimate = complete ? parsed.data.length : rows.length === 0 ? null : Math.round((totalBytes / sampleBytes) * rows.length);
  return {
    headers,
    sample: rows.slice(0, SAMPLE_ROWS).map((r) => Object.fromEntries(headers.map((h) => [h, r[h] ?? '']))),
    rows_estimate: estimate,
    suggested: suggestBooksMapping(headers),
  };
}

/** Data rows of the file, keyed by header, streamed with back-pressure. */
export async function* booksRows(source: BooksSource): AsyncGenerator<Record<string, string>> {
  const input = 'path' in source ? (fileSize(source.path), createReadStream(source.path)) : Readable.from([source.text]);
  const parser = Papa.parse(Papa.NODE_STREAM_INPUT, { header: true, skipEmptyLines: 'greedy', transformHeader: cleanHeader });
  input.on('error', (err: Error) => parser.destroy(err));
  input.pipe(parser);
  yield* parser as AsyncIterable<Record<string, string>>;
}

/** Data rows in a file, from its line breaks: the progress total before the run knows better. */
export function estimateRows(source: BooksSource): number {
  const { text, complete, totalBytes } = head(source);
  const lines = (text.match(/\n/g)?.length ?? 0) + (text.endsWith('\n') ? 0 : 1);
  const rows = Math.max(0, lines - 1);
  return complete ? rows : Math.round((rows * totalBytes) / Math.max(1, Buffer.byteLength(text)));
}
