import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { writeSync } from 'node:fs';
import type { ImportSummary, Rejection, RowUpdate } from '../../../shared/ledger';
import { LEDGER_FIELDS, MAX_REPORTED_UPDATES } from '../../../shared/ledger';
import { detach } from './values';
import {
  columnOf,
  decodeId,
  encodeIdValue,
  LEDGER_TABLE,
  NAMED_FIELDS,
  NAMES_TABLE,
  nameNo,
  STORED_RECORD_FIELDS,
  reusingValueEncoders,
  type StoredRecordField,
} from '../db/ledger-sql';
import type { ImportRecord, LedgerImportWriter, LedgerStore, WriterOptions, WriterStats } from '../db/ledger-writer';

export type { ImportRecord, WriterOptions, WriterStats };

/*
 * The import's repository: its write, over one SQLite connection: the service's own (small files, in one
 * synchronous go) or a worker thread's (large files, batch by batch while the file is still being
 * read). The transaction opens before the first row and stays open until the import is recorded;
 * a failure, a preview or a file without a valid row rolls it back, so the store changes all at
 * once or not at all.
 *
 * Rows arrive in file order, as lines `values... \t row_number \n` (values in STORED_FIELDS order:
 * LEDGER_FIELDS, then movement; '' = not recorded). A new row gets rowid = (highest rowid before the import) + row_number: rows
 * still append to the table, and a later row with the same transaction_id finds the row number it
 * repeats in the rowid it collides with. A repeat of a record that existed before is found in a
 * temporary table of the existing rows this import has met.
 *
 * A bulk load drops every index of `transactions`, transaction_id's unique index too, and appends
 * the rows without a lookup; the indexes are built once at the end. It is taken into an empty
 * ledger, and into a ledger the file brings a large share of when none of the first batch's rows is
 * a record already (a file of new rows: a lookup per row at a random place of the unique index was
 * most of such an import's time). A row that meets an earlier one (a repeat within the file, or a
 * record that existed before) shows as the unique index failing to build; then, for each
 * transaction_id met more than once, the first row of the file updates the record that existed
 * before (or leaves it unchanged) and is taken out, or stays if there was none, and every later row
 * is taken out and rejected, exactly as the row-by-row load does; then the index is built.
 *
 * A record the import updates is kept as it stood before, in import_replaced (the whole row as
 * JSON, and the import that had written it), so the import can be undone (undo-repository.ts). A
 * new row keeps nothing: the records an import added are the ones carrying its import_id that it
 * did not replace, and a file of new rows pays nothing for its undo.
 */

const q = (name: string) => `"${name}"`;
/** A row's values: the record's fields, then which movement of its transaction it is ('' for a native file: the record's stays). */
const STORED_FIELDS = [...LEDGER_FIELDS, 'movement'] as const;
const N = STORED_FIELDS.length;
/** The fields as the view `transactions` gives them back (decoded), for comparing a record with a row. */
const RECORD_COLUMNS = STORED_FIELDS.map(q).join(', ');
/** The columns of ledger_rows that hold them (db/ledger-sql.ts). */
const ROW_COLUMNS = STORED_FIELDS.map(columnOf).join(', ');
const INTEGER_FIELDS = new Set(['created_at', 'confirmed_at', 'completed_at', 'movement']);
const IS_INTEGER = STORED_FIELDS.map((f) => INTEGER_FIELDS.has(f));
const WALLET = LEDGER_FIELDS.indexOf('wallet_id');
/** The fields held by a name's number: the writer binds the number (names: LedgerWriter.nameNo). */
const NAMED = new Set<string>(NAMED_FIELDS);
const IS_NAMED = STORED_FIELDS.map((f) => NAMED.has(f));
const encodersByField = () => {
  const encoders = reusingValueEncoders();
  return STORED_FIELDS.map((f) => encoders[f as StoredRecordField]);
};

export interface IndexDef {
  name: string;
  sql: string;
}

/**
 * Below this many rows, or when the store holds more than REBUILD_MAX_SHARE times the rows the
 * import brings, the indexes are kept up to date row by row; otherwise they are dropped and rebuilt
 * (one sort each of every row instead of a random B-tree insert per new row and index, which misses
 * the page cache once an index outgrows it), inside the same transaction. transaction_id's unique
 * index stays unless the load is a bulk load (see the top of this file): every row is looked up by it.
 */
const REBUILD_MIN_ROWS = 50_000;
const REBUILD_MAX_SHARE = 8;
const ID_INDEX = 'transactions_id_idx';

/** The SQLite store's import writer (the seam: db/ledger-writer.ts). */
export class LedgerWriter implements LedgerImportWriter {
  private readonly sqlite: Database.Database;
  private readonly opts: WriterOptions;
  private base = 0;
  private rebuild: IndexDef[] = [];
  /** A bulk load: no index at all during the load (see the top of this file). */
  private bulk = false;
  /** A large load into a ledger that has records: the first batch decides whether it is a bulk load. */
  private mayBulk = false;
  /** A row without a movement (a native file): a record it meets keeps its own. */
  private movementMissing = false;
  private knownWallets = new Set<string>();
  /** ledger_names, as far as this import has met it: a name's number. */
  private names = new Map<string, number>();
  private readonly stats: WriterStats = { added: 0, updated: 0, unchanged: 0, updates: [], walletsCreated: [], repeats: [] };
  /** The row at hand: its values as read (compared with a record's), and as bound (names as their numbers). */
  private readonly values: (string | number | null)[] = new Array<string | number | null>(N);
  private readonly params: (string | number | bigint | Buffer | null)[] = new Array<string | number | bigint | Buffer | null>(N + 1);
  private statements!: ReturnType<LedgerWriter['prepare']>;
  /**
   * The others' encoders (ids, hash, type, status), as ledger_rows keeps them (db/ledger-sql.ts),
   * by field; each writes into a buffer of its own that the next row's value overwrites: params
   * holds this row's values until the next row is read.
   */
  private readonly encoders = encodersByField();
  /** Keeps a record as it stands before this import updates it: made at the first update. */
  private snapshot: Database.Statement<[number]> | undefined;

  constructor(sqlite: Database.Database, opts: WriterOptions) {
    this.sqlite = sqlite;
    this.opts = opts;
  }

  /** Open the transaction (taking the write lock), and drop the secondary indexes for a bulk load. */
  begin(): void {
    const sqlite = this.sqlite;
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      this.base = (sqlite.prepare(`SELECT max(rowid) FROM ${LEDGER_TABLE}`).pluck().get() as number | null) ?? 0;
      this.knownWallets = new Set((sqlite.prepare('SELECT wallet_id FROM wallets').pluck().all() as string[]).map((w) => w.toLowerCase()));
      // The names stored so far; one a row brings that is not there yet is stored when met (nameNo).
      this.names = new Map(sqlite.prepare(`SELECT name, no FROM ${NAMES_TABLE}`).raw(true).all() as [string, number][]);
      sqlite.exec('CREATE TEMP TABLE IF NOT EXISTS ledger_import_seen (rowid INTEGER PRIMARY KEY, row_number INTEGER NOT NULL)');
      this.planIndexRebuild();
      for (const index of this.rebuild) sqlite.exec(`DROP INDEX ${q(index.name)}`);
      this.statements = this.prepare();
    } catch (err) {
      this.rollback();
      throw err;
    }
  }

  private planIndexRebuild(): void {
    const rows = this.opts.expectedRows;
    if (rows < (this.opts.rebuildMinRows ?? REBUILD_MIN_ROWS)) return;
    const existing = this.sqlite.prepare(`SELECT count(*) FROM ${LEDGER_TABLE}`).pluck().get() as number;
    if (existing > rows * REBUILD_MAX_SHARE) return;
    const indexes = this.sqlite
      .prepare(
        `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = '${LEDGER_TABLE}' AND sql IS NOT NULL ORDER BY name`,
      )
      .all() as IndexDef[];
    this.bulk = existing === 0;
    this.mayBulk = !this.bulk;
    // The unique index first: a repeat found while building it takes rows out before the others are built.
    this.rebuild = this.bulk
      ? [...indexes.filter((i) => i.name === ID_INDEX), ...indexes.filter((i) => i.name !== ID_INDEX)]
      : indexes.filter((i) => i.name !== ID_INDEX);
  }

  /**
   * The first batch of a large load into a ledger that has records: when none of its rows is a
   * record already, the file is taken for a file of new rows and loaded in bulk (the unique index
   * dropped too); otherwise row by row. Either way the result is the same; only the time differs.
   */
  private decideBulk(text: string): void {
    this.mayBulk = false;
    const { selectTx } = this.statements;
    for (let start = 0, end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
      const tab = text.indexOf('\t', start);
      if (selectTx.get(encodeIdValue(text.slice(start, tab))) !== undefined) return;
    }
    const id = this.sqlite
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name = ? AND sql IS NOT NULL")
      .get(ID_INDEX) as IndexDef | undefined;
    if (id === undefined) return;
    this.sqlite.exec(`DROP INDEX ${q(ID_INDEX)}`);
    this.rebuild.unshift(id);
    this.bulk = true;
    this.statements = this.prepare();
  }

  private prepare() {
    const sqlite = this.sqlite;
    // The import's id and time are the same on every row: literals, not parameters bound per row.
    const importNo = String(this.nameNo(this.opts.importId));
    const now = String(Math.trunc(this.opts.now));
    return {
      // Without the unique index (a bulk load) there is no conflict to name; a repeat is found at the end.
      insertTx: sqlite.prepare(
        `INSERT INTO ${LEDGER_TABLE} (rowid, ${ROW_COLUMNS}, import_no, updated_at) VALUES (${'?, '.repeat(N)}coalesce(?, 0), ${importNo}, ${now})${this.bulk ? '' : ' ON CONFLICT(tx_key) DO NOTHING'}`,
      ),
      // By the encoded transaction_id; the record's fields as the view gives them back, to compare with the row's.
      selectTx: sqlite.prepare(`SELECT rowid, ${RECORD_COLUMNS} FROM transactions t WHERE t.tx_key = ?`).raw(true),
      // Every field but transaction_id (it found the record); a movement not given keeps the record's.
      updateTx: sqlite.prepare(
        `UPDATE ${LEDGER_TABLE} SET ${STORED_FIELDS.slice(1)
          .map((f) => (f === 'movement' ? 'movement = coalesce(?, movement)' : `${columnOf(f)} = ?`))
          .join(', ')}, import_no = ${importNo}, updated_at = ${now} WHERE rowid = ?`,
      ),
      insertWallet: sqlite.prepare(
        `INSERT INTO wallets (wallet_id, name, created_at, updated_at) VALUES (?, '', ${now}, ${now}) ON CONFLICT(wallet_id) DO NOTHING`,
      ),
      seenGet: sqlite.prepare('SELECT row_number FROM temp.ledger_import_seen WHERE rowid = ?').pluck(),
      seenPut: sqlite.prepare('INSERT INTO temp.ledger_import_seen (rowid, row_number) VALUES (?, ?)'),
    };
  }

  /** Time in add (NPS_IMPORT_TIMINGS). */
  private addMs = 0;

  /** Apply a batch of lines (see the top of this file); text ends with a line break. */
  add(text: string): void {
    const t0 = TIMINGS ? performance.now() : 0;
    try {
      this.addRows(text);
    } finally {
      if (TIMINGS) this.addMs += performance.now() - t0;
    }
  }

  private addRows(text: string): void {
    if (this.mayBulk) this.decideBulk(text);
    const { insertTx, selectTx } = this.statements;
    const params = this.params;
    const stats = this.stats;
    const encoders = this.encoders;
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
      const cells = text.slice(start, end).split('\t');
      const rowNumber = Number(cells[N]);
      params[0] = this.base + rowNumber;
      const values = this.values;
      for (let i = 0; i < N; i++) {
        const v = cells[i]!;
        if (v === '') {
          values[i] = params[i + 1] = null;
          continue;
        }
        const value = (values[i] = IS_INTEGER[i] ? Number(v) : v);
        const encode = encoders[i];
        params[i + 1] = IS_NAMED[i] ? (this.names.get(v) ?? this.nameNo(v)) : encode ? encode(v) : value;
      }
      if (this.bulk) {
        if (values[N - 1] === null) this.movementMissing = true;
        if (!this.knownWallets.has(cells[WALLET]!)) this.createWallet(cells[WALLET]!);
        insertTx.run(params);
        stats.added++;
        continue;
      }
      const id = cells[0]!;
      let existing: (string | number | null)[] | undefined;
      if (!this.knownWallets.has(cells[WALLET]!)) {
        // A row that repeats an earlier one must not create its wallet: look before creating it.
        existing = selectTx.get(params[1]) as (string | number | null)[] | undefined;
        if (existing !== undefined && this.repeats(existing, rowNumber, id)) continue;
        this.createWallet(cells[WALLET]!);
        if (existing === undefined) {
          insertTx.run(params);
          stats.added++;
          continue;
        }
      } else {
        if (insertTx.run(params).changes === 1) {
          stats.added++;
          continue;
        }
        existing = selectTx.get(params[1]) as (string | number | null)[];
        if (this.repeats(existing, rowNumber, id)) continue;
      }
      this.compare(existing, cells, rowNumber);
    }
  }

  /** A name's number in ledger_names, the name stored first if it is not there yet. */
  private nameNo(name: string): number {
    let no = this.names.get(name);
    if (no === undefined) {
      // Prepared once an import: a file of many counterparties brings thousands of new names.
      const s = (this.nameStatements ??= {
        insert: this.sqlite.prepare(`INSERT OR IGNORE INTO ${NAMES_TABLE} (name) VALUES (?)`),
        select: this.sqlite.prepare(`SELECT no FROM ${NAMES_TABLE} WHERE name = ?`).pluck(),
      });
      s.insert.run(name);
      no = s.select.get(name) as number;
      this.names.set(detach(name), no);
    }
    return no;
  }
  private nameStatements: { insert: Database.Statement; select: Database.Statement } | undefined;

  private createWallet(wallet: string): void {
    const w = detach(wallet);
    this.knownWallets.add(w);
    this.stats.walletsCreated.push(w);
    this.statements.insertWallet.run(w);
  }

  /** Whether this row repeats an earlier row of the file (then it is rejected, pointing at that row). */
  private repeats(existing: (string | number | null)[], rowNumber: number, id: string): boolean {
    const rowid = existing[0] as number;
    let first: number | undefined;
    if (rowid > this.base) first = rowid - this.base;
    else {
      first = this.statements.seenGet.get(rowid) as number | undefined;
      if (first === undefined) this.statements.seenPut.run(rowid, rowNumber);
    }
    if (first === undefined) return false;
    this.stats.repeats.push({
      row_number: rowNumber,
      column: this.opts.idColumn,
      reason: `${id} already appears on data row ${first}; a record may appear once per file`,
      value: detach(id),
    });
    return true;
  }

  /** A record that existed before: unchanged, or updated with the fields that differ named. */
  private compare(existing: (string | number | null)[], cells: string[], rowNumber: number): void {
    const values = this.values;
    const stats = this.stats;
    let changed: string[] | undefined;
    for (let i = 1; i < N; i++) {
      // A movement not given (a native file, ids of its own) keeps the record's.
      if (existing[i + 1] !== values[i] && !(i === N - 1 && values[i] === null)) (changed ??= []).push(STORED_FIELDS[i]!);
    }
    if (changed === undefined) {
      stats.unchanged++;
      return;
    }
    stats.updated++;
    stats.updates.push({
      row_number: rowNumber,
      transaction_id: detach(cells[0]!),
      fields: changed,
      changes: changesOf(
        changed,
        (f) => existing[STORED_FIELDS.indexOf(f) + 1],
        (f) => values[STORED_FIELDS.indexOf(f)],
      ),
    });
    if (stats.updates.length >= 2 * MAX_REPORTED_UPDATES) keepFirstUpdates(stats.updates);
    this.keepPrevious(existing[0] as number);
    this.statements.updateTx.run(...this.params.slice(2), existing[0]);
  }

  /** Every row is in: rebuild the dropped indexes and say what the import did. */
  finish(): WriterStats {
    timing(`rows added in ${this.addMs.toFixed(0)} ms of the writer's thread`);
    let repeats = false;
    for (const index of this.rebuild) {
      const t = performance.now();
      if (this.bulk && index.name === ID_INDEX) repeats = this.buildIdIndex(index);
      else this.sqlite.exec(index.sql);
      timing(`${index.name} ${(performance.now() - t).toFixed(0)} ms`);
    }
    this.rebuild = [];
    if (repeats) this.dropWalletsOfRepeats();
    keepFirstUpdates(this.stats.updates);
    this.stats.walletsCreated.sort();
    return this.stats;
  }

  /**
   * A bulk load's unique index. When it cannot be built, rows of the file meet a record that
   * existed before, or repeat a transaction_id of the file: for each such transaction_id, the
   * file's first row updates the record that existed before (or leaves it unchanged) and is
   * deleted, or stays if there was none; every later row is deleted and rejected. Then the index is
   * built. Whether rows were deleted.
   */
  private buildIdIndex(index: IndexDef): boolean {
    try {
      this.sqlite.exec(index.sql);
      return false;
    } catch (err) {
      // Only the failed statement is undone; the transaction and its rows stay.
      if ((err as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw err;
    }
    const rows = this.sqlite
      .prepare(
        `SELECT rowid, ${decodeId('tx_key')} FROM ${LEDGER_TABLE} WHERE tx_key IN (SELECT tx_key FROM ${LEDGER_TABLE} GROUP BY tx_key HAVING count(*) > 1) ORDER BY tx_key, rowid`,
      )
      .raw(true)
      .all() as [number, string][];
    const remove = this.sqlite.prepare(`DELETE FROM ${LEDGER_TABLE} WHERE rowid = ?`);
    let firstId: string | undefined;
    let firstRow = 0;
    /** The record that existed before, of the transaction_id at hand: the file's first row is compared with it. */
    let before: number | undefined;
    for (const [rowid, id] of rows) {
      if (id !== firstId) {
        firstId = id;
        firstRow = 0;
        before = undefined;
      }
      if (rowid <= this.base) {
        before = rowid;
        continue;
      }
      if (firstRow === 0) {
        firstRow = rowid - this.base;
        if (before === undefined) continue;
        this.merge(before, rowid, id);
        remove.run(rowid);
        this.stats.added--;
        continue;
      }
      remove.run(rowid);
      this.stats.added--;
      this.stats.repeats.push({
        row_number: rowid - this.base,
        column: this.opts.idColumn,
        reason: `${id} already appears on data row ${firstRow}; a record may appear once per file`,
        value: id,
      });
    }
    this.sqlite.exec(index.sql);
    return true;
  }

  /** A row of a bulk load (rowid) that meets a record that existed before: unchanged, or the record updated from it (see compare). */
  private merge(record: number, rowid: number, id: string): void {
    const read = this.sqlite.prepare(`SELECT ${RECORD_COLUMNS} FROM transactions WHERE rowid = ?`).raw(true);
    const existing = read.get(record) as (string | number | null)[];
    const row = read.get(rowid) as (string | number | null)[];
    const changed: string[] = [];
    for (let i = 1; i < N; i++) {
      if (i === N - 1 && this.movementMissing) continue;
      if (existing[i] !== row[i]) changed.push(STORED_FIELDS[i]!);
    }
    if (changed.length === 0) {
      this.stats.unchanged++;
      return;
    }
    const stats = this.stats;
    stats.updated++;
    stats.updates.push({
      row_number: rowid - this.base,
      transaction_id: id,
      fields: changed,
      changes: changesOf(
        changed,
        (f) => existing[STORED_FIELDS.indexOf(f)],
        (f) => row[STORED_FIELDS.indexOf(f)],
      ),
    });
    if (stats.updates.length >= 2 * MAX_REPORTED_UPDATES) keepFirstUpdates(stats.updates);
    const columns = STORED_FIELDS.slice(1, this.movementMissing ? N - 1 : N)
      .map(columnOf)
      .join(', ');
    this.keepPrevious(record);
    this.sqlite
      .prepare(
        `UPDATE ${LEDGER_TABLE} SET (${columns}, import_no, updated_at) = (SELECT ${columns}, import_no, updated_at FROM ${LEDGER_TABLE} WHERE rowid = ?) WHERE rowid = ?`,
      )
      .run(rowid, record);
  }

  /**
   * Keep the record at rowid as it stands, before this import updates it (see the top of this
   * file). The import's own row in `imports` is written at the commit: the foreign key of
   * import_replaced is checked then.
   */
  private keepPrevious(rowid: number): void {
    if (this.snapshot === undefined) {
      this.sqlite.pragma('defer_foreign_keys = ON');
      this.snapshot = this.sqlite.prepare(snapshotSql(this.opts.importId));
    }
    this.snapshot.run(rowid);
  }

  /** A wallet is created by its first row that is kept: one whose only rows were repeats is not. */
  private dropWalletsOfRepeats(): void {
    const used = this.sqlite.prepare(`SELECT EXISTS (SELECT 1 FROM ${LEDGER_TABLE} WHERE wallet_no = ${nameNo('?')})`).pluck();
    const remove = this.sqlite.prepare('DELETE FROM wallets WHERE wallet_id = ?');
    this.stats.walletsCreated = this.stats.walletsCreated.filter((w) => {
      if (used.get(w) === 1) return true;
      remove.run(w);
      this.knownWallets.delete(w);
      return false;
    });
  }

  /** Record the import and commit. */
  commit(record: ImportRecord): void {
    recordImport(this.sqlite, record.summary, record.rejections, this.opts.fingerprint);
    if (record.address) {
      // The export's address becomes its wallet's on the chain (unless another wallet took it meanwhile).
      const a = record.address;
      this.sqlite
        .prepare(
          `INSERT OR IGNORE INTO wallet_addresses (wallet_id, chain_id, address, label, created_at) SELECT ?, ?, ?, '', ${Math.trunc(this.opts.now)} WHERE EXISTS (SELECT 1 FROM wallets WHERE wallet_id = ?)`,
        )
        .run(a.wallet_id, a.chain_id, a.address, a.wallet_id);
    }
    this.sqlite.exec('DROP TABLE temp.ledger_import_seen');
    this.sqlite.exec('COMMIT');
  }

  /** Leave the store as it was (a failure, a preview, or a file without a valid row). */
  rollback(): void {
    // The temporary table was created inside the transaction: it goes with it.
    if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
  }
}

/** The SQLite store's ledger, for the import: its writer on this connection. */
export const sqliteLedgerStore = (sqlite: Database.Database): LedgerStore => ({
  importWriter: (opts) => new LedgerWriter(sqlite, opts),
});

/**
 * NPS_IMPORT_TIMINGS=1: the reading's time, the writer's time in add and each index build, on
 * stderr (bench:import reads them). Written synchronously: on the import thread, process.stderr is
 * relayed through the main thread and a line can be lost when the process ends soon after the commit.
 */
const TIMINGS = process.env.NPS_IMPORT_TIMINGS === '1';
export function timing(what: string): void {
  if (TIMINGS) writeSync(2, `import timing: ${what}\n`);
}

/** The statement that copies a record (by rowid) into import_replaced: every field, as the view gives it back, as it is now. */
function snapshotSql(importId: string): string {
  const json = STORED_RECORD_FIELDS.map((f) => `'${f}', t.${q(f)}`).join(', ');
  return `INSERT INTO import_replaced (import_id, transaction_id, previous, previous_import_id)
    SELECT '${importId.replace(/'/g, "''")}', t.transaction_id, json_object(${json}), t.import_id FROM transactions t WHERE t.rowid = ?`;
}

/** What changed in each field named, as text (null: not recorded). */
function changesOf(
  fields: readonly string[],
  before: (field: (typeof STORED_FIELDS)[number]) => string | number | null | undefined,
  after: (field: (typeof STORED_FIELDS)[number]) => string | number | null | undefined,
): RowUpdate['changes'] {
  const text = (v: string | number | null | undefined) => (v === null || v === undefined ? null : detach(String(v)));
  return fields.map((f) => {
    const field = f as (typeof STORED_FIELDS)[number];
    return { field: f, before: text(before(field)), after: text(after(field)) };
  });
}

/** Rows arrive in file order, but the report lists the updates of the lowest row numbers whatever the order. */
function keepFirstUpdates(updates: RowUpdate[]): void {
  updates.sort((a, b) => a.row_number - b.row_number);
  if (updates.length > MAX_REPORTED_UPDATES) updates.length = MAX_REPORTED_UPDATES;
}

function recordImport(sqlite: Database.Database, summary: ImportSummary, rejections: Rejection[], fingerprint: string | undefined): void {
  sqlite
    .prepare(
      `INSERT INTO imports (import_id, file_name, file_sha256, file_size, format, preset, rows_total, added, updated, unchanged, rejected, started_at, finished_at, read_fingerprint, wallet_id, read_as)
       VALUES (@import_id, @file_name, @file_sha256, @file_size, @format, @preset, @rows_total, @added, @updated, @unchanged, @rejected, @started_at, @finished_at, @read_fingerprint, @wallet_id, @read_as)`,
    )
    .run({ ...summary, read_fingerprint: fingerprint ?? null, read_as: summary.read_as && JSON.stringify(summary.read_as) });
  const insert = sqlite.prepare('INSERT INTO import_rejections (import_id, row_number, "column", reason, value) VALUES (?, ?, ?, ?, ?)');
  for (const r of rejections) insert.run(summary.import_id, r.row_number, r.column, r.reason, r.value);
}

/*
 * The same file again. After an import of a file commits, every valid row of it is a record equal
 * to the row. Only imports and their undos write records: an import changes an existing record only
 * by updating it (counted in `updated`); an undo removes records or puts earlier versions back. So
 * while every import recorded since has updated nothing, and no import has been undone since (that
 * one included),
 * importing the same bytes read the same way again (the same fingerprint) finds every valid row
 * unchanged and rejects the same rows for the same reasons: its report is the earlier one's with
 * every kept row unchanged, and nothing is read or written but the import's own record.
 *
 * Rows rejected for an unknown token are read again (only they): the report lists those tokens,
 * with what their rows say of them (import-again.ts). A token added to the catalogue since changes
 * the fingerprint (it covers the catalogue), so then every row is read, and the token's rows land.
 */

/**
 * How an import reads its rows, hashed: the caller's parts (preset, mapping with the choices made,
 * wallet), the catalogue it checks them against, and the store's schema (a migration may rewrite
 * records). Maps are written as their entries.
 */
export function readFingerprint(sqlite: Database.Database, parts: Record<string, unknown>): string {
  const schema = sqlite.prepare('SELECT count(*) FROM __drizzle_migrations').pluck().get() as number;
  const json = JSON.stringify({ ...parts, schema, tz: process.versions.tz ?? null }, (_k, v: unknown) =>
    v instanceof Map ? [...(v as Map<unknown, unknown>).entries()] : v instanceof Set ? [...(v as Set<unknown>)].sort() : v,
  );
  return createHash('sha256').update(json).digest('hex');
}

interface EarlierImport {
  import_id: string;
  rows_total: number;
  kept: number;
  rejected: number;
}

const EARLIER_IMPORT = `
  SELECT i.import_id, i.rows_total, i.added + i.updated + i.unchanged AS kept, i.rejected
  FROM imports i
  WHERE i.read_fingerprint = @fingerprint AND i.file_size = @size AND (@sha256 IS NULL OR i.file_sha256 = @sha256)
    AND NOT EXISTS (SELECT 1 FROM imports j WHERE j.rowid > i.rowid AND j.updated > 0)
    AND NOT EXISTS (SELECT 1 FROM imports u WHERE u.undone_at IS NOT NULL AND (u.rowid >= i.rowid OR u.undone_at >= i.started_at))
  ORDER BY i.rowid DESC LIMIT 1`;

const UNKNOWN_TOKEN_ROWS = `SELECT row_number FROM import_rejections WHERE import_id = ? AND reason LIKE 'unknown token%' ORDER BY row_number`;

/**
 * Whether an import of a file of this size read this way could be repeated without reading it
 * (before hashing it): undefined when not, else the rows it rejected for an unknown token.
 */
export function mayRepeatImport(sqlite: Database.Database, fingerprint: string, size: number): number[] | undefined {
  const earlier = sqlite.prepare(EARLIER_IMPORT).get({ fingerprint, size, sha256: null }) as EarlierImport | undefined;
  return earlier && (sqlite.prepare(UNKNOWN_TOKEN_ROWS).pluck().all(earlier.import_id) as number[]);
}

export interface RepeatedImport {
  rowsTotal: number;
  unchanged: number;
  rejections: Rejection[];
}

/**
 * The same file read the same way as an earlier import, with no import having updated a record
 * since (see above): what importing it again does, and unless `summary` is null (a preview),
 * the import recorded with the earlier one's rejections. Undefined when it cannot be told so.
 * Synchronous: call it when no import holds the write lock.
 */
export function repeatImport(
  sqlite: Database.Database,
  find: { fingerprint: string; size: number; sha256: string; unknownTokenRows: readonly number[] },
  summary: ((earlier: RepeatedImport) => ImportSummary) | null,
): RepeatedImport | undefined {
  const { fingerprint, size, sha256 } = find;
  const earlier = sqlite.prepare(EARLIER_IMPORT).get({ fingerprint, size, sha256 }) as EarlierImport | undefined;
  if (earlier === undefined) return undefined;
  // The unknown tokens were read from the rows mayRepeatImport named: they must be this import's.
  const unknownTokenRows = sqlite.prepare(UNKNOWN_TOKEN_ROWS).pluck().all(earlier.import_id) as number[];
  if (unknownTokenRows.join() !== find.unknownTokenRows.join()) return undefined;
  const rejections = sqlite
    .prepare('SELECT row_number, "column", reason, value FROM import_rejections WHERE import_id = ? ORDER BY row_number, id')
    .all(earlier.import_id) as Rejection[];
  const repeated: RepeatedImport = { rowsTotal: earlier.rows_total, unchanged: earlier.kept, rejections };
  if (summary) {
    const s = summary(repeated);
    sqlite.transaction(() => {
      recordImport(sqlite, s, [], find.fingerprint);
      sqlite
        .prepare(
          'INSERT INTO import_rejections (import_id, row_number, "column", reason, value) SELECT ?, row_number, "column", reason, value FROM import_rejections WHERE import_id = ? ORDER BY row_number, id',
        )
        .run(s.import_id, earlier.import_id);
    })();
  }
  return repeated;
}
