import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fileURLToPath } from 'node:url';
import * as schema from './schema';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface OpenDbOptions {
  /** Path of the SQLite file; ':memory:' is allowed for pure-logic tests only. */
  file: string;
  /** Folder of the committed drizzle-kit migrations; defaults to the one beside this file. */
  migrationsFolder?: string;
  /** A better-sqlite3 build other than the one for this Node (Electron keeps its own). */
  nativeBinding?: string;
}

export const defaultMigrationsFolder = (): string =>
  process.env.NPS_MIGRATIONS_DIR ?? fileURLToPath(new URL('./migrations', import.meta.url));

const bindings = new WeakMap<Database.Database, string | undefined>();

/** The better-sqlite3 build a connection was opened with, for a second connection to the same store (a worker thread's). */
export const nativeBindingOf = (sqlite: Database.Database): string | undefined => bindings.get(sqlite);

/** Open the store, set the pragmas the service relies on, and bring the schema up to date. */
export function openDb(opts: OpenDbOptions): Db {
  const nativeBinding = opts.nativeBinding ?? process.env.NPS_SQLITE_BINDING;
  const sqlite = new Database(opts.file, nativeBinding ? { nativeBinding } : {});
  bindings.set(sqlite, nativeBinding);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('temp_store = MEMORY');
  // Pages read straight from the mapped file instead of a read call and a copy each: a verification
  // reads a thousand records scattered over a large ledger (about 15% of its CPU time, measured in
  // docs/benchmarks.md). Writes still go through the write-ahead log.
  sqlite.pragma('mmap_size = 2147483648');
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder: opts.migrationsFolder ?? defaultMigrationsFolder() });
  return db;
}

/** Run fn inside one SQLite transaction (all or nothing). */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return db.$client.transaction(fn)();
}
