import type { Identifier } from './match';

/*
 * The SQL that reads ledger records for a verification, shared by the service's thread
 * (repository.ts) and the lookup thread (lookup-worker.ts), which must read exactly the same.
 */

/** The identifiers a claim is looked up by (match.ts), each an indexed column of `transactions`. */
export type LookupColumn = Identifier;

/** A record's columns in the order fromRow (repository.ts) reads them. */
export const RECORD_COLUMNS = `t.transaction_id, t.wallet_id, t.request_id, t.type, t.status, t.amount, t."to", t.fee_ratio, t.fee_fixed,
  t.fee, t.er, t.amount_actual, t.hash, t.chain_id, t.token_id, t.created_at, t.confirmed_at, t.completed_at, t.import_id, t.updated_at`;

/** Records whose column holds one of the values of a JSON array (the one parameter). */
export const recordsWhereInSql = (column: LookupColumn): string =>
  `SELECT ${RECORD_COLUMNS} FROM transactions t WHERE t.${column} IN (SELECT value FROM json_each(?))`;

/** The same records as one JSON array of rows (each an array of RECORD_COLUMNS): one string to hand between threads. */
export const recordsWhereInJsonSql = (column: LookupColumn): string =>
  `SELECT json_group_array(json_array(${RECORD_COLUMNS})) FROM transactions t WHERE t.${column} IN (SELECT value FROM json_each(?))`;
