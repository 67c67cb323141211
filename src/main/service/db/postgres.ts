import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
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

/** Held while a service migrates the store: the first to start migrates, the others wait and find it done. */
const MIGRATION_LOCK = 0x6e70_7330;

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

/**
 * Connect to the store at `url` and bring its schema up to date, under an advisory lock, so several
 * services starting at once migrate it once. A store migrated by a newer version is refused (a
 * ServiceError, 5001) having only been read, as db/open.ts refuses a newer SQLite file.
 */
export async function openPostgres(url: string, opts: { migrationsFolder?: string } = {}): Promise<PgDb> {
  const migrationsFolder = opts.migrationsFolder ?? defaultPgMigrationsFolder();
  const journal = readJournal(migrationsFolder);
  const pool = new pg.Pool({ connectionString: url, types });
  try {
    const client = await pool.connect();
    try {
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
