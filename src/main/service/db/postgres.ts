import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
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

/** Connect to the store at `url` and bring its schema up to date. */
export async function openPostgres(url: string, opts: { migrationsFolder?: string } = {}): Promise<PgDb> {
  const pool = new pg.Pool({ connectionString: url, types });
  try {
    const db = drizzle(pool, { schema }) as PgDb;
    await migrate(db, { migrationsFolder: opts.migrationsFolder ?? defaultPgMigrationsFolder() });
    return db;
  } catch (err) {
    await pool.end();
    throw err;
  }
}
