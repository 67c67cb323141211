import type { Shape } from '../../../shared/reconcile';
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

/** A stored moment (Unix ms, from 2000 to 2200 as the import takes them) as the shape writes it. */
const momentSql = (column: string, shape: Shape): string =>
  shape === 'A'
    ? `(t.${column} / 1000)`
    : `strftime('%Y-%m-%dT%H:%M:%S.', t.${column} / 1000, 'unixepoch') || substr(1000 + t.${column} % 1000, 2) || 'Z'`;

/**
 * A record as the verify answer shows it (recordShapeA / recordShapeB in match.ts: the same fields
 * in the same order, times in Unix seconds for A and ISO 8601 with milliseconds for B), written
 * by SQLite as JSON text while it reads the row: the answer then takes the text as it is instead
 * of building an object per record and writing it out again.
 */
export const shownRecordSql = (shape: Shape): string =>
  `json_object('transaction_id', t.transaction_id, 'wallet_id', t.wallet_id, 'request_id', t.request_id, 'type', t.type,
    'status', t.status, 'amount', t.amount, 'to', t."to", 'fee_ratio', t.fee_ratio, 'fee_fixed', t.fee_fixed, 'fee', t.fee,
    'er', t.er, 'amount_actual', t.amount_actual, 'hash', t.hash, 'chain_id', t.chain_id, 'token_id', t.token_id,
    'created_at', CASE WHEN t.created_at IS NULL THEN NULL ELSE ${momentSql('created_at', shape)} END,
    'confirmed_at', CASE WHEN t.confirmed_at IS NULL THEN NULL ELSE ${momentSql('confirmed_at', shape)} END,
    'completed_at', CASE WHEN t.completed_at IS NULL THEN NULL ELSE ${momentSql('completed_at', shape)} END)`;

const whereIn = (column: LookupColumn) => `FROM transactions t WHERE t.${column} IN (SELECT value FROM json_each(?))`;

/**
 * Records whose column holds one of the values of a JSON array (the one parameter), a row each;
 * with a shape, each row ends with the record's answer text (shownRecordSql).
 */
export const recordsWhereInSql = (column: LookupColumn, shape?: Shape): string =>
  `SELECT ${RECORD_COLUMNS}${shape ? `, ${shownRecordSql(shape)}` : ''} ${whereIn(column)}`;

/** Separates the answer texts of the records in one string (JSON text never holds a raw control character). */
export const SHOWN_SEPARATOR = '\u001e';

/**
 * The same records as one JSON array of rows (each an array of RECORD_COLUMNS): one string for
 * the lookup thread to hand over; with a shape, a second string of their answer texts, in the
 * same order, separated by SHOWN_SEPARATOR (null when no record is found).
 */
export const recordsWhereInJsonSql = (column: LookupColumn, shape?: Shape): string =>
  `SELECT json_group_array(json_array(${RECORD_COLUMNS}))${shape ? `, group_concat(${shownRecordSql(shape)}, char(30))` : ''} ${whereIn(column)}`;
