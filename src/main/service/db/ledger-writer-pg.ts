import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Rejection, RowUpdate } from '../../../shared/ledger';
import { LEDGER_FIELDS, MAX_REPORTED_UPDATES } from '../../../shared/ledger';
import { decodeKey, decodeRow, keyHex, STORED_ROW_COLUMNS, type StoredRecord } from './ledger-pg';
import { columnOf, LEDGER_TABLE, NAMED_FIELDS, NAMES_TABLE, reusingValueEncoders, type StoredRecordField } from './ledger-sql';
import type { ImportRecord, LedgerImportWriter, LedgerStore, WriterOptions, WriterStats } from './ledger-writer';

/*
 * The import's write on PostgreSQL (team mode, docs/team.md): the same lines, answers and store
 * changes as the SQLite writer (ledger/import-repository.ts), in one transaction on one client of
 * the pool, so the store changes all at once or not at all, a connection lost midway included.
 *
 * The rows are not written one statement each (a round trip a row): every line, encoded as
 * db/ledger-pg.ts keeps a record, goes by one `COPY ... FROM STDIN` into a temporary table of the
 * transaction (into an empty ledger, straight into the table that takes its place, below); when
 * every row is in, a few statements over the whole set do what the SQLite writer does a row at a
 * time:
 *   1. of the rows sharing a transaction_id, the first of the file stays; every later one is taken
 *      out and rejected, naming the first's row number;
 *   2. the rows whose transaction_id is a record already are compared with it, field by field
 *      (a movement not given keeps the record's): unchanged, or updated, the record as it stood
 *      kept for the undo (import_replaced, the same JSON the SQLite writer keeps);
 *   3. the others are added, each with rowid = (highest rowid before the import) + row number.
 * The ledger's indexes are not dropped and built again as SQLite's bulk load does: on PostgreSQL
 * dropping an index locks the table against every reader until the commit, and the store is
 * shared. A few new rows are added to ledger_rows, its indexes updated; into an empty ledger, or
 * many new rows (as many as SQLite's writer rebuilds its indexes for), the ledger and the rows go
 * into a table of their own, indexed once by a sort, which then takes the ledger's place
 * (replaceLedger). The import holds ledger_rows in EXCLUSIVE mode from its start: readers go on
 * reading the ledger as committed, a second import (or anything else that writes it) waits for the
 * commit.
 */

/** A row's values: the record's fields, then which movement of its transaction it is ('' for a native file: the record's stays). */
const STORED_FIELDS = [...LEDGER_FIELDS, 'movement'] as const;
const N = STORED_FIELDS.length;
const INTEGER_FIELDS = new Set(['created_at', 'confirmed_at', 'completed_at', 'movement']);
const NAMED = new Set<string>(NAMED_FIELDS);
const KEYED = new Set(['transaction_id', 'type', 'status', 'hash', 'request_id']);
const KEY = 0;
const NAME = 1;
const INTEGER_KIND = 2;
const TEXT = 3;
/** How each field's text becomes its cell of COPY's text format. */
const KIND = STORED_FIELDS.map((f) => (KEYED.has(f) ? KEY : NAMED.has(f) ? NAME : INTEGER_FIELDS.has(f) ? INTEGER_KIND : TEXT));
const WALLET = LEDGER_FIELDS.indexOf('wallet_id');

const STAGE = 'ledger_import_rows';
const MATCHED = 'ledger_import_matched';
const REPLACED = 'ledger_import_replaced';
/** The table, loaded apart, that takes the ledger's place (replaceLedger). */
const LOAD = 'ledger_rows_load';
const pgIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
/** ledger_rows' columns of a row's values, in STORED_FIELDS order. */
const ROW_COLUMNS = STORED_FIELDS.map((f) => columnOf(f as StoredRecordField));
/** What the work of the merge may take of the server's memory before it spills to disk. */
const WORK_MEM = '64MB';
/**
 * From this many new rows on, when the ledger holds at most REBUILD_MAX_SHARE times as many, the
 * ledger is loaded again with them and indexed once (replaceLedger) rather than its indexes updated
 * a row at a time: the SQLite writer's thresholds for rebuilding its indexes.
 */
const REBUILD_MIN_ROWS = 50_000;
const REBUILD_MAX_SHARE = 8;
/** Updated records read back at a time, to keep them for the undo. */
const PAGE = 5000;

/** NPS_IMPORT_TIMINGS=1: the writer's time in its adds and each step of finish, on stderr (as the SQLite writer's). */
const TIMINGS = process.env.NPS_IMPORT_TIMINGS === '1';
function timing(what: string): void {
  if (TIMINGS) writeSync(2, `import timing: ${what}\n`);
}

/** A line the writer cannot take: its row and field named, and why. */
export class LedgerLineError extends Error {
  constructor(
    readonly rowNumber: number | undefined,
    readonly field: string | undefined,
    reason: string,
  ) {
    super(`${rowNumber === undefined ? 'a line' : `data row ${rowNumber}`}${field === undefined ? '' : `, ${field}`}: ${reason}`);
    this.name = 'LedgerLineError';
  }
}

/** A value of COPY's text format: a backslash doubled, a carriage return escaped (a tab or line break cannot occur). */
const copyText = (v: string): string => (v.includes('\\') || v.includes('\r') ? v.replace(/\\/g, '\\\\').replace(/\r/g, '\\r') : v);

/** Up to 15 digits: always a safe integer; 16 are checked. */
const INTEGER = /^-?[0-9]{1,15}$/;
const INTEGER_16 = /^-?[0-9]{16}$/;

export class PostgresLedgerWriter implements LedgerImportWriter {
  private client: pg.PoolClient | undefined;
  private base = 0;
  /** Whether the ledger held a record before the import: else no row can match one. */
  private hadRecords = false;
  private importNo = 0;
  private knownWallets = new Set<string>();
  private names = new Map<string, number>();
  /** The names this import's rows brought, as the text of their numbers. */
  private readonly nameText = new Map<string, string>();
  /** Wallets the rows name that the store does not hold: created if a row of theirs is kept. */
  private newWallets = new Map<string, number>();
  private copy: Writable | undefined;
  private copyDone: Promise<void> | undefined;
  private readonly encoders = STORED_FIELDS.map((f) => reusingValueEncoders()[f as StoredRecordField]);
  private readonly stats: WriterStats = { added: 0, updated: 0, unchanged: 0, updates: [], walletsCreated: [], repeats: [] };
  private replaced = 0;
  /** Rows the file brought (copied in). */
  private staged = 0;
  /**
   * The rows are copied straight into the table that takes the ledger's place (an empty ledger:
   * replaceLedger), as ledger_rows holds them (rowid, movement 0 when not given, the import and
   * its time), rather than into the transaction's table of rows to merge.
   */
  private direct = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: WriterOptions,
  ) {}

  private get db(): pg.PoolClient {
    if (this.lost) throw this.lost;
    if (this.client === undefined) throw new Error('the import is not under way: begin first, and nothing after commit or rollback');
    return this.client;
  }

  /** The connection's failure, told by the client outside any query (the server ended it): the import fails with it. */
  private readonly onClientError = (err: Error) => {
    this.lost ??= err;
  };
  private lost: Error | undefined;

  async begin(): Promise<void> {
    this.client = await this.pool.connect();
    const db = this.client;
    db.on('error', this.onClientError);
    try {
      await db.query('BEGIN');
      await db.query(`SET LOCAL work_mem = '${WORK_MEM}'`);
      await db.query(`LOCK TABLE ${LEDGER_TABLE} IN EXCLUSIVE MODE`);
      const { rows } = await db.query<{ base: number | null; any: boolean }>(
        `SELECT max(rowid) AS base, EXISTS (SELECT 1 FROM ${LEDGER_TABLE}) AS any FROM ${LEDGER_TABLE}`,
      );
      this.base = rows[0]!.base ?? 0;
      this.hadRecords = rows[0]!.any;
      this.knownWallets = new Set((await db.query<{ w: string }>('SELECT wallet_id AS w FROM wallets')).rows.map((r) => r.w.toLowerCase()));
      this.names = new Map((await db.query<[string, number]>({ text: `SELECT name, no FROM ${NAMES_TABLE}`, rowMode: 'array' })).rows);
      await this.intern([this.opts.importId]);
      this.importNo = this.names.get(this.opts.importId)!;
      // Into an empty ledger, the rows go straight into the table that is to take its place.
      this.direct = !this.hadRecords && (await this.mayReplaceLedger());
      if (!this.direct) {
        await db.query(
          `CREATE TEMP TABLE ${STAGE} ON COMMIT DROP AS SELECT 0::bigint AS row_number, ${ROW_COLUMNS.join(', ')} FROM ${LEDGER_TABLE} WITH NO DATA`,
        );
      }
    } catch (err) {
      await this.rollback();
      throw err;
    }
  }

  /** Store the names not held yet (they number as they come) and learn their numbers. Not while a COPY is open. */
  private async intern(names: string[]): Promise<void> {
    await this.db.query(`INSERT INTO ${NAMES_TABLE} (name) SELECT unnest($1::text[]) ON CONFLICT (name) DO NOTHING`, [names]);
    const { rows } = await this.db.query<[string, number]>({
      text: `SELECT name, no FROM ${NAMES_TABLE} WHERE name = ANY ($1::text[])`,
      values: [names],
      rowMode: 'array',
    });
    for (const [name, no] of rows) this.names.set(name, no);
  }

  /** Time in add (NPS_IMPORT_TIMINGS). */
  private addMs = 0;

  async add(text: string): Promise<void> {
    const t0 = TIMINGS ? performance.now() : 0;
    try {
      await this.addRows(text);
    } finally {
      if (TIMINGS) this.addMs += performance.now() - t0;
    }
  }

  private async addRows(text: string): Promise<void> {
    if (text.includes('\0')) this.refuseNul(text);
    const out: string[] = [];
    const cells = new Array<string>(N + 1);
    for (let start = 0, end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
      const split = text.slice(start, end).split('\t');
      if (split.length !== N + 1) throw new LedgerLineError(undefined, undefined, `has ${split.length} values, not ${N + 1}`);
      const rowNumber = Number(split[N]);
      if (!Number.isSafeInteger(rowNumber) || rowNumber < 1)
        throw new LedgerLineError(undefined, 'row_number', `"${split[N]}" is no row number`);
      cells[0] = this.direct ? String(this.base + rowNumber) : split[N]!;
      for (let i = 0; i < N; i++) {
        const v = split[i]!;
        if (v === '') {
          cells[i + 1] = this.direct && i === N - 1 ? '0' : '\\N';
          continue;
        }
        switch (KIND[i]) {
          case KEY:
            cells[i + 1] = `\\\\x${keyHex(this.encoders[i]!(v))}`;
            break;
          case NAME: {
            let no = this.nameText.get(v);
            if (no === undefined) {
              if (!this.names.has(v)) {
                await this.endCopy();
                await this.intern([v]);
              }
              no = String(this.names.get(v));
              this.nameText.set(v, no);
            }
            if (i === WALLET && !this.knownWallets.has(v)) this.newWallets.set(v, Number(no));
            cells[i + 1] = no;
            break;
          }
          case INTEGER_KIND:
            if (!INTEGER.test(v) && !(INTEGER_16.test(v) && Number.isSafeInteger(Number(v))))
              throw new LedgerLineError(rowNumber, STORED_FIELDS[i], `"${v}" is no integer`);
            cells[i + 1] = v;
            break;
          default:
            cells[i + 1] = copyText(v);
        }
      }
      out.push(this.direct ? `${cells.join('\t')}\t${this.importNo}\t${Math.trunc(this.opts.now)}` : cells.join('\t'));
    }
    if (out.length === 0) return;
    this.staged += out.length;
    out.push('');
    await this.write(out.join('\n'));
  }

  /** PostgreSQL's text cannot hold U+0000: a line that has one in a text is refused, naming it. */
  private refuseNul(text: string): never {
    const line = text.slice(text.lastIndexOf('\n', text.indexOf('\0')) + 1).split('\n')[0]!;
    const split = line.split('\t');
    const i = split.findIndex((v) => v.includes('\0'));
    throw new LedgerLineError(
      Number(split[N]) || undefined,
      STORED_FIELDS[i],
      'holds the character U+0000, which the PostgreSQL store cannot keep in a text',
    );
  }

  private async write(chunk: string): Promise<void> {
    if (this.copy === undefined) {
      const stream = this.db.query(
        copyFrom(
          this.direct
            ? `COPY ${LOAD} (rowid, ${ROW_COLUMNS.join(', ')}, import_no, updated_at) FROM STDIN`
            : `COPY ${STAGE} (row_number, ${ROW_COLUMNS.join(', ')}) FROM STDIN`,
        ),
      );
      this.copy = stream;
      this.copyDone = new Promise<void>((resolve, reject) => {
        stream.on('finish', resolve);
        stream.on('error', reject);
      });
      // A failure is told by copyDone, awaited at the latest when the rows are in.
      this.copyDone.catch(() => undefined);
    }
    if (!this.copy.write(chunk)) {
      const copy = this.copy;
      await Promise.race([new Promise((resolve) => copy.once('drain', resolve)), this.copyDone]);
    }
  }

  private async endCopy(): Promise<void> {
    const copy = this.copy;
    if (copy === undefined) return;
    this.copy = undefined;
    copy.end();
    await this.copyDone;
  }

  async finish(): Promise<WriterStats> {
    await this.endCopy();
    timing(`rows copied in ${this.addMs.toFixed(0)} ms of adds`);
    const db = this.db;
    const stats = this.stats;
    let t = performance.now();
    const step = (what: string) => {
      timing(`${what} ${(performance.now() - t).toFixed(0)} ms`);
      t = performance.now();
    };
    if (this.direct) {
      await this.takeOutRepeats(LOAD, 'rowid', this.base);
      step('repeats');
      stats.added = this.staged - stats.repeats.length;
      await this.createWallets(LOAD);
      await this.replaceLedger();
      step('ledger replaced');
      return this.finished();
    }
    await this.takeOutRepeats(STAGE, 'row_number', 0);
    step('repeats');
    if (this.hadRecords) {
      // The planner's counts of the rows in, for the join with the ledger.
      await db.query(`ANALYZE ${STAGE}`);
      await this.matchRecords();
      step('records met');
    }
    const into = this.hadRecords && (await this.mayReplaceLedger()) ? LOAD : LEDGER_TABLE;
    if (into === LOAD && this.hadRecords) {
      // The ledger's records first (those this import updated, as updated), under their rowids.
      const all = ['rowid', ...ROW_COLUMNS, 'import_no', 'updated_at'].join(', ');
      await db.query(`INSERT INTO ${LOAD} (${all}) SELECT ${all} FROM ${LEDGER_TABLE}`);
      step('records copied');
    }
    const added = await db.query(
      `INSERT INTO ${into} (rowid, ${ROW_COLUMNS.join(', ')}, import_no, updated_at)
       SELECT ${this.base} + s.row_number, ${ROW_COLUMNS.map((c) => (c === '"movement"' ? 'coalesce(s.movement, 0)' : `s.${c}`)).join(', ')}, ${this.importNo}, ${Math.trunc(this.opts.now)}
       FROM ${STAGE} s${this.hadRecords ? ` WHERE NOT EXISTS (SELECT 1 FROM ${MATCHED} m WHERE m.row_number = s.row_number)` : ''}`,
    );
    step('rows added');
    if (into === LOAD) {
      await this.replaceLedger();
      step('ledger replaced');
    }
    stats.added = added.rowCount ?? 0;
    await this.createWallets(STAGE);
    return this.finished();
  }

  private finished(): WriterStats {
    const stats = this.stats;
    stats.updates.sort((a, b) => a.row_number - b.row_number);
    stats.repeats.sort((a, b) => a.row_number - b.row_number);
    stats.walletsCreated.sort();
    return stats;
  }

  /**
   * Whether the ledger is to be replaced by a table loaded apart (replaceLedger), and if so that
   * table made: when it is empty, or the import brings at least rebuildMinRows new rows and the
   * ledger holds at most REBUILD_MAX_SHARE times as many (as the SQLite writer rebuilds its indexes
   * then); and this role owns it (only an owner may drop it), and nothing else is built on it.
   */
  private async mayReplaceLedger(): Promise<boolean> {
    if (this.hadRecords) {
      const newRows = this.staged - this.stats.repeats.length - this.stats.updated - this.stats.unchanged;
      if (newRows < (this.opts.rebuildMinRows ?? REBUILD_MIN_ROWS)) return false;
      const { rows } = await this.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${LEDGER_TABLE}`);
      if (rows[0]!.n > newRows * REBUILD_MAX_SHARE) return false;
    }
    const { rows } = await this.db.query<{ ok: boolean }>(
      `SELECT c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.refobjid = c.oid AND d.classid = 'pg_rewrite'::regclass)
         AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.confrelid = c.oid) AS ok
       FROM pg_class c WHERE c.oid = '${LEDGER_TABLE}'::regclass`,
    );
    if (!rows[0]!.ok) return false;
    await this.db.query(`CREATE TABLE ${LOAD} (LIKE ${LEDGER_TABLE} INCLUDING ALL EXCLUDING INDEXES)`);
    return true;
  }

  /**
   * The ledger's rows and the import's new ones went into a table of the same columns without an
   * index (LOAD), whose indexes are now built once each, by a sort, rather than updated a row at a
   * time (several times the work). Then it takes the ledger's place: the ledger's table is dropped
   * and this one takes its name, its indexes', its identity's and its grants. The ledger is locked
   * against readers only from the drop to the commit, an instant: they read the ledger as it was
   * meanwhile, or wait that instant. Dropping the indexes of ledger_rows itself would lock them out
   * for the whole import.
   */
  private async replaceLedger(): Promise<void> {
    const db = this.db;
    const { rows: indexes } = await db.query<{ name: string; def: string }>(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename = '${LEDGER_TABLE}' ORDER BY indexname`,
    );
    for (const { name, def } of indexes) {
      const t = performance.now();
      const on = def.indexOf(` ON `);
      const head = def.slice(0, on);
      const rest = def.slice(on).replace(/^ ON (\S+\.)?ledger_rows /, (_m, schema: string | undefined) => ` ON ${schema ?? ''}${LOAD} `);
      await db.query(`${head.slice(0, head.lastIndexOf(' '))} ${pgIdent(`${name}_load`)}${rest}`);
      timing(`${name} ${(performance.now() - t).toFixed(0)} ms`);
    }
    const { rows: grants } = await db.query<{ grantee: string; privilege: string }>(
      `SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END AS grantee, a.privilege_type AS privilege
       FROM pg_class c, aclexplode(c.relacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee
       WHERE c.oid = '${LEDGER_TABLE}'::regclass AND a.grantee <> c.relowner`,
    );
    for (const g of grants) await db.query(`GRANT ${g.privilege} ON ${LOAD} TO ${g.grantee}`);
    await db.query(`DROP TABLE ${LEDGER_TABLE}`);
    await db.query(`ALTER TABLE ${LOAD} RENAME TO ${LEDGER_TABLE}`);
    for (const { name } of indexes) await db.query(`ALTER INDEX ${pgIdent(`${name}_load`)} RENAME TO ${pgIdent(name)}`);
    const { rows: seq } = await db.query<{ seq: string }>(`SELECT pg_get_serial_sequence('${LEDGER_TABLE}', 'rowid') AS seq`);
    await db.query(`ALTER SEQUENCE ${seq[0]!.seq} RENAME TO ${LEDGER_TABLE}_rowid_seq`);
  }

  /**
   * Of the rows sharing a transaction_id, every one after the file's first is taken out of `table`
   * and rejected; `order` is its column that orders the rows as the file did, `offset` its value
   * less the row number.
   */
  private async takeOutRepeats(table: string, order: string, offset: number): Promise<void> {
    const { rows } = await this.db.query<[number, Buffer, number]>({
      text: `WITH firsts AS (SELECT tx_key, min(${order}) AS first FROM ${table} GROUP BY tx_key HAVING count(*) > 1)
             DELETE FROM ${table} s USING firsts f WHERE s.tx_key = f.tx_key AND s.${order} > f.first
             RETURNING s.${order} - ${offset}, s.tx_key, f.first - ${offset}`,
      rowMode: 'array',
    });
    for (const [rowNumber, key, first] of rows) {
      const id = decodeKey('transaction_id', key)!;
      this.stats.repeats.push({
        row_number: rowNumber,
        column: this.opts.idColumn,
        reason: `${id} already appears on data row ${first}; a record may appear once per file`,
        value: id,
      });
    }
  }

  /**
   * The rows that are records already: unchanged, or the record updated (every field but
   * transaction_id; a movement not given keeps the record's), kept first as it stood.
   */
  private async matchRecords(): Promise<void> {
    const db = this.db;
    const differs = STORED_FIELDS.slice(1).map((f, i) => {
      const c = ROW_COLUMNS[i + 1]!;
      return f === 'movement' ? `(s.${c} IS NOT NULL AND s.${c} <> r.${c})` : `s.${c} IS DISTINCT FROM r.${c}`;
    });
    await db.query(
      `CREATE TEMP TABLE ${MATCHED} ON COMMIT DROP AS
       SELECT s.row_number, r.rowid AS record, (${differs.join(' OR ')}) AS changed
       FROM ${STAGE} s JOIN ${LEDGER_TABLE} r ON r.tx_key = s.tx_key`,
    );
    const { rows } = await db.query<{ changed: boolean; n: number }>(`SELECT changed, count(*)::int AS n FROM ${MATCHED} GROUP BY changed`);
    for (const r of rows) {
      if (r.changed) this.stats.updated = r.n;
      else this.stats.unchanged = r.n;
    }
    if (this.stats.updated === 0) return;
    await db.query(`CREATE INDEX ON ${MATCHED} (row_number) WHERE changed`);
    await db.query(`CREATE TEMP TABLE ${REPLACED} (transaction_id text, previous text, previous_import_id text) ON COMMIT DROP`);
    const names = new Map([...this.names].map(([name, no]) => [no, name]));
    // The records as they stand, page by page in row order: the first updates reported, every one kept for the undo.
    let after = 0;
    for (;;) {
      const page = await db.query<unknown[]>({
        text: `SELECT m.row_number, ${STORED_ROW_COLUMNS.map((c) => `r.${c}`).join(', ')}, ${ROW_COLUMNS.map((c) => `s.${c}`).join(', ')}
               FROM ${MATCHED} m JOIN ${LEDGER_TABLE} r ON r.rowid = m.record JOIN ${STAGE} s ON s.row_number = m.row_number
               WHERE m.changed AND m.row_number > $1 ORDER BY m.row_number LIMIT ${PAGE}`,
        values: [after],
        rowMode: 'array',
      });
      if (page.rows.length === 0) break;
      const kept: string[] = [];
      for (const row of page.rows) {
        after = row[0] as number;
        const before = decodeRow(row.slice(1), names);
        kept.push(
          [before.transaction_id, JSON.stringify(before), before.import_id]
            .map((v) => (v === null ? '\\N' : copyText(String(v))))
            .join('\t'),
        );
        if (this.stats.updates.length < MAX_REPORTED_UPDATES) {
          this.stats.updates.push(this.update(after, before, row.slice(1 + STORED_ROW_COLUMNS.length), names));
        }
      }
      await this.copyInto(REPLACED, kept);
      this.replaced += kept.length;
    }
    await db.query(
      `UPDATE ${LEDGER_TABLE} r SET ${ROW_COLUMNS.slice(1)
        .map((c) => (c === '"movement"' ? `${c} = coalesce(s.${c}, r.${c})` : `${c} = s.${c}`))
        .join(', ')}, import_no = ${this.importNo}, updated_at = ${Math.trunc(this.opts.now)}
       FROM ${MATCHED} m JOIN ${STAGE} s ON s.row_number = m.row_number
       WHERE m.changed AND r.rowid = m.record`,
    );
  }

  /** An updated record as reported: the fields that differ, each before and after as text (`row`: the file's, ROW_COLUMNS). */
  private update(rowNumber: number, before: StoredRecord, row: unknown[], names: Map<number, string>): RowUpdate {
    const movement = row[N - 1] as number | null;
    // As a stored record: the row's fields, no import or time of its own yet, its movement.
    const after = decodeRow([...row.slice(0, N - 1), null, null, movement], names);
    const changed = STORED_FIELDS.slice(1).filter((f) =>
      f === 'movement' ? movement !== null && movement !== before.movement : after[f] !== before[f],
    );
    const text = (v: string | number | null) => (v === null ? null : String(v));
    return {
      row_number: rowNumber,
      transaction_id: before.transaction_id as string,
      fields: changed,
      changes: changed.map((f) => ({ field: f, before: text(before[f]), after: text(after[f]) })),
    };
  }

  private async copyInto(table: string, lines: string[]): Promise<void> {
    const stream = this.db.query(copyFrom(`COPY ${table} FROM STDIN`));
    await new Promise<void>((resolve, reject) => {
      stream.on('finish', resolve);
      stream.on('error', reject);
      stream.end(`${lines.join('\n')}\n`);
    });
  }

  /** A wallet the store does not hold is created by the first of its rows that is kept; one whose only rows were repeats is not. */
  private async createWallets(table: string): Promise<void> {
    if (this.newWallets.size === 0) return;
    const { rows } = await this.db.query<{ w: number }>(
      `SELECT DISTINCT wallet_no AS w FROM ${table} WHERE wallet_no = ANY ($1::bigint[])`,
      [[...this.newWallets.values()]],
    );
    const used = new Set(rows.map((r) => r.w));
    const created = [...this.newWallets].filter(([, no]) => used.has(no)).map(([w]) => w);
    if (created.length === 0) return;
    const now = Math.trunc(this.opts.now);
    await this.db.query(
      `INSERT INTO wallets (wallet_id, name, created_at, updated_at) SELECT unnest($1::text[]), '', ${now}, ${now} ON CONFLICT (wallet_id) DO NOTHING`,
      [created],
    );
    this.stats.walletsCreated = created;
  }

  async commit(record: ImportRecord): Promise<void> {
    const db = this.db;
    const { summary: s, rejections } = record;
    await db.query(
      `INSERT INTO imports (import_id, file_name, file_sha256, file_size, format, preset, rows_total, added, updated, unchanged, rejected, started_at, finished_at, read_fingerprint, wallet_id, read_as)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        s.import_id,
        s.file_name,
        s.file_sha256,
        s.file_size,
        s.format,
        s.preset,
        s.rows_total,
        s.added,
        s.updated,
        s.unchanged,
        s.rejected,
        s.started_at,
        s.finished_at,
        this.opts.fingerprint ?? null,
        s.wallet_id,
        s.read_as && JSON.stringify(s.read_as),
      ],
    );
    if (rejections.length > 0) await this.recordRejections(s.import_id, rejections);
    if (this.replaced > 0) {
      await db.query(
        `INSERT INTO import_replaced (import_id, transaction_id, previous, previous_import_id) SELECT $1, transaction_id, previous, previous_import_id FROM ${REPLACED}`,
        [this.opts.importId],
      );
    }
    if (record.address) {
      // The export's address becomes its wallet's on the chain (unless another wallet took it meanwhile).
      const a = record.address;
      await db.query(
        `INSERT INTO wallet_addresses (wallet_id, chain_id, address, label, created_at) SELECT $1, $2, $3, '', $4 WHERE EXISTS (SELECT 1 FROM wallets WHERE wallet_id = $1) ON CONFLICT DO NOTHING`,
        [a.wallet_id, a.chain_id, a.address, Math.trunc(this.opts.now)],
      );
    }
    // Rows carry their rowids; the identity goes on above them, as SQLite's next rowid would.
    if (this.stats.added > 0) {
      await db.query(`SELECT setval(pg_get_serial_sequence('${LEDGER_TABLE}', 'rowid'), (SELECT max(rowid) FROM ${LEDGER_TABLE}))`);
    }
    await db.query('COMMIT');
    this.release();
  }

  private async recordRejections(importId: string, rejections: Rejection[]): Promise<void> {
    await this.db.query(
      `INSERT INTO import_rejections (import_id, row_number, "column", reason, value)
       SELECT $1, r.n, r.c, r.reason, r.v FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS r(n, c, reason, v, o) ORDER BY r.o`,
      [
        importId,
        rejections.map((r) => r.row_number),
        rejections.map((r) => r.column),
        rejections.map((r) => r.reason),
        rejections.map((r) => r.value),
      ],
    );
  }

  async rollback(): Promise<void> {
    const client = this.client;
    if (client === undefined) return;
    this.client = undefined;
    this.copy?.destroy();
    this.copy = undefined;
    try {
      if (this.lost) throw this.lost;
      await client.query('ROLLBACK');
      client.off('error', this.onClientError);
      client.release();
    } catch (err) {
      // A connection that broke midway: the server has rolled back; the client is thrown away.
      client.release(err as Error);
    }
  }

  private release(): void {
    this.client?.off('error', this.onClientError);
    this.client?.release();
    this.client = undefined;
  }
}

/** The PostgreSQL store's ledger, for the import. */
export const postgresLedgerStore = (pool: pg.Pool): LedgerStore => ({
  importWriter: (opts) => new PostgresLedgerWriter(pool, opts),
});
