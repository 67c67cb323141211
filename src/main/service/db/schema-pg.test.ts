import { is, SQL } from 'drizzle-orm';
import { getTableConfig as pgConfig, PgDialect, PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteSyncDialect, SQLiteTable, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { describe, expect, test } from 'vitest';
import * as pg from './schema-pg';
import * as sqlite from './schema';

/*
 * The PostgreSQL schema is the SQLite one under PostgreSQL's types (schema-pg.ts says which): the
 * same tables, columns in the same order, nullability, defaults, keys, foreign keys and indexes.
 * A column, key or index changed in one schema and not the other fails here.
 */

const sqliteTables = (Object.values(sqlite) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable));
const pgTables = (Object.values(pg) as unknown[]).filter((t): t is PgTable => is(t, PgTable));
const rowidTables: readonly string[] = pg.ROWID_TABLES;

/** The family a column's values belong to, whichever engine holds them. */
function sqliteFamily(c: SQLiteColumn): string {
  if (c.columnType === 'SQLiteBoolean') return 'boolean';
  if (c.columnType === 'SQLiteBlobBuffer') return 'bytes';
  return c.getSQLType();
}
function pgFamily(c: PgColumn): string {
  const type = c.getSQLType();
  return type === 'bigint' ? 'integer' : type === 'bytea' ? 'bytes' : type;
}

/** SQL of an index's expression or condition, as the two engines would read it: names unqualified and unquoted. */
const sqliteDialect = new SQLiteSyncDialect();
const pgDialect = new PgDialect();
const sqlText = (dialect: SQLiteSyncDialect | PgDialect, s: SQL): string =>
  dialect
    .sqlToQuery(s)
    .sql.replace(/"\w+"\./g, '')
    .replace(/[`"]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

function defaultOf(c: SQLiteColumn | PgColumn): unknown {
  if (!c.hasDefault) return undefined;
  // An SQL default (a time) is written in each engine's own words: both must have one.
  return is(c.default, SQL) ? 'an SQL expression' : c.default;
}

const byName = <T extends { name: string }>(list: T[]) => Object.fromEntries(list.map((x) => [x.name, x]));

test('both schemas have the same tables', () => {
  expect(pgTables.map((t) => pgConfig(t).name)).toEqual(sqliteTables.map((t) => sqliteConfig(t).name));
  expect(sqliteTables.length).toBeGreaterThan(20);
  for (const name of rowidTables) expect(sqliteTables.map((t) => sqliteConfig(t).name)).toContain(name);
});

describe.each(sqliteTables.map((t) => [sqliteConfig(t).name, t] as const))('%s', (name, sqliteTable) => {
  const s = sqliteConfig(sqliteTable);
  const pgTable = pgTables.find((t) => pgConfig(t).name === name);
  const p = pgConfig(pgTable!);

  test('the same columns in the same order, of the same family, nullability and default', () => {
    const shared = p.columns.filter((c) => !(c.name === 'rowid' && rowidTables.includes(name)));
    const describe = (c: SQLiteColumn | PgColumn, family: string) => ({
      name: c.name,
      family,
      notNull: c.notNull,
      default: defaultOf(c),
    });
    expect(shared.map((c) => describe(c, pgFamily(c)))).toEqual(s.columns.map((c) => describe(c, sqliteFamily(c))));
  });

  test("SQLite's rowid is a column where SQL reads it, an identity", () => {
    const rowid = p.columns.find((c) => c.name === 'rowid');
    expect(rowid !== undefined).toBe(rowidTables.includes(name));
    if (rowid) {
      expect(pgFamily(rowid)).toBe('integer');
      expect(rowid.generatedIdentity?.type).toBe('byDefault');
    }
  });

  test('the same primary key; a key SQLite numbers by itself is numbered by PostgreSQL', () => {
    const keyOf = (columns: { name: string; primary: boolean }[], composite: { columns: { name: string }[] }[]) => [
      ...columns.filter((c) => c.primary).map((c) => c.name),
      ...composite.flatMap((k) => k.columns.map((c) => c.name)),
    ];
    expect(keyOf(p.columns, p.primaryKeys)).toEqual(keyOf(s.columns, s.primaryKeys));
    // An INTEGER PRIMARY KEY is SQLite's rowid under another name: a row added without it gets the next.
    for (const c of s.columns.filter((c) => c.primary && c.getSQLType() === 'integer')) {
      expect(byName(p.columns)[c.name]!.generatedIdentity?.type, c.name).toBe('byDefault');
    }
  });

  test('the same foreign keys, with the same deletes', () => {
    const fks = (list: typeof s.foreignKeys | typeof p.foreignKeys) =>
      list.map((fk) => {
        const r = fk.reference();
        const table = is(r.foreignTable, PgTable) ? pgConfig(r.foreignTable).name : sqliteConfig(r.foreignTable as SQLiteTable).name;
        return {
          columns: r.columns.map((c) => c.name),
          table,
          foreign: r.foreignColumns.map((c) => c.name),
          onDelete: fk.onDelete ?? 'no action',
        };
      });
    expect(fks(p.foreignKeys)).toEqual(fks(s.foreignKeys));
  });

  test('the same indexes: names, columns or expressions, uniqueness and conditions', () => {
    const sqliteIndexes = s.indexes.map((i) => ({
      name: i.config.name,
      unique: i.config.unique,
      on: i.config.columns.map((c) => (is(c, SQL) ? sqlText(sqliteDialect, c) : c.name)),
      where: i.config.where && sqlText(sqliteDialect, i.config.where),
    }));
    const pgIndexes = p.indexes
      .filter((i) => !(name === 'ledger_rows' && i.config.name === 'ledger_rows_rowid_idx'))
      .map((i) => ({
        name: i.config.name,
        unique: i.config.unique,
        on: i.config.columns.map((c) => (is(c, SQL) ? sqlText(pgDialect, c) : (c as PgColumn).name)),
        where: i.config.where && sqlText(pgDialect, i.config.where),
      }));
    expect(pgIndexes).toEqual(sqliteIndexes);
  });
});

test("the ledger's rows are unique by rowid, as SQLite's are by their key", () => {
  const index = pgConfig(pg.ledgerRows).indexes.find((i) => i.config.name === 'ledger_rows_rowid_idx');
  expect(index?.config.unique).toBe(true);
  expect(index?.config.columns.map((c) => (c as PgColumn).name)).toEqual(['rowid']);
});
