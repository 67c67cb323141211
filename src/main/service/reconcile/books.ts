import { basename } from 'node:path';
import type { BooksDetected, BooksPreview, BooksPreviewInput, BooksSource } from '../../../shared/reconcile';
import { claimOf, DECIDING_ROWS, planBooks, readBooksRow, suggestBooksMapping, type TokenResolver } from './books-map';
import { openBooks } from './books-head';

/* Reading the accountant's books: a streamed file (any length) or the text of a picked file. */

const SAMPLE_ROWS = 20;

export const sourceName = (source: BooksSource): string => ('path' in source ? basename(source.path) : source.name);

/** Headers, the first rows, a row estimate, a first guess at the mapping and what the file leaves to be chosen. */
export function detectBooks(source: BooksSource): Omit<BooksDetected, 'saved'> {
  const h = openBooks(source, DECIDING_ROWS);
  const rows = h.rows;
  const suggested = suggestBooksMapping(h.headers, rows);
  const plan = planBooks(h.headers, suggested, rows);
  return {
    headers: h.headers,
    sample: rows.slice(0, SAMPLE_ROWS),
    rows_estimate: h.rowEstimate,
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
export function previewBooks(input: BooksPreviewInput, resolveToken?: TokenResolver): BooksPreview {
  const h = openBooks(input.source, DECIDING_ROWS);
  const plan = planBooks(h.headers, input.mapping, h.rows);
  const tokenColumn = input.mapping.columns.token_id;
  if (resolveToken !== undefined && tokenColumn !== undefined) {
    for (const row of h.rows) {
      const cell = (row[tokenColumn] ?? '').trim();
      if (cell === '' || cell in plan.read_as.tokens) continue;
      const token = resolveToken(cell, undefined);
      if (typeof token === 'string' && token !== cell) plan.read_as.tokens[cell] = token;
    }
  }
  const sample = h.rows.slice(0, SAMPLE_ROWS);
  const problems = [...plan.problems, ...plan.needs.map((n) => ({ field: n.field, reason: n.reason }))];
  if (plan.problems.length > 0) {
    // The mapping cannot be read against this file at all: the rows as written, nothing parsed.
    return { read_as: plan.read_as, problems, rows: sample.map((cells, i) => ({ row: i + 1, cells, claim: null, error: null })) };
  }
  const read = readBooksRow(h.headers, { ...input, ...(resolveToken ? { resolveToken } : {}) }, plan.read_as);
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
