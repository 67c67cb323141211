import type { ImportSummary, Rejection, RowUpdate } from '../../../shared/ledger';

/*
 * The seam of the import's write, which both stores implement: the SQLite writer
 * (ledger/import-repository.ts, LedgerWriter, synchronous on one connection) and the PostgreSQL one
 * (db/ledger-writer-pg.ts, over a pool). Either takes the same lines, in file order, each
 * `values... \t row_number \n` (values in the record's field order, LEDGER_FIELDS, then movement;
 * '' = not recorded), and answers with the same stats; the import is one transaction from begin to
 * commit or rollback, so the store changes all at once or not at all. engine/ledger-store-writer.ts
 * feeds any of them the rows an import reads.
 */

export interface WriterOptions {
  importId: string;
  now: number;
  /** Rows the file is expected to bring (exact, or estimated from its first rows). */
  expectedRows: number;
  /** The file's name for transaction_id, for the rejection of a repeat. */
  idColumn: string;
  /** From this many expected rows on, indexes are rebuilt rather than kept (the SQLite writer's; tests lower it). */
  rebuildMinRows?: number;
  /** How the rows were read (readFingerprint), recorded with the import. */
  fingerprint?: string;
}

export interface WriterStats {
  added: number;
  updated: number;
  unchanged: number;
  updates: RowUpdate[];
  walletsCreated: string[];
  /** Rows that repeat a transaction_id of an earlier row. */
  repeats: Rejection[];
}

/** What to record when the import is kept: its summary and every rejection, in row order; the export's address, to be the wallet's. */
export interface ImportRecord {
  summary: ImportSummary;
  rejections: Rejection[];
  address?: { wallet_id: string; chain_id: string; address: string };
}

/** One import's write into a ledger store. A method may answer at once (SQLite) or later (PostgreSQL). */
export interface LedgerImportWriter {
  /** Open the import's transaction. */
  begin(): void | Promise<void>;
  /** A batch of lines (see the top of this file); text ends with a line break. */
  add(text: string): void | Promise<void>;
  /** Every row is in: what the import did (nothing is committed yet). */
  finish(): WriterStats | Promise<WriterStats>;
  /** Record the import and commit. */
  commit(record: ImportRecord): void | Promise<void>;
  /** Leave the store as it was (a failure, a preview, or a file without a valid row). */
  rollback(): void | Promise<void>;
}

/** A store that can take an import's write. */
export interface LedgerStore {
  importWriter(opts: WriterOptions): LedgerImportWriter;
}
