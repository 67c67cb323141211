import { RECORD_FIELDS, RECORD_TIME_FIELDS, REQUIRED_FIELDS } from '../../../shared/ledger';

/*
 * The SQL that reads a ledger record, made from the contract's one list of the record's fields
 * (shared/ledger.ts): every reader of records (the Ledger screen's lists, the verification's
 * lookups on either thread, tickets) reads through these, so a field added to or renamed in the
 * contract reaches every reader, and a row comes back already keyed by the contract's names.
 * Columns of fields a record may leave out hold NULL in the store (the partial indexes skip those
 * rows) and read as "", as the contract types them.
 */

const TIMES = new Set<string>(RECORD_TIME_FIELDS);
const ALWAYS = new Set<string>(REQUIRED_FIELDS);

/** One field's value expression over the table aliased `t`. */
const valueOf = (f: string): string => (TIMES.has(f) || ALWAYS.has(f) ? `t."${f}"` : `ifnull(t."${f}", '')`);

/** A record's columns, each named as its field, then the store's own `import_id` and `updated_at` (LedgerRecord). */
export const RECORD_COLUMNS = [...RECORD_FIELDS.map((f) => `${valueOf(f)} AS "${f}"`), 't.import_id AS import_id', 't.updated_at AS updated_at'].join(', ');

/** The same record as one JSON object (for a thread that hands records over as text). */
const RECORD_JSON = `json_object(${[...RECORD_FIELDS.map((f) => `'${f}', ${valueOf(f)}`), "'import_id', t.import_id", "'updated_at', t.updated_at"].join(', ')})`;

/** The identifiers a claim is looked up by, each an indexed column of `transactions`. */
export type LookupColumn = 'transaction_id' | 'hash' | 'request_id';

const whereIn = (column: LookupColumn) => `FROM transactions t WHERE t."${column}" IN (SELECT value FROM json_each(?))`;

/** Records whose column holds one of the values of a JSON array (the one parameter), a row each. */
export const recordsWhereInSql = (column: LookupColumn): string => `SELECT ${RECORD_COLUMNS} ${whereIn(column)}`;

/** The same records as one JSON array of objects: one string for the lookup thread to hand over. */
export const recordsWhereInJsonSql = (column: LookupColumn): string => `SELECT json_group_array(${RECORD_JSON}) ${whereIn(column)}`;
