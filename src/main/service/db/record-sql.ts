import type Database from 'better-sqlite3';
import type { LedgerRecord } from '../../../shared/ledger';
import { RECORD_FIELDS, RECORD_TIME_FIELDS, REQUIRED_FIELDS } from '../../../shared/ledger';
import { columnOf, ENCODED, hashIndexKey, keptAsBytes, LEDGER_TABLE, NAMES_TABLE } from './ledger-sql';

/*
 * The SQL that reads a ledger record, and the one function that makes a record of its row, both
 * made from the contract's one list of the record's fields (shared/ledger.ts): every reader of
 * records (the Ledger screen's lists, the verification's lookups on either thread, tickets) reads
 * through these, so a field added to or renamed in the contract reaches every reader.
 * Columns of fields a record may leave out hold NULL in the store (the partial indexes skip those
 * rows) and become "", as the contract types them.
 */

/** The store's columns of a record, in this order: the contract's fields, then import_id, updated_at and movement. */
const COLUMNS = [...RECORD_FIELDS, 'import_id', 'updated_at', 'movement'] as const;

/** A record's columns over the table aliased `t`, as a row of values in COLUMNS order (read them with recordOfRow). */
export const RECORD_COLUMNS = COLUMNS.map((c) => `t."${c}"`).join(', ');

const TIMES = new Set<string>(RECORD_TIME_FIELDS);
const ALWAYS = new Set<string>([...REQUIRED_FIELDS, 'import_id', 'updated_at', 'movement']);

/**
 * A record of a row of RECORD_COLUMNS. Compiled once from the list into one object literal: a
 * verification reads a thousand records a request, and a literal of a fixed shape is the cheapest
 * object V8 builds (better-sqlite3's own row objects cost about twice the whole read, measured).
 * The code is made from the contract's field names only, never from data.
 */
export const recordOfRow = new Function(
  'r',
  `return {${COLUMNS.map((c, i) => `${JSON.stringify(c)}: ${TIMES.has(c) || ALWAYS.has(c) ? `r[${i}]` : `r[${i}] ?? ''`}`).join(', ')}};`,
) as (row: readonly unknown[]) => LedgerRecord;

/** The identifiers a claim is looked up by, each an indexed column of `transactions`. */
export type LookupColumn = 'transaction_id' | 'hash' | 'request_id';

/**
 * SELECT `columns` of the records whose column holds one of the values of a JSON array (the one
 * parameter), by the encoded column (db/ledger-sql.ts), so its index serves. By hash, the values
 * are read and encoded once and named twice: by the index's key, then whole.
 */
const lookupSql = (column: LookupColumn, columns: string): string => {
  const { key, encode } = ENCODED[column];
  const wanted = `WITH wanted(k) AS MATERIALIZED (SELECT ${encode('value')} FROM json_each(?))`;
  return column === 'hash'
    ? `${wanted} SELECT ${columns} FROM transactions t WHERE ${hashIndexKey(`t.${key}`)} IN (SELECT ${hashIndexKey('k')} FROM wanted) AND t.${key} IN (SELECT k FROM wanted)`
    : `${wanted} SELECT ${columns} FROM transactions t WHERE t.${key} IN (SELECT k FROM wanted)`;
};

/** Records (rows of RECORD_COLUMNS) whose column holds one of the values of a JSON array (the one parameter). */
export const recordsWhereInSql = (column: LookupColumn): string => lookupSql(column, RECORD_COLUMNS);

/** The same rows as one JSON array of arrays: one string for the lookup thread to hand over. */
export const recordsWhereInJsonSql = (column: LookupColumn): string => lookupSql(column, `json_group_array(json_array(${RECORD_COLUMNS}))`);

/*
 * The same records read from `ledger_rows` itself and decoded here rather than by the view: the
 * verification's lookups read a thousand records a request, and the view's decoding (each UUID's
 * hex taken five times, a subquery of ledger_names for each of four names) was a third of their
 * time. SQL still turns the bytes into hex (cheap in C); this side adds a UUID's dashes, a hash's
 * 0x, a type's or a status's word and each name, from a copy of ledger_names kept per connection.
 * Every field decodes as the view decodes it (ledger-sql.ts); record-sql.test.ts reads tricky
 * records both ways.
 */

type Reading = { sql: string[]; js: (at: number) => string };

/** How each stored field is read: its columns, and the JavaScript that makes the field from them (at: its first column's place). */
function readingOf(f: (typeof COLUMNS)[number]): Reading {
  const optional = !TIMES.has(f) && !ALWAYS.has(f);
  const encoded = Object.hasOwn(ENCODED, f) ? ENCODED[f as keyof typeof ENCODED] : undefined;
  if (encoded === undefined) return { sql: [`t.${columnOf(f)}`], js: (at) => (optional ? `r[${at}] ?? ''` : `r[${at}]`) };
  const k = `t.${encoded.key}`;
  switch (encoded.kind) {
    case 'id':
    case 'hash':
      // The bytes' hex, or the text kept as it is: two columns, so a text that looks like hex stays text.
      return {
        sql: [`iif(typeof(${k}) = 'blob', lower(hex(${k})), NULL)`, `iif(typeof(${k}) = 'blob', NULL, ${k})`],
        js: (at) =>
          `r[${at}] !== null ? ${encoded.kind === 'id' ? 'uuidOf' : 'hashOf'}(r[${at}]) : r[${at + 1}]${optional ? " ?? ''" : ''}`,
      };
    case 'listed':
      return { sql: [k], js: (at) => `typeof r[${at}] === 'number' ? ${JSON.stringify(encoded.list)}[r[${at}]] : r[${at}]` };
    case 'name':
      return {
        sql: [k],
        js: (at) => (ALWAYS.has(f) && f !== 'import_id' ? `name(r[${at}])` : `r[${at}] === null ? null : name(r[${at}])`),
      };
  }
}

const READINGS = COLUMNS.map(readingOf);

/** A record's stored columns over `ledger_rows` aliased `t`, to read with recordOfStoredRow. */
const STORED_RECORD_COLUMNS = READINGS.flatMap((r) => r.sql).join(', ');

const uuidOf = (h: string): string => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
/** 32 bytes: an 0x hash; a zero byte and 32 bytes: a bare (Tron) hash. */
const hashOf = (h: string): string => (h.length === 64 ? `0x${h}` : h.slice(2));

/**
 * A record of a row of STORED_RECORD_COLUMNS, given its connection's names (`ledgerNames`).
 * Compiled once from the list into one object literal, as recordOfRow; from field names only.
 */
export const recordOfStoredRow = (() => {
  let at = 0;
  const fields = COLUMNS.map((c, i) => {
    const expr = READINGS[i]!.js(at);
    at += READINGS[i]!.sql.length;
    return `${JSON.stringify(c)}: ${expr}`;
  });
  return new Function('uuidOf', 'hashOf', `return (r, name) => ({${fields.join(', ')}});`)(uuidOf, hashOf) as (
    row: readonly unknown[],
    name: (no: number) => string,
  ) => LedgerRecord;
})();

/**
 * SELECT `columns` of the records whose column holds one of the values given as two JSON arrays
 * (the two parameters, storedKeys): the values kept as bytes, and the values kept as text. Which
 * is which is told in JavaScript rather than by the SQL encoders' pattern tests of each value, by
 * the same rules (ledger-sql.ts, storedKeyHex); SQL only turns the first kind into its bytes.
 */
const storedLookupSql = (column: LookupColumn, columns: string): string => {
  const { key } = ENCODED[column];
  const bytes = column === 'hash' ? "iif(substr(value, 2, 1) = 'x', substr(value, 3), '00' || value)" : "replace(value, '-', '')";
  const wanted = `WITH wanted(k) AS MATERIALIZED (SELECT unhex(${bytes}) FROM json_each(?) UNION ALL SELECT value FROM json_each(?))`;
  return column === 'hash'
    ? `${wanted} SELECT ${columns} FROM ${LEDGER_TABLE} t WHERE ${hashIndexKey(`t.${key}`)} IN (SELECT ${hashIndexKey('k')} FROM wanted) AND t.${key} IN (SELECT k FROM wanted)`
    : `${wanted} SELECT ${columns} FROM ${LEDGER_TABLE} t WHERE t.${key} IN (SELECT k FROM wanted)`;
};

/** Records (rows of STORED_RECORD_COLUMNS) whose column holds one of the values (the parameters: storedKeys). */
export const storedRecordsWhereInSql = (column: LookupColumn): string => storedLookupSql(column, STORED_RECORD_COLUMNS);

/** The same rows as one JSON array of arrays, for the lookup thread to hand over. */
export const storedRecordsWhereInJsonSql = (column: LookupColumn): string =>
  storedLookupSql(column, `json_group_array(json_array(${STORED_RECORD_COLUMNS}))`);

/** The parameters of the stored lookups: the values the store keeps as bytes, and those it keeps as text, as two JSON arrays. */
export function storedKeys(column: LookupColumn, values: Iterable<string>): [string, string] {
  const bytes: string[] = [];
  const texts: string[] = [];
  for (const v of values) (keptAsBytes(column, v) ? bytes : texts).push(v);
  return [JSON.stringify(bytes), JSON.stringify(texts)];
}

const namesOf = new WeakMap<Database.Database, { names: Map<number, string>; read: Database.Statement }>();

/**
 * The names of ledger_names by number, as a connection sees them, kept in memory: a name is never
 * removed and its number never changes, so what is known stays true, and a number not known yet
 * (a name an import added since) reads the table again. Inside a transaction nothing new is kept:
 * a name added there is gone if it rolls back.
 */
export function ledgerNames(sqlite: Database.Database): (no: number) => string {
  let entry = namesOf.get(sqlite);
  if (entry === undefined) {
    entry = { names: new Map(), read: sqlite.prepare(`SELECT no, name FROM ${NAMES_TABLE}`).raw(true) };
    namesOf.set(sqlite, entry);
  }
  const known = entry;
  return (no) => {
    const name = known.names.get(no);
    if (name !== undefined) return name;
    const now = new Map(known.read.all() as [number, string][]);
    if (!sqlite.inTransaction) known.names = now;
    const found = now.get(no);
    if (found === undefined) throw new Error(`the ledger names number ${no}, which ${NAMES_TABLE} does not hold`);
    return found;
  };
}
