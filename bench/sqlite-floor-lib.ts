import Database from 'better-sqlite3';
import { LEDGER_TABLE } from '../src/main/service/db/ledger-sql';

/*
 * SQLite's own floor for holding a ledger in the store's format (bench:sqlite-floor, and
 * bench:import in the same run as the imports): records copied from JavaScript into a new file,
 * one prepared INSERT a row as the import's writer does, under the writer's settings, then each
 * index built. Read from a store the service wrote (already encoded), in batches read before they
 * are timed: what is timed is SQLite's inserting and index building only.
 */

export interface Format {
  /** The table's name and its CREATE TABLE. */
  name: string;
  table: string;
  /** The source's table and columns the rows are read from (in `columns` order once encoded). */
  from: string;
  read: readonly string[];
  indexes: { name: string; sql: string }[];
  columns: readonly string[];
  encode: (row: unknown[]) => unknown[];
}

/** The store's own table, `ledger_rows`, and its indexes, as the service's store at `source` has them; rows copied as stored. */
export function storeFormat(source: string): Format {
  const client = new Database(source, { readonly: true });
  try {
    const storedColumns = client.prepare(`SELECT name FROM pragma_table_info('${LEDGER_TABLE}') ORDER BY cid`).pluck().all() as string[];
    return {
      name: LEDGER_TABLE,
      table: client.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(LEDGER_TABLE) as string,
      from: LEDGER_TABLE,
      read: storedColumns,
      indexes: client
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name")
        .all(LEDGER_TABLE) as { name: string; sql: string }[],
      columns: storedColumns,
      encode: (r) => r,
    };
  } finally {
    client.close();
  }
}

/** A new file for the floor, with the import writer's settings (`cacheMib`: its page cache, 16 as the writer's). */
export function openFloorFile(file: string, pageSize = 4096, cacheMib = 16): Database.Database {
  const db = new Database(file);
  db.pragma(`page_size = ${pageSize}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // As the import's writer: a 16 MiB cache (or cacheMib), the sorter spilling to files with one helper thread.
  db.pragma(`cache_size = -${cacheMib * 1024}`);
  db.pragma('temp_store = FILE');
  db.pragma('threads = 1');
  db.pragma('wal_autocheckpoint = 0');
  // The wallets table is not copied: the reference to it is not what is measured.
  db.pragma('foreign_keys = OFF');
  return db;
}

export interface Load {
  insertMs: number;
  builds: [string, number][];
  commitMs: number;
  checkpointMs: number;
}

/** The floor of a load: the insert, then the indexes built (not the commit nor the checkpoint, as bench:sqlite-floor has always counted it). */
export const floorMs = (l: Load): number => l.insertMs + l.builds.reduce((n, [, ms]) => n + ms, 0);

/** Copy the source's records with rowid in (after, after + rows] into db in one transaction; without `rebuild`, the indexes stay and take each row. */
export function load(db: Database.Database, source: string, format: Format, after: number, rows: number, rebuild: boolean): Load {
  const existing = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").pluck().all() as string[]).filter(Boolean));
  db.exec('BEGIN');
  if (rebuild) for (const index of format.indexes) if (existing.has(index.name)) db.exec(`DROP INDEX "${index.name}"`);
  if (!rebuild) for (const index of format.indexes) if (!existing.has(index.name)) db.exec(index.sql);
  const insert = db.prepare(
    `INSERT INTO ${format.name} (rowid, ${format.columns.map((c) => `"${c}"`).join(', ')}) VALUES (?${', ?'.repeat(format.columns.length)})`,
  );
  const src = new Database(source, { readonly: true });
  const read = src
    .prepare(
      `SELECT rowid, ${format.read.map((c) => `"${c}"`).join(', ')} FROM ${format.from} WHERE rowid > ? AND rowid <= ? ORDER BY rowid`,
    )
    .raw(true)
    // Integers as BigInts, bound back as INTEGERs: a number is bound as a REAL (8 bytes in the store's columns without affinity).
    .safeIntegers(true);
  let insertMs = 0;
  let batch: unknown[][] = [];
  const flush = () => {
    const t = performance.now();
    for (const r of batch) insert.run(r);
    insertMs += performance.now() - t;
    batch = [];
  };
  for (const r of read.iterate(after, after + rows) as Iterable<unknown[]>) {
    batch.push([r[0], ...format.encode(r.slice(1))]);
    if (batch.length === 50_000) flush();
  }
  flush();
  src.close();
  const builds: [string, number][] = [];
  if (rebuild) for (const index of format.indexes) builds.push([index.name, time(() => db.exec(index.sql))]);
  const commitMs = time(() => db.exec('COMMIT'));
  const checkpointMs = time(() => db.pragma('wal_checkpoint(TRUNCATE)'));
  return { insertMs, builds, commitMs, checkpointMs };
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}
