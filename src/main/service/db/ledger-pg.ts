import type pg from 'pg';
import type { LedgerRecord } from '../../../shared/ledger';
import { LEDGER_STATUSES, LEDGER_TYPES, RECORD_FIELDS } from '../../../shared/ledger';
import { columnOf, ENCODED, LEDGER_TABLE, NAMES_TABLE, STORED_RECORD_FIELDS, VALUE_ENCODERS } from './ledger-sql';
import type { LookupColumn } from './record-sql';
import { recordOfRow } from './record-sql';

/*
 * The ledger's encoding on PostgreSQL (team mode, docs/team.md). `ledger_rows` is the same table
 * as on SQLite (db/schema-pg.ts), each field encoded as db/ledger-sql.ts encodes it; what differs
 * is the columns SQLite keeps without a type (tx_key, type_key, status_key, hash_key,
 * request_key). SQLite tells a value kept as bytes from one kept as text (or a type's place in its
 * list) by its storage class; a bytea column cannot, so each such value is one tag byte, then its
 * bytes:
 *
 *   0x01 and one byte: an integer (a type's or status's place in its list);
 *   0x02 and the UTF-8 bytes: text kept as written;
 *   0x03 and the bytes: what SQLite keeps as a blob (a UUID's 16 bytes, a hash's 32 or 33).
 *
 * The tags follow SQLite's order of storage classes (integers, then text, then blobs), and after
 * the tag the bytes compare as SQLite compares within a class (text and blobs byte by byte; the
 * places are below 256), so keys sort and compare on both engines alike, and the encoding stays one
 * to one: equal records are equal rows.
 */

const KEY_TAG = { integer: 1, text: 2, blob: 3 } as const;

/** A value as db/ledger-sql.ts's JavaScript encoders give it (bytes, text, or a place), as tagged bytes in hex. */
export function keyHex(encoded: string | bigint | Buffer): string {
  if (typeof encoded === 'bigint') return `01${encoded.toString(16).padStart(2, '0')}`;
  if (typeof encoded === 'string') return `02${Buffer.from(encoded, 'utf8').toString('hex')}`;
  return `03${encoded.toString('hex')}`;
}

/** The tagged key of a field's value (transaction_id, hash, request_id, type, status). */
export function keyOf(field: 'transaction_id' | 'hash' | 'request_id' | 'type' | 'status', value: string): Buffer {
  return Buffer.from(keyHex(VALUE_ENCODERS[field]!(value)), 'hex');
}

const uuidOf = (h: string): string => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;

/** A tagged key back to its field's value, as the view `transactions` gives it on SQLite. */
export function decodeKey(field: 'transaction_id' | 'hash' | 'request_id' | 'type' | 'status', key: Buffer | null): string | null {
  if (key === null) return null;
  const tag = key[0];
  if (tag === KEY_TAG.text) return key.toString('utf8', 1);
  if (tag === KEY_TAG.integer) {
    const list: readonly string[] = field === 'type' ? LEDGER_TYPES : LEDGER_STATUSES;
    const value = list[key[1]!];
    if ((field === 'type' || field === 'status') && value !== undefined && key.length === 2) return value;
  } else if (tag === KEY_TAG.blob) {
    const hex = key.toString('hex', 1);
    if (field === 'transaction_id' || field === 'request_id') return uuidOf(hex);
    // 32 bytes: an 0x hash; a zero byte and 32 bytes: a bare (Tron) hash.
    if (field === 'hash') return key.length === 33 ? `0x${hex}` : hex.slice(2);
  }
  throw new Error(`the PostgreSQL ledger holds a ${field} key that is no encoding of a value (${key.toString('hex')})`);
}

/** The record's fields as the view `transactions` gives them: STORED_RECORD_FIELDS, NULL for what is not recorded. */
export type StoredRecord = Record<(typeof STORED_RECORD_FIELDS)[number], string | number | null>;

/** ledger_rows' columns, in STORED_RECORD_FIELDS order, then rowid: what decodeRow reads. */
export const STORED_ROW_COLUMNS = [...STORED_RECORD_FIELDS.map(columnOf), 'rowid'];

const KEYED = new Map<string, 'transaction_id' | 'hash' | 'request_id' | 'type' | 'status'>(
  (['transaction_id', 'hash', 'request_id', 'type', 'status'] as const).map((f) => [f, f]),
);
const NAMED = new Set<string>(
  (Object.keys(ENCODED) as (keyof typeof ENCODED)[]).filter((f) => ENCODED[f].kind === 'name').map((f) => f as string),
);

/** A row of STORED_ROW_COLUMNS (array mode) decoded, given the names' numbers read back (ledger_names). */
export function decodeRow(row: readonly unknown[], names: ReadonlyMap<number, string>): StoredRecord {
  const record = {} as StoredRecord;
  STORED_RECORD_FIELDS.forEach((f, i) => {
    const v = row[i] as string | number | Buffer | null;
    const keyed = KEYED.get(f);
    if (keyed !== undefined) record[f] = decodeKey(keyed, v as Buffer | null);
    else if (NAMED.has(f)) {
      const name = v === null ? null : names.get(v as number);
      if (name === undefined) throw new Error(`the PostgreSQL ledger names ${f} by a number ledger_names does not hold (${String(v)})`);
      record[f] = name;
    } else record[f] = v as string | number | null;
  });
  return record;
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** ledger_names as numbers to names. */
async function ledgerNamesPg(db: Queryable): Promise<Map<number, string>> {
  const { rows } = await db.query<[number, string]>({ text: `SELECT no, name FROM ${NAMES_TABLE}`, rowMode: 'array' });
  return new Map(rows);
}

/**
 * The records of a PostgreSQL ledger decoded, with their rowids, in rowid order (the ledger's
 * order): from after `after` (a rowid), at most `limit` of them.
 */
export async function storedRecordsPg(
  db: Queryable,
  opts: { after?: number; limit?: number } = {},
): Promise<{ rowid: number; record: StoredRecord }[]> {
  const names = await ledgerNamesPg(db);
  const { rows } = await db.query<unknown[]>({
    text: `SELECT ${STORED_ROW_COLUMNS.join(', ')} FROM ${LEDGER_TABLE} WHERE rowid > $1 ORDER BY rowid${opts.limit === undefined ? '' : ' LIMIT $2'}`,
    values: opts.limit === undefined ? [opts.after ?? 0] : [opts.after ?? 0, opts.limit],
    rowMode: 'array',
  });
  return rows.map((row) => ({ rowid: row[STORED_RECORD_FIELDS.length] as number, record: decodeRow(row, names) }));
}

/** The record's fields in the contract's order, then import_id, updated_at and movement: what recordOfRow reads. */
const RECORD_ORDER = [...RECORD_FIELDS, 'import_id', 'updated_at', 'movement'] as const;

/**
 * Records whose column holds one of the values, as reconcile/repository.ts's recordsWhereIn reads
 * them on SQLite: by the column's tagged key (one lookup of its index for the whole list), a hash
 * by the hash index's expression first. Each value once; duplicates are harmless.
 */
export async function recordsWhereInPg(db: Queryable, column: LookupColumn, values: Iterable<string>): Promise<LedgerRecord[]> {
  const list = [...new Set(values)];
  if (list.length === 0) return [];
  const { key } = ENCODED[column];
  const keys = list.map((v) => keyOf(column, v));
  const where =
    column === 'hash'
      ? `substr(${key}, 1, 8) = ANY (SELECT substr(k, 1, 8) FROM unnest($1::bytea[]) k) AND ${key} = ANY ($1::bytea[])`
      : `${key} = ANY ($1::bytea[])`;
  const names = await ledgerNamesPg(db);
  const { rows } = await db.query<unknown[]>({
    text: `SELECT ${STORED_ROW_COLUMNS.join(', ')} FROM ${LEDGER_TABLE} WHERE ${where} ORDER BY rowid`,
    values: [keys],
    rowMode: 'array',
  });
  return rows.map((row) => {
    const r = decodeRow(row, names);
    return recordOfRow(RECORD_ORDER.map((f) => r[f]));
  });
}
