import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  /**
   * Called before an existing store is brought up to date, with the migrations about to run (a
   * migration that rebuilds the ledger takes seconds on a large one: the caller can say so).
   */
  onUpgrade?: (pending: string[]) => void;
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
  // reads a thousand records scattered over a large ledger, and the copies were a visible part of
  // its CPU time (bench:verify). Writes still go through the write-ahead log.
  sqlite.pragma('mmap_size = 2147483648');
  const db = drizzle(sqlite, { schema }) as Db;
  const migrationsFolder = opts.migrationsFolder ?? defaultMigrationsFolder();
  if (opts.onUpgrade) {
    const pending = pendingMigrations(sqlite, migrationsFolder);
    if (pending.length > 0) opts.onUpgrade(pending);
  }
  migrate(db, { migrationsFolder });
  return db;
}

/**
 * The migrations an existing store has not had yet, by tag (a new store: none, it is created).
 * drizzle applies each journal entry newer than the last one recorded in __drizzle_migrations.
 */
function pendingMigrations(sqlite: Database.Database, migrationsFolder: string): string[] {
  const recorded = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (recorded === undefined) return [];
  const last = Number(sqlite.prepare('SELECT max(created_at) FROM __drizzle_migrations').pluck().get() ?? 0);
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries.filter((e) => e.when > last).map((e) => e.tag);
}

/** Run fn inside one SQLite transaction (all or nothing). */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return db.$client.transaction(fn)();
}
