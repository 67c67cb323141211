import Database from 'better-sqlite3';
import { registerDecimalFunctions } from './decimal-sql';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCodes } from '../../../shared/errors';
import { ServiceError } from '../errors';
import * as schema from './schema';
import { byDoor } from '../said';

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
  /**
   * How long a write waits, blocking its thread, while another program holds the store's write
   * lock, once the store is open (default 5 s, as the command line may wait). A serving process
   * passes a short one: its thread answers everyone, so a lock held elsewhere must be answered at
   * once (5001) rather than waited out.
   */
  busyTimeoutMs?: number;
}

/** What a serving process waits for another program's write lock: answering 5001 is better than stalling every caller. */
export const SERVING_BUSY_TIMEOUT_MS = 100;

export const defaultMigrationsFolder = (): string =>
  process.env.NPS_MIGRATIONS_DIR ?? fileURLToPath(new URL('./migrations', import.meta.url));

const bindings = new WeakMap<Database.Database, string | undefined>();

/** The better-sqlite3 build a connection was opened with, for a second connection to the same store (a worker thread's). */
export const nativeBindingOf = (sqlite: Database.Database): string | undefined => bindings.get(sqlite);

/**
 * Open the store, set the pragmas the service relies on, and bring the schema up to date. A store
 * written by a newer version is refused (a ServiceError, 5001) before anything is written to it;
 * any other failure is SQLite's own (a SqliteError with its code: not a database, damaged,
 * read-only…; see storeFailure), and the connection is closed.
 */
export function openDb(opts: OpenDbOptions): Db {
  const nativeBinding = opts.nativeBinding ?? process.env.NPS_SQLITE_BINDING;
  const sqlite = new Database(opts.file, nativeBinding ? { nativeBinding } : {});
  bindings.set(sqlite, nativeBinding);
  try {
    sqlite.pragma('busy_timeout = 5000');
    const migrationsFolder = opts.migrationsFolder ?? defaultMigrationsFolder();
    const journal = readJournal(migrationsFolder);
    // Only reads until here: the first of them is where a file that is not a store, or a damaged
    // one, is found; and a store of a newer version is left as it is (WAL mode is a write).
    refuseNewerStore(sqlite, journal, opts.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('cache_size = -65536');
    sqlite.pragma('temp_store = MEMORY');
    // Pages read straight from the mapped file instead of a read call and a copy each: a verification
    // reads a thousand records scattered over a large ledger, and the copies were a visible part of
    // its CPU time (bench:verify). Writes still go through the write-ahead log.
    sqlite.pragma('mmap_size = 2147483648');
    registerDecimalFunctions(sqlite);
    const db = drizzle(sqlite, { schema }) as Db;
    if (opts.onUpgrade) {
      const pending = pendingMigrations(sqlite, journal);
      if (pending.length > 0) opts.onUpgrade(pending);
    }
    migrate(db, { migrationsFolder });
    if (opts.busyTimeoutMs !== undefined) sqlite.pragma(`busy_timeout = ${Math.max(0, Math.trunc(opts.busyTimeoutMs))}`);
    return db;
  } catch (err) {
    sqlite.close();
    throw err;
  }
}

export interface Journal {
  entries: { tag: string; when: number }[];
}

export const readJournal = (migrationsFolder: string): Journal =>
  JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as Journal;

/** The migrations drizzle has recorded in the store, oldest first; undefined in a new store. */
function recordedMigrations(sqlite: Database.Database): { hash: string; created_at: number }[] | undefined {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (table === undefined) return undefined;
  const rows = sqlite.prepare('SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at').all() as {
    hash: string;
    created_at: unknown;
  }[];
  return rows.map((r) => ({ hash: r.hash, created_at: Number(r.created_at) }));
}

/**
 * drizzle applies the journal's entries newer than the last one recorded and nothing else, so it
 * would open a store whose schema a newer version changed without a word (and this version would
 * then write to it). Such a store is refused instead, having only been read: the refusal for the
 * store `name` whose recorded migrations (their times, oldest first) include one the journal does
 * not know, saying what to do `instead` of updating; or undefined.
 */
export function newerStoreRefusal(
  recorded: number[],
  journal: Journal,
  name: string,
  instead = byDoor('use --data-dir for another store', 'start it on another data folder (NPS_DATA_DIR)'),
): ServiceError | undefined {
  const known = new Set(journal.entries.map((e) => e.when));
  const newest = recorded.filter((when) => !known.has(when)).at(-1);
  if (newest === undefined) return undefined;
  const made = new Date(newest);
  const migration = `${newest}${Number.isNaN(made.getTime()) ? '' : ` of ${made.toISOString().slice(0, 10)}`}`;
  return new ServiceError(
    ErrorCodes.STORE_UNAVAILABLE,
    `${name} was written by a newer version of NPS Reconcile (migration ${migration} unknown to this version); update the app, or ${instead}`,
  );
}

function refuseNewerStore(sqlite: Database.Database, journal: Journal, file: string): void {
  const refusal = newerStoreRefusal(
    (recordedMigrations(sqlite) ?? []).map((m) => m.created_at),
    journal,
    file,
  );
  if (refusal) throw refusal;
}

/**
 * The migrations an existing store has not had yet, by tag (a new store: none, it is created).
 * drizzle applies each journal entry newer than the last one recorded in __drizzle_migrations.
 */
function pendingMigrations(sqlite: Database.Database, journal: Journal): string[] {
  const recorded = recordedMigrations(sqlite);
  if (recorded === undefined) return [];
  const last = recorded.reduce((max, m) => Math.max(max, m.created_at || 0), 0);
  return journal.entries.filter((e) => e.when > last).map((e) => e.tag);
}

/** Run fn inside one SQLite transaction (all or nothing). */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return db.$client.transaction(fn)();
}
