import Big from 'big.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decimalKey } from './decimal-sql';
import { ServiceError } from '../errors';
import { openDb, readJournal, type Db } from './open';
import { openPostgres, type PgDb } from './postgres';
import { startPostgres, type TestPostgres } from './postgres.test-support';
import { ROWID_TABLES } from './schema-pg';

/*
 * A fresh PostgreSQL database brought up by migrations-pg against a fresh SQLite store brought up
 * by migrations: the same tables, columns, keys and indexes, as the two servers report them (not
 * as the schemas declare them); and amounts that keep their exact text and sort as decimal_key
 * sorts them on both.
 */

let server: TestPostgres;
let pgDb: PgDb;
let sqliteDb: Db;
let folder: string;

beforeAll(async () => {
  server = await startPostgres();
  pgDb = await openPostgres(await server.createDatabase('store'));
  folder = mkdtempSync(join(tmpdir(), 'nps-pg-schema-'));
  sqliteDb = openDb({ file: join(folder, 'nps.sqlite') });
});

afterAll(async () => {
  sqliteDb?.$client.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
  await pgDb?.$client.end();
  await server?.stop();
});

const q = async <R>(text: string, values: unknown[] = []): Promise<R[]> => (await pgDb.$client.query(text, values)).rows as R[];

interface SqliteColumn {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

const sqliteTables = () =>
  (
    sqliteDb.$client
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name",
      )
      .all() as { name: string }[]
  ).map((t) => t.name);

/** PostgreSQL's type for each of SQLite's: integers are bigint (0/1 flags are boolean), untyped ledger keys bytea. */
const PG_TYPES: Record<string, string[]> = { text: ['text'], integer: ['bigint', 'boolean'], blob: ['bytea'] };

describe('the migrated PostgreSQL store has the SQLite store’s tables', () => {
  test('the same tables', async () => {
    const pgTables = await q<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    expect(pgTables.map((t) => t.table_name)).toEqual(sqliteTables());
    expect(sqliteTables().length).toBeGreaterThan(20);
  });

  test('every column, of the matching type and nullability, with a default where SQLite has one', async () => {
    for (const table of sqliteTables()) {
      const sqliteColumns = sqliteDb.$client.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as SqliteColumn[];
      const pgColumns = await q<{
        column_name: string;
        data_type: string;
        is_nullable: string;
        column_default: string | null;
        is_identity: string;
      }>(
        `SELECT column_name, data_type, is_nullable, column_default, is_identity FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      );
      // By name: a migrated SQLite store has its columns in the order migrations added them, not schema.ts's.
      const shared = new Map(pgColumns.filter((c) => c.column_name !== 'rowid').map((c) => [c.column_name, c]));
      expect([...shared.keys()].sort(), table).toEqual(sqliteColumns.map((c) => c.name).sort());
      for (const s of sqliteColumns) {
        const p = shared.get(s.name)!;
        const where = `${table}.${s.name}`;
        expect(PG_TYPES[s.type.toLowerCase()], where).toContain(p.data_type);
        // SQLite's INTEGER PRIMARY KEY is its rowid: PostgreSQL numbers it as an identity, NOT NULL.
        const rowidAlias = s.pk === 1 && s.type.toLowerCase() === 'integer' && sqliteColumns.filter((c) => c.pk > 0).length === 1;
        expect(p.is_nullable === 'NO', where).toBe(s.notnull === 1 || s.pk > 0);
        expect(p.column_default !== null || p.is_identity === 'YES', where).toBe(s.dflt_value !== null || rowidAlias);
      }
      const rowid = pgColumns.find((c) => c.column_name === 'rowid');
      expect(rowid?.is_identity === 'YES', `${table}.rowid`).toBe((ROWID_TABLES as readonly string[]).includes(table));
    }
  });

  test('the same primary keys and indexes', async () => {
    for (const table of sqliteTables()) {
      const sqliteColumns = sqliteDb.$client.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as SqliteColumn[];
      const key = sqliteColumns
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name);
      const pgKey = await q<{ attname: string }>(
        `SELECT a.attname FROM pg_index i JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ON true
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
         WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY k.n`,
        [table],
      );
      expect(
        pgKey.map((c) => c.attname),
        table,
      ).toEqual(key);

      const sqliteIndexes = (
        sqliteDb.$client.prepare(`PRAGMA index_list(${JSON.stringify(table)})`).all() as { name: string; unique: number; origin: string }[]
      )
        .filter((i) => i.origin === 'c')
        .map((i) => ({ name: i.name, unique: i.unique === 1 }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const pgIndexes = await q<{ name: string; unique: boolean }>(
        `SELECT c.relname AS name, i.indisunique AS unique FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = $1::regclass AND NOT i.indisprimary AND c.relname <> 'ledger_rows_rowid_idx'`,
        [table],
      );
      expect(
        pgIndexes.sort((a, b) => a.name.localeCompare(b.name)),
        table,
      ).toEqual(sqliteIndexes);
    }
  });

  test("a setting's time defaults to now, in milliseconds, read as a number", async () => {
    const before = Date.now();
    await q("INSERT INTO settings (key, value) VALUES ('probe', 'x')");
    const [row] = await q<{ updated_at: unknown }>("SELECT updated_at FROM settings WHERE key = 'probe'");
    expect(typeof row!.updated_at).toBe('number');
    expect(row!.updated_at).toBeGreaterThanOrEqual(before - 1000);
    expect(row!.updated_at).toBeLessThanOrEqual(Date.now() + 1000);
  });
});

/** A seeded generator of amounts as files and claims write them, and of text that is no amount. */
function amounts(count: number, seed: number): string[] {
  let s = seed;
  const next = (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
  const digits = (n: number) => Array.from({ length: n }, () => String(next(10))).join('');
  const odd = [
    '',
    ' ',
    '-',
    '.',
    '.5',
    '5.',
    '+1',
    '1e5',
    '1,5',
    'abc',
    '0x10',
    '--1',
    '1.2.3',
    '٣',
    '１',
    'NaN',
    'Infinity',
    '\u00a01.5\u3000',
  ];
  return Array.from({ length: count }, () => {
    const pick = next(10);
    if (pick === 0) return odd[next(odd.length)]!;
    const sign = next(3) === 0 ? '-' : '';
    const int = next(6) === 0 ? '0'.repeat(next(4)) + digits(1 + next(3)) : digits(1 + next(next(3) === 0 ? 40 : 8));
    const frac = next(2) === 0 ? '' : `.${digits(1 + next(next(4) === 0 ? 40 : 6))}${'0'.repeat(next(3))}`;
    const pad = next(12) === 0 ? [' ', '\t', '\n', '\u2003'][next(4)]! : '';
    return `${pad}${sign}${int}${frac}${pad}`;
  });
}

const byKey = (a: string, b: string) => {
  const [ka, kb] = [decimalKey(a), decimalKey(b)];
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

describe('amounts on PostgreSQL', () => {
  const exact = ['123456789012345678.123456789012345678', '-123456789012345678.123456789012345678', '0.000000000000000001', '007.50', '-0'];

  test('keep their exact text, and decimal_key gives the key SQLite gives', async () => {
    const values = [...exact, ...amounts(3000, 30)];
    const rows = await q<{ v: string; key: string }>(
      'SELECT v, decimal_key(v) AS key FROM unnest($1::text[]) WITH ORDINALITY AS t(v, n) ORDER BY n',
      [values],
    );
    expect(rows.map((r) => r.v)).toEqual(values);
    expect(rows.map((r) => r.key)).toEqual(values.map(decimalKey));
    expect((await q<{ key: null }>('SELECT decimal_key(NULL) AS key'))[0]!.key).toBe(decimalKey(null));
  });

  test('a ledger amount round-trips exactly and sorts and bounds as decimal_key does on SQLite', async () => {
    const values = [...exact, ...amounts(500, 7)].filter((v) => v !== '');
    await q('INSERT INTO ledger_names (name) VALUES ($1)', ['w']);
    await q(
      `INSERT INTO ledger_rows (tx_key, wallet_no, type_key, status_key, amount, chain_no, token_no, updated_at)
       SELECT convert_to(n::text, 'UTF8'), 1, '\\x00', '\\x02', v, 1, 1, 0 FROM unnest($1::text[]) WITH ORDINALITY AS t(v, n)`,
      [values],
    );
    const stored = await q<{ amount: string }>('SELECT amount FROM ledger_rows ORDER BY rowid');
    expect(stored.map((r) => r.amount)).toEqual(values);

    const pgOrder = (await q<{ amount: string }>('SELECT amount FROM ledger_rows ORDER BY decimal_key(amount), rowid')).map(
      (r) => r.amount,
    );
    const sqlite = sqliteDb.$client;
    sqlite.exec('CREATE TEMP TABLE amounts (amount TEXT NOT NULL)');
    const insert = sqlite.prepare('INSERT INTO amounts (amount) VALUES (?)');
    for (const v of values) insert.run(v);
    const sqliteOrder = (
      sqlite.prepare('SELECT amount FROM amounts ORDER BY decimal_key(amount), rowid').all() as { amount: string }[]
    ).map((r) => r.amount);
    expect(pgOrder).toEqual(sqliteOrder);
    // And that order is the numbers' own, plain decimals before the rest.
    const plain = pgOrder.filter((v) => decimalKey(v) !== '~');
    expect(plain).toEqual([...plain].sort((a, b) => new Big(a.trim()).cmp(new Big(b.trim())) || byKey(a, b)));

    const bound = '123456789012345678.123456789012345677';
    const pgAbove = await q<{ amount: string }>(
      'SELECT amount FROM ledger_rows WHERE decimal_key(amount) >= decimal_key($1) ORDER BY decimal_key(amount), rowid',
      [bound],
    );
    const sqliteAbove = sqlite
      .prepare('SELECT amount FROM amounts WHERE decimal_key(amount) >= decimal_key(?) ORDER BY decimal_key(amount), rowid')
      .all(bound) as { amount: string }[];
    expect(pgAbove).toEqual(sqliteAbove);
    expect(pgAbove.map((r) => r.amount)).toContain('123456789012345678.123456789012345678');
    expect(pgAbove.map((r) => r.amount)).not.toContain('-123456789012345678.123456789012345678');
  });
});

describe('opening a PostgreSQL store', () => {
  const migrations = () => readJournal(join(import.meta.dirname, 'migrations-pg')).entries.length;
  const recorded = async (db: PgDb) =>
    Number((await db.$client.query<{ n: string }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations')).rows[0]!.n);

  test('several services starting at once on a new database migrate it once, and all open it', async () => {
    const url = await server.createDatabase('started_at_once');
    const dbs = await Promise.all(Array.from({ length: 4 }, () => openPostgres(url)));
    try {
      for (const db of dbs) expect(await recorded(db)).toBe(migrations());
      expect((await dbs[3]!.$client.query('SELECT decimal_key($1) AS k', ['1.50'])).rows[0].k).toBe(decimalKey('1.5'));
    } finally {
      for (const db of dbs) await db.$client.end();
    }
  });

  test('a store migrated by a newer version is refused (5001), having only been read, its password not shown', async () => {
    const url = (await server.createDatabase('newer')).replace('nps@', 'nps:secret@');
    const db = await openPostgres(url);
    await db.$client.query("INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('from a newer version', 4102444800000)");
    await db.$client.end();

    const refused = await openPostgres(url).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe(5001);
    expect((refused as ServiceError).message).toContain(
      'was written by a newer version of NPS Reconcile (migration 4102444800000 of 2100-01-01',
    );
    expect((refused as ServiceError).message).not.toContain('secret');

    // Nothing was written: drizzle's record is as the newer version left it.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
      expect(rows[0]!.n).toBe(migrations() + 1);
    } finally {
      await client.end();
    }
  });
});

describe('text on PostgreSQL answers as on SQLite', () => {
  const names = ['treasury', 'Treasury', 'Ärger', 'ärger', 'Zed', 'apple', '_x', 'é', 'E', 'ß', 'İstanbul', 'b', 'B', 'a1', 'a10', 'a2'];

  test('sorted and lower-cased alike', async () => {
    const pgRows = await q<{ v: string; l: string }>('SELECT v, lower(v) AS l FROM unnest($1::text[]) AS t(v) ORDER BY v', [names]);
    const sqlite = sqliteDb.$client;
    sqlite.exec('CREATE TEMP TABLE names (v TEXT NOT NULL)');
    const insert = sqlite.prepare('INSERT INTO names (v) VALUES (?)');
    for (const v of names) insert.run(v);
    const sqliteRows = sqlite.prepare('SELECT v, lower(v) AS l FROM names ORDER BY v').all();
    expect(pgRows).toEqual(sqliteRows);
  });

  test('wallet names unique ignoring case where SQLite says so, and only there', async () => {
    const now = Date.now();
    const addPg = (id: string, name: string) =>
      q('INSERT INTO wallets (wallet_id, name, created_at, updated_at) VALUES ($1, $2, $3, $3)', [id, name, now]).then(
        () => 'added',
        (err: { code?: string }) => (err.code === '23505' ? 'taken' : Promise.reject(err)),
      );
    const addSqlite = (id: string, name: string) => {
      try {
        sqliteDb.$client
          .prepare('INSERT INTO wallets (wallet_id, name, created_at, updated_at) VALUES (?, ?, ?, ?)')
          .run(id, name, now, now);
        return 'added';
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return 'taken';
        throw err;
      }
    };
    const tries = [
      ['w1', 'Treasury'],
      ['w2', 'treasury'],
      ['w3', 'Ärger'],
      ['w4', 'ärger'],
      ['w5', ''],
      ['w6', ''],
    ] as const;
    const onPg: string[] = [];
    for (const [id, name] of tries) onPg.push(await addPg(id, name));
    expect(onPg).toEqual(tries.map(([id, name]) => addSqlite(id, name)));
    expect(onPg).toEqual(['added', 'taken', 'added', 'added', 'added', 'added']);
  });

  test('a database in another locale is refused (5001), having only been read, with how to create one', async () => {
    const url = await server.createDatabase('other_locale', 'C.UTF-8');
    const refused = await openPostgres(url).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe(5001);
    expect((refused as ServiceError).message).toContain('in the locale C.UTF-8');
    expect((refused as ServiceError).message).toContain("CREATE DATABASE … TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT to_regclass('public.tickets') AS t, to_regnamespace('drizzle') AS d");
      expect(rows[0]).toEqual({ t: null, d: null });
    } finally {
      await client.end();
    }
  });
});
