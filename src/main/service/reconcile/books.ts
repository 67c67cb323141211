import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import Papa from 'papaparse';
import type { BooksDetected, BooksPreview, BooksPreviewInput, BooksSource } from '../../../shared/reconcile';
import { claimOf, DECIDING_ROWS, planBooks, readBooksRow, suggestBooksMapping } from './books-map';
import { cleanHeader, fileSize, head, readHead } from './books-head';

/* Reading the accountant's books CSV: a streamed file (any length) or the text of a picked file. */

const SAMPLE_ROWS = 20;

export const sourceName = (source: BooksSource): string => ('path' in source ? basename(source.path) : source.name);

/** Headers, the first rows, a row estimate, a first guess at the mapping and what the file leaves to be chosen. */
export function detectBooks(source: BooksSource): Omit<BooksDetected, 'saved'> {
  const h = readHead(source, DECIDING_ROWS);
  const rows = h.rows;
  const all = h.complete && rows.length < DECIDING_ROWS;
  const estimate = all ? rows.length : rows.length === 0 ? null : estimateRows(source);
  const suggested = suggestBooksMapping(h.headers, rows);
  const plan = planBooks(h.headers, suggested, rows);
  return {
    headers: h.headers,
    sample: rows.slice(0, SAMPLE_ROWS),
    rows_estimate: estimate,
    suggested,
    read_as: plan.read_as,
    needs: plan.needs,
  };
}

/**
 * The first 20 rows as the mapping reads them, each a claim or the error that keeps it from being
 * one, with what the file decided and every error of the whole file (what a run would refuse).
 * Nothing is stored.
 */
export function previewBooks(input: BooksPreviewInput): BooksPreview {
  const h = readHead(input.source, DECIDING_ROWS);
  const plan = planBooks(h.headers, input.mapping, h.rows);
  const sample = h.rows.slice(0, SAMPLE_ROWS);
  const problems = [...plan.problems, ...plan.needs.map((n) => ({ field: n.field, reason: n.reason }))];
  if (plan.problems.length > 0) {
    // The mapping cannot be read against this file at all: the rows as written, nothing parsed.
    return { read_as: plan.read_as, problems, rows: sample.map((cells, i) => ({ row: i + 1, cells, claim: null, error: null })) };
  }
  const read = readBooksRow(h.headers, input, plan.read_as);
  return {
    read_as: plan.read_as,
    problems,
    rows: sample.map((cells, i) => {
      const outcome = read(cells);
      if ('reason' in outcome)
        return { row: i + 1, cells, claim: null, error: { column: outcome.field, reason: outcome.reason, value: outcome.value } };
      return { row: i + 1, cells, claim: claimOf(outcome.item), error: null };
    }),
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
