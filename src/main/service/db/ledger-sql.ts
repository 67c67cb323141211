import {
  LEDGER_FIELDS,
  LEDGER_STATUSES,
  LEDGER_TYPES,
  PARTIAL_SEARCH_MIN,
  type LedgerStatus,
  type LedgerType,
} from '../../../shared/ledger';

/*
 * How the ledger is stored (migration 0012). The records are rows of `ledger_rows`, each field in
 * the fewest bytes that give it back exactly; the view `transactions` gives them back under the
 * contract's names and types, so every reader reads records as they were written, and writes
 * through the view (its INSTEAD OF triggers) encode them. The import writes `ledger_rows` itself.
 *
 * - transaction_id and request_id: a lower-case UUID is its 16 bytes; any other text stays text.
 * - hash: `0x` and 64 lower-case hex digits is its 32 bytes; 64 lower-case hex digits alone (a Tron
 *   hash) a zero byte and its 32 bytes; any other text stays text.
 * - type and status: their place in the contract's list (0, 1, ...); any other text stays text.
 * - wallet_id, chain_id, token_id and import_id: a small integer, the name's number in
 *   `ledger_names` (names are never removed from it: a number always means one name).
 *
 * Every encoding is one to one: a value that is not in the canonical form is kept as text, and a
 * canonical one is never text, so equal records are equal rows and a lookup by the encoded value
 * finds exactly the records of the value. The columns that may hold either have no type (no
 * affinity): SQLite keeps what is written.
 *
 * The encoders below take a plain SQL name (a column, or a name bound once in a subquery): they
 * read it several times. Migration 0012 holds the view and triggers as this file made them; a test
 * (ledger-sql.test.ts) checks that the store's are still these.
 */

export const LEDGER_TABLE = 'ledger_rows';
export const NAMES_TABLE = 'ledger_names';

const HEX = '[0-9a-f]';
const UUID_GLOB = [8, 4, 4, 4, 12].map((n) => HEX.repeat(n)).join('-');
const HASH_GLOB = HEX.repeat(64);

/** A lower-case UUID as its 16 bytes; any other value as it is. */
export const encodeId = (x: string): string => `CASE WHEN ${x} GLOB '${UUID_GLOB}' THEN unhex(replace(${x}, '-', '')) ELSE ${x} END`;

/** The inverse of encodeId. */
export const decodeId = (k: string): string =>
  `CASE WHEN typeof(${k}) = 'blob' THEN lower(${[
    [1, 8],
    [9, 4],
    [13, 4],
    [17, 4],
    [21, 12],
  ]
    .map(([from, n]) => `substr(hex(${k}), ${from}, ${n})`)
    .join(" || '-' || ")}) ELSE ${k} END`;

/** `0x` and 64 lower-case hex digits as 32 bytes, 64 such digits alone as a zero byte and 32 bytes; any other value as it is. */
const encodeHash = (x: string): string =>
  `CASE WHEN ${x} GLOB '0x${HASH_GLOB}' THEN unhex(substr(${x}, 3)) WHEN ${x} GLOB '${HASH_GLOB}' THEN unhex('00' || ${x}) ELSE ${x} END`;

/** The inverse of encodeHash. */
const decodeHash = (k: string): string =>
  `CASE WHEN typeof(${k}) <> 'blob' THEN ${k} WHEN length(${k}) = 32 THEN '0x' || lower(hex(${k})) ELSE lower(hex(substr(${k}, 2))) END`;

/**
 * The key transactions_hash_idx holds for an encoded hash: its first 8 bytes (of a hash kept as
 * text, its first 8 characters). A lookup by hash names this expression, then compares the whole;
 * a search by the hash's first characters reads a range of it (identifierSearchSql).
 */
export const hashIndexKey = (k: string): string => `substr(${k}, 1, 8)`;

const encodeListed = (list: readonly string[], x: string): string =>
  `CASE ${x} ${list.map((v, i) => `WHEN '${v}' THEN ${i}`).join(' ')} ELSE ${x} END`;
const decodeListed = (list: readonly string[], k: string): string =>
  `CASE ${k} ${list.map((v, i) => `WHEN ${i} THEN '${v}'`).join(' ')} ELSE ${k} END`;

const encodeType = (x: string): string => encodeListed(LEDGER_TYPES, x);
const encodeStatus = (x: string): string => encodeListed(LEDGER_STATUSES, x);

/** A name's number (NULL for a name never stored: it matches no record). */
export const nameNo = (x: string): string => `(SELECT no FROM ${NAMES_TABLE} WHERE name = ${x})`;
/** A number's name (the inverse of nameNo). */
export const nameOf = (k: string): string => `(SELECT name FROM ${NAMES_TABLE} WHERE no = ${k})`;

/**
 * How a field is kept, for readers that decode in JavaScript (db/record-sql.ts): `id` as encodeId,
 * `hash` as encodeHash, `listed` by its place in `list`, `name` by its number in ledger_names.
 */
type EncodingKind = 'id' | 'hash' | 'listed' | 'name';

/**
 * The encoded columns of `ledger_rows`, by the field they hold (the view also shows them under these
 * names, for filters that must reach an index), with each direction of the encoding.
 */
export const ENCODED = {
  transaction_id: { key: 'tx_key', encode: encodeId, decode: decodeId, kind: 'id' },
  wallet_id: { key: 'wallet_no', encode: nameNo, decode: nameOf, kind: 'name' },
  type: { key: 'type_key', encode: encodeType, decode: (k: string) => decodeListed(LEDGER_TYPES, k), kind: 'listed', list: LEDGER_TYPES },
  status: {
    key: 'status_key',
    encode: encodeStatus,
    decode: (k: string) => decodeListed(LEDGER_STATUSES, k),
    kind: 'listed',
    list: LEDGER_STATUSES,
  },
  hash: { key: 'hash_key', encode: encodeHash, decode: decodeHash, kind: 'hash' },
  chain_id: { key: 'chain_no', encode: nameNo, decode: nameOf, kind: 'name' },
  token_id: { key: 'token_no', encode: nameNo, decode: nameOf, kind: 'name' },
  request_id: { key: 'request_key', encode: encodeId, decode: decodeId, kind: 'id' },
  import_id: { key: 'import_no', encode: nameNo, decode: nameOf, kind: 'name' },
} as const satisfies Record<
  string,
  { key: string; encode: (x: string) => string; decode: (k: string) => string; kind: EncodingKind; list?: readonly string[] }
>;

type EncodedField = keyof typeof ENCODED;
const encoded = (f: string): f is EncodedField => Object.hasOwn(ENCODED, f);

/** The fields held by name number (wallet, chain, token, import): a name must be in ledger_names before a row can hold it. */
export const NAMED_FIELDS = (Object.keys(ENCODED) as EncodedField[]).filter((f) => ENCODED[f].encode === nameNo);

/** Every field of a stored record, in the view's order: the contract's, then the store's own. */
export const STORED_RECORD_FIELDS = [...LEDGER_FIELDS, 'import_id', 'updated_at', 'movement'] as const;
export type StoredRecordField = (typeof STORED_RECORD_FIELDS)[number];

/** The column of ledger_rows that holds a field, quoted (one is `to`). */
export const columnOf = (f: StoredRecordField): string => `"${encoded(f) ? ENCODED[f].key : f}"`;

/** The SQL that stores a field's value given as `x` (a plain name, see the top of this file). */
export const encodeField = (f: StoredRecordField, x: string): string => (encoded(f) ? ENCODED[f].encode(x) : x);

/** The view: every field decoded under its name, then the encoded keys, and the row's rowid. */
export function viewSql(): string {
  const fields = STORED_RECORD_FIELDS.map((f) => `${encoded(f) ? ENCODED[f].decode(`r.${ENCODED[f].key}`) : `r.${columnOf(f)}`} AS "${f}"`);
  const keys = Object.values(ENCODED).map((e) => `r.${e.key}`);
  return `CREATE VIEW transactions AS SELECT r.rowid AS rowid, ${[...fields, ...keys].join(', ')} FROM ${LEDGER_TABLE} r`;
}

/** Put the names a new or changed record holds (given as `x(field)`) into ledger_names. */
const internNamesSql = (x: (f: string) => string): string =>
  `INSERT OR IGNORE INTO ${NAMES_TABLE} (name) SELECT name FROM (${NAMED_FIELDS.map((f) => `SELECT ${x(f)} AS name`).join(' UNION ALL ')}) WHERE name IS NOT NULL`;

/** Writes through the view: each becomes the same write of ledger_rows, encoded. */
export function triggerSql(): string[] {
  const written = STORED_RECORD_FIELDS.filter((f) => f !== 'movement');
  const value = (f: StoredRecordField) => encodeField(f, `NEW."${f}"`);
  const intern = internNamesSql((f) => `NEW."${f}"`);
  return [
    `CREATE TRIGGER transactions_insert INSTEAD OF INSERT ON transactions BEGIN ${intern}; INSERT INTO ${LEDGER_TABLE} (rowid, ${[
      ...written.map(columnOf),
      'movement',
    ].join(', ')}) VALUES (NEW.rowid, ${[...written.map(value), 'coalesce(NEW.movement, 0)'].join(', ')}); END`,
    `CREATE TRIGGER transactions_update INSTEAD OF UPDATE ON transactions BEGIN ${intern}; UPDATE ${LEDGER_TABLE} SET ${STORED_RECORD_FIELDS.map(
      (f) => `${columnOf(f)} = ${f === 'movement' ? 'coalesce(NEW.movement, 0)' : value(f)}`,
    ).join(', ')} WHERE rowid = OLD.rowid; END`,
    `CREATE TRIGGER transactions_delete INSTEAD OF DELETE ON transactions BEGIN DELETE FROM ${LEDGER_TABLE} WHERE rowid = OLD.rowid; END`,
  ];
}

/**
 * A test of an encoded column against one value (bound as the `?` in `param`, once): the value is
 * encoded once, and the column compared with it, so the column's index serves.
 */
export const keyEquals = (f: EncodedField, column: string, param = '?'): string =>
  `${column} = (SELECT ${ENCODED[f].encode('v')} FROM (SELECT ${param} AS v))`;

/**
 * A test of an encoded hash column against one value, bound twice: by the hash index's key first
 * (so the index serves), then whole.
 */
export const hashEquals = (column: string): string =>
  `${hashIndexKey(column)} = (SELECT ${hashIndexKey(encodeHash('v'))} FROM (SELECT ? AS v)) AND ${keyEquals('hash', column)}`;

/** The stored number of a type or status, for SQL that reads ledger_rows (or the view's keys). */
export const typeKey = (t: LedgerType): number => LEDGER_TYPES.indexOf(t);
export const statusKey = (s: LedgerStatus): number => LEDGER_STATUSES.indexOf(s);

/*
 * The same encodings in JavaScript, for the import's writer: it binds each row's values encoded,
 * a plain INSERT, rather than running the SQL encoders a row (a third of its time). Each must agree
 * with its SQL twin above on every value; ledger-sql.test.ts checks them side by side.
 */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HASH_RE = /^(0x)?[0-9a-f]{64}$/;

/** Whether encodeId (transaction_id, request_id) or encodeHash (hash) keeps a value as bytes; else it keeps it as text. */
export const keptAsBytes = (field: 'transaction_id' | 'request_id' | 'hash', v: string): boolean =>
  field === 'hash' ? HASH_RE.test(v) : UUID_RE.test(v);

/** Each lower-case hex digit's value, -1 for every other UTF-16 unit. */
const HEX_VALUE = new Int8Array(0x10000).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;

/** Hex digits of v from `from` on into out (one byte a pair); false at the first that is not lower-case hex. */
function hexInto(v: string, from: number, out: Buffer, at: number, bytes: number): boolean {
  for (let i = 0; i < bytes; i++) {
    const hi = HEX_VALUE[v.charCodeAt(from + 2 * i)]!;
    const lo = HEX_VALUE[v.charCodeAt(from + 2 * i + 1)]!;
    if ((hi | lo) < 0) return false;
    out[at + i] = (hi << 4) | lo;
  }
  return true;
}

/** A lower-case UUID's 16 bytes into out (UUID_RE, checked as it is read); false for any other text. */
function uuidInto(v: string, out: Buffer): boolean {
  return (
    v.length === 36 &&
    v.charCodeAt(8) === 45 &&
    v.charCodeAt(13) === 45 &&
    v.charCodeAt(18) === 45 &&
    v.charCodeAt(23) === 45 &&
    hexInto(v, 0, out, 0, 4) &&
    hexInto(v, 9, out, 4, 2) &&
    hexInto(v, 14, out, 6, 2) &&
    hexInto(v, 19, out, 8, 2) &&
    hexInto(v, 24, out, 10, 6)
  );
}

/** A listed value's place, as a BigInt: better-sqlite3 binds a number as a REAL (8 bytes in a column without affinity), a BigInt as an INTEGER. */
const listedValue = (list: readonly string[]) => {
  const places = list.map((_v, i) => BigInt(i));
  return (v: string): string | bigint => places[list.indexOf(v)] ?? v;
};

type ValueEncoders = Partial<Record<StoredRecordField, (v: string) => string | bigint | Buffer>>;

/** encodeId's value, written into `bytes` (the same buffer for every value). */
const idInto = (bytes: Buffer) => (v: string) => (uuidInto(v, bytes) ? bytes : v);

/**
 * The encoder of a field's value, for the fields encoded without ledger_names (those are numbered
 * by the writer), each writing its bytes into a buffer of its own, the same buffer again for every
 * value: what the import's writer binds a row at a time (better-sqlite3 copies a bound buffer).
 * Without a regular expression, a copy of the text and a new buffer a value, the writer spends a
 * fifth less time on a million rows (bench:import). Bind each value before encoding the next.
 */
export function reusingValueEncoders(): ValueEncoders {
  const hash32 = Buffer.alloc(32);
  // A hash without 0x: a zero byte first.
  const hash33 = Buffer.alloc(33);
  return {
    transaction_id: idInto(Buffer.alloc(16)),
    request_id: idInto(Buffer.alloc(16)),
    hash: (v) => {
      if (v.length === 66 && v.charCodeAt(0) === 48 /* 0 */ && v.charCodeAt(1) === 120 /* x */)
        return hexInto(v, 2, hash32, 0, 32) ? hash32 : v;
      return v.length === 64 && hexInto(v, 0, hash33, 1, 32) ? hash33 : v;
    },
    type: listedValue(LEDGER_TYPES),
    status: listedValue(LEDGER_STATUSES),
  };
}

/** The same encoders, each value its own buffer. */
export const VALUE_ENCODERS: ValueEncoders = Object.fromEntries(
  Object.entries(reusingValueEncoders()).map(([field, encode]) => [
    field,
    (v: string) => {
      const e = encode(v);
      return Buffer.isBuffer(e) ? Buffer.from(e) : e;
    },
  ]),
);

/** encodeId's value. */
export const encodeIdValue = (v: string): string | Buffer => {
  const bytes = Buffer.alloc(16);
  return uuidInto(v, bytes) ? bytes : v;
};

/** The hex string just above every hex string beginning with `hex` (undefined: none is, it is all f). */
function hexAfter(hex: string): string | undefined {
  const i = [...hex].findLastIndex((c) => c !== 'f');
  if (i < 0) return undefined;
  return hex.slice(0, i) + (parseInt(hex[i]!, 16) + 1).toString(16);
}

const evenHex = (hex: string) => (hex.length % 2 ? `${hex}0` : hex);

/** The text just above every text beginning with `text` (its last character one higher). */
function textAfter(text: string): string {
  const last = text.codePointAt(text.length - 1)!;
  const size = last > 0xffff ? 2 : 1;
  return text.slice(0, -size) + String.fromCodePoint(Math.min(last + 1, 0x10ffff));
}

interface Part {
  where: string;
  args: (string | number)[];
}

/**
 * Rows of `column` (an encoded key, or an expression over one) that begin with hex digits as a
 * blob (`lead`: bytes every such key starts with, e.g. a bare hash's zero byte), by one range of
 * its index; `whole` (the column's full value) is checked too where the range cannot tell.
 */
function blobPrefix(column: string, hex: string, lead = '', whole?: { column: string; max: number }): Part {
  const within = whole === undefined ? hex : hex.slice(0, whole.max * 2 - lead.length);
  const after = hexAfter(lead + within);
  const where = [`${column} >= unhex(?)`, ...(after !== undefined ? [`${column} < unhex(?)`] : [])];
  const args: string[] = [evenHex(lead + within), ...(after !== undefined ? [evenHex(after)] : [])];
  if (whole !== undefined && within.length < hex.length) {
    where.push(`substr(hex(${whole.column}), 1, ?) = upper(?)`);
    args.push(String(lead.length + hex.length), lead + hex);
  }
  return { where: where.join(' AND '), args };
}

/** Rows of `column` that begin with `text` as written, kept as text (a blob sorts above any text, so none is in the range). */
function textPrefix(column: string, text: string, whole?: { column: string; max: number }): Part {
  const within = whole === undefined ? text : [...text].slice(0, whole.max).join('');
  const where = [`${column} >= ?`, `${column} < ?`];
  const args = [within, textAfter(within)];
  if (whole !== undefined && within !== text) {
    where.push(`substr(${whole.column}, 1, ?) = ?`);
    args.push(String([...text].length), text);
  }
  return { where: where.join(' AND '), args };
}

/** The hex digits of a UUID's beginning as typed (dashes where a UUID has them), or undefined when it is no such beginning. */
function uuidHexPrefix(s: string): string | undefined {
  const lower = s.toLowerCase();
  const shape = '________-____-____-____-____________';
  if (lower.length > shape.length) return undefined;
  for (let i = 0; i < lower.length; i++) {
    const dash = shape[i] === '-';
    if (dash ? lower[i] !== '-' : !/[0-9a-f]/.test(lower[i]!)) return undefined;
  }
  return lower.replace(/-/g, '');
}

/**
 * The rows a search of the ledger finds, as a subquery of rowids of `ledger_rows`: a transaction
 * ID, request ID or hash equal to it (hex hashes without case, with or without 0x) and, from
 * PARTIAL_SEARCH_MIN characters, every one that begins with it. Each part reads one index: the ID's
 * and the request's (whole values: a range of UUID bytes, or of text as written) and the hash's
 * first 8 bytes (a range of them, the whole hash checked past 16 hex digits), so a search costs a
 * few index ranges whatever the ledger's size.
 */
export function identifierSearchSql(search: string): { sql: string; args: (string | number)[] } {
  const s = search.trim();
  const lowered = /^(0x)?[0-9a-fA-F]{64}$|^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s)
    ? s.toLowerCase()
    : s;
  const parts: Part[] = [
    { where: keyEquals('transaction_id', 'tx_key'), args: [lowered] },
    { where: `hash_key IS NOT NULL AND ${hashEquals('hash_key')}`, args: [lowered, lowered] },
    { where: keyEquals('request_id', 'request_key'), args: [s] },
  ];
  const bare = s.replace(/^0x/i, '');
  if (bare.length >= PARTIAL_SEARCH_MIN) {
    for (const key of ['tx_key', 'request_key']) {
      const hex = uuidHexPrefix(s);
      if (hex !== undefined) parts.push(blobPrefix(key, hex));
      parts.push(textPrefix(key, s));
    }
    // The hash index holds recorded hashes only: each part says so, for the index to serve.
    const onHash = (p: Part): Part => ({ where: `hash_key IS NOT NULL AND ${p.where}`, args: p.args });
    const hashKey = hashIndexKey('hash_key');
    const whole = { column: 'hash_key', max: 8 };
    if (/^[0-9a-fA-F]+$/.test(bare) && bare.length <= 64) {
      const hex = bare.toLowerCase();
      // 0x and 64 hex digits are kept as their 32 bytes; 64 digits alone as a zero byte and the 32.
      parts.push(onHash(blobPrefix(hashKey, hex, '', whole)));
      if (bare === s) parts.push(onHash(blobPrefix(hashKey, hex, '00', whole)));
    }
    parts.push(onHash(textPrefix(hashKey, s, whole)));
  }
  const sql = parts.map((p) => `SELECT rowid FROM ${LEDGER_TABLE} WHERE ${p.where}`).join(' UNION ALL ');
  return { sql, args: parts.flatMap((p) => p.args) };
}
