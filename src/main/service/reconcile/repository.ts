import type { TransactionRecord } from '../../../shared/ledger';
import type { Page } from '../../../shared/primitives';
import { FLAG_FIELDS, type FlagField, type Flags, type RunSummary, type Shape } from '../../../shared/reconcile';
import type { Db } from '../db/open';
import { stmt } from '../db/statements';

/*
 * The reconciliation store: reads the ledger (`transactions`, never written here), writes
 * verification runs and their results. Lookups take a whole batch at once through json_each, so a
 * request of 1000 claims costs a few index probes per claim and one statement per identifier kind.
 */

const RECORD_COLUMNS = `t.transaction_id, t.wallet_id, t.request_id, t.type, t.status, t.amount, t."to", t.fee_ratio, t.fee_fixed,
  t.fee, t.er, t.amount_actual, t.hash, t.chain_id, t.token_id, t.created_at, t.confirmed_at, t.completed_at, t.import_id, t.updated_at`;

const BY_COLUMN = {
  transaction_id: `SELECT ${RECORD_COLUMNS} FROM transactions t WHERE t.transaction_id IN (SELECT value FROM json_each(?))`,
  hash: `SELECT ${RECORD_COLUMNS} FROM transactions t WHERE t.hash IN (SELECT value FROM json_each(?))`,
  request_id: `SELECT ${RECORD_COLUMNS} FROM transactions t WHERE t.request_id IN (SELECT value FROM json_each(?))`,
} as const;

type RecordRow = [
  string, string, string | null, TransactionRecord['type'], TransactionRecord['status'], string, string | null, string | null, string | null,
  string | null, string | null, string | null, string | null, string, string, number | null, number | null, number | null, string | null, number,
];

// Rows come back as arrays and are built with one object literal: cheaper than better-sqlite3's
// generic row objects when a request reads a thousand records.
const fromRow = (r: RecordRow): TransactionRecord => ({
  transaction_id: r[0],
  wallet_id: r[1],
  request_id: r[2],
  type: r[3],
  status: r[4],
  amount: r[5],
  to: r[6],
  fee_ratio: r[7],
  fee_fixed: r[8],
  fee: r[9],
  er: r[10],
  amount_actual: r[11],
  hash: r[12],
  chain_id: r[13],
  token_id: r[14],
  created_at: r[15],
  confirmed_at: r[16],
  completed_at: r[17],
  import_id: r[18],
  updated_at: r[19],
});

/** Records whose column holds one of the values (each value once; duplicates are harmless). */
export function recordsWhereIn(db: Db, column: keyof typeof BY_COLUMN, values: Iterable<string>): TransactionRecord[] {
  const list = [...new Set(values)];
  if (list.length === 0) return [];
  return (stmt<[string], RecordRow>(db, BY_COLUMN[column]).raw(true).all(JSON.stringify(list)) as unknown as RecordRow[]).map(fromRow);
}

export function recordById(db: Db, transactionId: string): TransactionRecord | undefined {
  return stmt<[string], TransactionRecord>(db, `SELECT ${RECORD_COLUMNS} FROM transactions t WHERE t.transaction_id = ?`).get(transactionId);
}

/** Chains whose addresses are EVM hex (chain_identifier ETH): `to` compares case-insensitively there. */
export function evmChainIds(db: Db): Set<string> {
  return new Set(stmt<[], { chain_id: string }>(db, "SELECT chain_id FROM chains WHERE chain_identifier = 'ETH'").all().map((r) => r.chain_id));
}

/** The stored spelling of a wallet ID, matched case-insensitively (UUIDs are hex numbers). */
export function findWallet(db: Db, walletId: string): string | undefined {
  return stmt<[string], { wallet_id: string }>(db, 'SELECT wallet_id FROM wallets WHERE lower(wallet_id) = lower(?)').get(walletId)?.wallet_id;
}

export interface RunRow {
  run_id: string;
  source: 'api' | 'ui' | 'cli';
  api_key: string | null;
  label: string;
  wallet_id: string | null;
  shape: Shape;
  options: string;
  created_at: number;
}

export function insertRun(db: Db, run: RunRow): void {
  stmt(
    db,
    `INSERT INTO verification_runs (run_id, source, api_key, label, wallet_id, shape, options, item_count, matched, mismatched, not_found, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, ?)`,
  ).run(run.run_id, run.source, run.api_key, run.label, run.wallet_id, run.shape, run.options, run.created_at);
}

export interface ResultRow {
  idx: number;
  claimed: string;
  transaction_id: string | null;
  result: boolean;
  /** The false flags, see flagsJson. */
  flags: string;
  ticket_id: string | null;
}

/** Store a chunk of results and add its counts to the run's; the caller holds the transaction. */
export function insertResults(db: Db, runId: string, rows: readonly ResultRow[]): void {
  const insert = stmt(db, 'INSERT INTO verification_results (run_id, idx, claimed, transaction_id, result, flags, ticket_id) VALUES (?, ?, ?, ?, ?, ?, ?)');
  let matched = 0;
  let notFound = 0;
  for (const r of rows) {
    insert.run(runId, r.idx, r.claimed, r.transaction_id, r.result ? 1 : 0, r.flags, r.ticket_id);
    if (r.result) matched++;
    else if (r.transaction_id === null) notFound++;
  }
  stmt(
    db,
    `UPDATE verification_runs SET item_count = item_count + ?, matched = matched + ?, mismatched = mismatched + ?, not_found = not_found + ?
     WHERE run_id = ?`,
  ).run(rows.length, matched, rows.length - matched - notFound, notFound, runId);
}

const RUN_COLUMNS = 'run_id, source, label, api_key, wallet_id, shape, item_count, matched, mismatched, not_found, created_at';

export function getRun(db: Db, runId: string): RunSummary | undefined {
  return stmt<[string], RunSummary>(db, `SELECT ${RUN_COLUMNS} FROM verification_runs WHERE run_id = ?`).get(runId);
}

export function listRuns(db: Db, page: number, pageSize: number): Page<RunSummary> {
  const total = stmt<[], { n: number }>(db, 'SELECT count(*) AS n FROM verification_runs').get()!.n;
  const list = stmt<[number, number], RunSummary>(db, `SELECT ${RUN_COLUMNS} FROM verification_runs ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`).all(
    pageSize,
    (page - 1) * pageSize,
  );
  return { list, total, page, page_size: pageSize };
}

export type RunItemFilter = 'all' | 'matched' | 'mismatched' | 'not_found';

const FILTER_SQL: Record<RunItemFilter, string> = {
  all: '',
  matched: 'AND r.result = 1',
  mismatched: 'AND r.result = 0 AND r.transaction_id IS NOT NULL',
  not_found: 'AND r.transaction_id IS NULL',
};

export interface RunItemRow {
  idx: number;
  claimed: string;
  flags: string;
  result: number;
  ticket_id: string | null;
  record: TransactionRecord | null;
}

type JoinedRow = Omit<RunItemRow, 'record'> & { [K in keyof TransactionRecord as `rec_${K}`]: TransactionRecord[K] | null } & { found: number };

const JOINED_COLUMNS = RECORD_COLUMNS.split(',')
  .map((c) => c.trim())
  .map((c) => `${c} AS "rec_${c.replace(/^t\./, '').replace(/"/g, '')}"`)
  .join(', ');

/** A page of a run's items, each with the record as it stands in the ledger now. */
export function listRunItems(db: Db, runId: string, filter: RunItemFilter, page: number, pageSize: number): Page<RunItemRow> {
  const total = stmt<[string], { n: number }>(db, `SELECT count(*) AS n FROM verification_results r WHERE r.run_id = ? ${FILTER_SQL[filter]}`).get(runId)!.n;
  const rows = stmt<[string, number, number], JoinedRow>(
    db,
    `SELECT r.idx, r.claimed, r.flags, r.result, r.ticket_id, t.transaction_id IS NOT NULL AS found, ${JOINED_COLUMNS}
     FROM verification_results r LEFT JOIN transactions t ON t.transaction_id = r.transaction_id
     WHERE r.run_id = ? ${FILTER_SQL[filter]} ORDER BY r.idx LIMIT ? OFFSET ?`,
  ).all(runId, pageSize, (page - 1) * pageSize);
  const list = rows.map((row) => {
    const record: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(row)) if (k.startsWith('rec_')) record[k.slice(4)] = v;
    return {
      idx: row.idx,
      claimed: row.claimed,
      flags: row.flags,
      result: row.result,
      ticket_id: row.ticket_id,
      record: row.found ? (record as TransactionRecord) : null,
    };
  });
  return { list, total, page, page_size: pageSize };
}

/** Flags as stored: the JSON list of the false ones ("[]" for a match), a few bytes a result. */
export const flagsJson = (flags: Flags): string => JSON.stringify(FLAG_FIELDS.filter((f) => !flags[f]));

export function parseFlags(text: string): Flags {
  const falseOnes = new Set(JSON.parse(text) as FlagField[]);
  return Object.fromEntries(FLAG_FIELDS.map((f) => [f, !falseOnes.has(f)])) as Flags;
}
