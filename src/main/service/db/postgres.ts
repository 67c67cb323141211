import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ErrorCodes } from '../../../shared/errors';
import { ServiceError } from '../errors';
import { ADVISORY_LOCKS } from './advisory-locks';
import { newerStoreRefusal, readJournal } from './open';
import * as schema from './schema-pg';

/*
 * The team store's connection to PostgreSQL (docs/team.md): a pool, the drizzle database over it,
 * and the schema brought up to date from migrations-pg. The service does not open it yet.
 */

export type PgDb = NodePgDatabase<typeof schema> & { $client: pg.Pool };

const INT8 = 20;

/**
 * Every integer of the store is a bigint (times in ms, counts, row numbers), which node-postgres
 * hands over as text: read as a number, refused rather than rounded past 2^53.
 */
function int8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`the store holds the integer ${text}, beyond what a JavaScript number keeps exactly`);
  return n;
}

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 && format !== 'binary' ? int8 : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

const defaultPgMigrationsFolder = (): string =>
  process.env.NPS_PG_MIGRATIONS_DIR ?? fileURLToPath(new URL('./migrations-pg', import.meta.url));

/** The first service to start migrates; the others wait for the lock and find it done. */
const MIGRATION_LOCK = ADVISORY_LOCKS.migration;

/** The store's address as the user may see it: without its password. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return 'the PostgreSQL store';
  }
}

/** Locales whose text order is the bytes' and whose lower() and upper() change ASCII letters only. */
const BYTE_LOCALES = new Set(['C', 'POSIX']);

/**
 * SQLite compares text by its bytes (the BINARY collation) and its lower() changes ASCII letters
 * only; a database in another locale would sort names, symbols and ids otherwise, and take
 * 'Ärger' and 'ärger' for one wallet name where SQLite keeps two. Such a database is refused,
 * having only been read, with how to create one that answers as SQLite does.
 */
async function refuseOtherLocale(client: pg.PoolClient, name: string): Promise<void> {
  const { rows } = await client.query<{ collate: string; ctype: string; encoding: string }>(
    `SELECT datcollate AS collate, datctype AS ctype, pg_encoding_to_char(encoding) AS encoding
     FROM pg_database WHERE datname = current_database()`,
  );
  const db = rows[0]!;
  if (BYTE_LOCALES.has(db.collate) && BYTE_LOCALES.has(db.ctype) && db.encoding === 'UTF8') return;
  throw new ServiceError(
    ErrorCodes.STORE_UNAVAILABLE,
    `${name} is a database in the locale ${db.collate === db.ctype ? db.collate : `${db.collate} (collation), ${db.ctype} (character type)`} and the encoding ${db.encoding}: the store compares and sorts text as the embedded store does, byte by byte, which needs a database in the C locale and UTF8; create one with CREATE DATABASE … TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'`,
  );
}

/**
 * Connect to the store at `url` and bring its schema up to date, under an advisory lock, so several
 * services starting at once migrate it once. A database in another locale than C (refuseOtherLocale),
 * or a store migrated by a newer version, is refused (a ServiceError, 5001) having only been read,
 * as db/open.ts refuses a newer SQLite file.
 */
export async function openPostgres(url: string, opts: { migrationsFolder?: string } = {}): Promise<PgDb> {
  const migrationsFolder = opts.migrationsFolder ?? defaultPgMigrationsFolder();
  const journal = readJournal(migrationsFolder);
  const pool = new pg.Pool({ connectionString: url, types });
  // An idle connection the server ended (a restart, pg_terminate_backend) is dropped by the pool and
  // the next query opens another; unheard, its error would end the process.
  pool.on('error', () => undefined);
  try {
    const client = await pool.connect();
    try {
      await refuseOtherLocale(client, shown(url));
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        const recorded = (await client.query<{ known: boolean }>("SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS known"))
          .rows[0]!.known
          ? (await client.query<{ created_at: string }>('SELECT created_at FROM drizzle.__drizzle_migrations ORDER BY created_at')).rows
          : [];
        const refusal = newerStoreRefusal(
          recorded.map((r) => Number(r.created_at)),
          journal,
          shown(url),
          'use another database',
        );
        if (refusal) throw refusal;
        await migrate(drizzle(client), { migrationsFolder });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      }
    } finally {
      client.release();
    }
    return drizzle(pool, { schema }) as PgDb;
  } catch (err) {
    await pool.end();
    throw err;
  }
}

/** One transaction on one client of the pool: committed when `work` returns, rolled back when it throws. */
export async function inPgTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection that breaks while checked out says so on the client too: heard here (the query
  // under way fails with it), or it would end the process; the client is then not given back.
  let broken: Error | undefined;
  const onError = (err: Error) => (broken ??= err);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // The failure to tell is the first: a rollback on a broken connection fails too.
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken ?? false);
  }
}
