import type { LedgerRecord } from '../../../shared/ledger';
import { RECORD_FIELDS, RECORD_TIME_FIELDS, REQUIRED_FIELDS } from '../../../shared/ledger';
import { ENCODED, hashIndexKey } from './ledger-sql';

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
