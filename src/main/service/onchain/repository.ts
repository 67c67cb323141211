import type { LedgerRecord } from '../../../shared/ledger';
import type { OnchainCheck, OnchainField, OnchainItem, OnchainOutcome, OnchainSummary } from '../../../shared/onchain';
import type { Page } from '../../../shared/primitives';
import type { Db } from '../db/open';
import { keyEquals } from '../db/ledger-sql';
import { RECORD_COLUMNS, recordOfRow } from '../db/record-sql';
import { stmt } from '../db/statements';
import type { Judged } from './compare';

/* The SQL of checks against the chain: the records a check covers, its progress and findings. */

export interface Scope {
  wallet_id: string | null;
  /** created_at bounds, Unix ms, inclusive; null: open. */
  from: number | null;
  to: number | null;
}

/** The WHERE clause over `transactions t` of a scope, and its arguments. */
function scopeSql(scope: Scope): { where: string; args: (string | number)[] } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (scope.wallet_id !== null) {
    where.push(keyEquals('wallet_id', 't.wallet_no'));
    args.push(scope.wallet_id);
  }
  if (scope.from !== null) {
    where.push('t.created_at >= ?');
    args.push(scope.from);
  }
  if (scope.to !== null) {
    where.push('t.created_at <= ?');
    args.push(scope.to);
  }
  return { where: where.length ? where.join(' AND ') : '1', args };
}

/** Records in the scope: with a hash (those a node can be asked about), and without. */
export function scopeCounts(db: Db, scope: Scope): { with_hash: number; without_hash: number } {
  const { where, args } = scopeSql(scope);
  return stmt<unknown[], { with_hash: number; without_hash: number }>(
    db,
    `SELECT count(t.hash_key) AS with_hash, count(*) - count(t.hash_key) AS without_hash FROM ledger_rows t WHERE ${where}`,
  ).get(...args)!;
}

/** The next records of the scope with a hash, after rowid `after`, in rowid order: [rowid, record]. */
export function scopeRecords(db: Db, scope: Scope, after: number, limit: number): [number, LedgerRecord][] {
  const { where, args } = scopeSql(scope);
  const rows = stmt<unknown[], unknown[]>(
    db,
    `SELECT t.rowid, ${RECORD_COLUMNS} FROM transactions t WHERE ${where} AND t.hash_key IS NOT NULL AND t.rowid > ? ORDER BY t.rowid LIMIT ?`,
  )
    .raw(true)
    .all(...args, after, limit) as unknown[][];
  return rows.map((r) => [r[0] as number, recordOfRow(r.slice(1))]);
}

const CHECK_COLUMNS = `check_id, state, wallet_id, period_from, period_to, time_zone, total, cursor, without_hash, agrees, differs, pending,
  not_found, unchecked, retries, resumed, started_at, updated_at, finished_at, error`;

interface CheckRow {
  check_id: string;
  state: OnchainCheck['state'];
  wallet_id: string | null;
  period_from: number | null;
  period_to: number | null;
  time_zone: string;
  total: number;
  cursor: number;
  without_hash: number;
  agrees: number;
  differs: number;
  pending: number;
  not_found: number;
  unchecked: number;
  retries: number;
  resumed: number;
  started_at: number;
  updated_at: number;
  finished_at: number | null;
  error: string;
}

function checkOf(r: CheckRow): OnchainCheck & { cursor: number } {
  const summary: OnchainSummary = {
    agrees: r.agrees,
    differs: r.differs,
    pending: r.pending,
    not_found: r.not_found,
    unchecked: r.unchecked,
  };
  return {
    check_id: r.check_id,
    state: r.state,
    wallet_id: r.wallet_id,
    from: r.period_from,
    to: r.period_to,
    time_zone: r.time_zone,
    total: r.total,
    done: r.agrees + r.differs + r.pending + r.not_found + r.unchecked,
    without_hash: r.without_hash,
    summary,
    retries: r.retries,
    resumed: r.resumed,
    started_at: r.started_at,
    updated_at: r.updated_at,
    finished_at: r.finished_at,
    error: r.error,
    cursor: r.cursor,
  };
}

export function getCheck(db: Db, checkId: string): (OnchainCheck & { cursor: number }) | undefined {
  const row = stmt<[string], CheckRow>(db, `SELECT ${CHECK_COLUMNS} FROM onchain_checks WHERE check_id = ?`).get(checkId);
  return row && checkOf(row);
}

export function latestCheck(db: Db): (OnchainCheck & { cursor: number }) | undefined {
  const row = stmt<[], CheckRow>(db, `SELECT ${CHECK_COLUMNS} FROM onchain_checks ORDER BY started_at DESC, rowid DESC LIMIT 1`).get();
  return row && checkOf(row);
}

const scopeKey = (s: Scope): string => `${s.wallet_id ?? '*'}|${s.from ?? ''}|${s.to ?? ''}`;

/** The newest check of the scope (a new check resumes it when it stopped before its end). */
export function latestOfScope(db: Db, scope: Scope): (OnchainCheck & { cursor: number }) | undefined {
  const row = stmt<[string], CheckRow>(
    db,
    `SELECT ${CHECK_COLUMNS} FROM onchain_checks WHERE scope_key = ? ORDER BY started_at DESC, rowid DESC LIMIT 1`,
  ).get(scopeKey(scope));
  return row && checkOf(row);
}

export function insertCheck(
  db: Db,
  c: { check_id: string; scope: Scope; time_zone: string; total: number; without_hash: number; actor: string; at: number },
): void {
  stmt(
    db,
    `INSERT INTO onchain_checks (check_id, scope_key, wallet_id, period_from, period_to, time_zone, state, total, without_hash, actor, started_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`,
  ).run(
    c.check_id,
    scopeKey(c.scope),
    c.scope.wallet_id,
    c.scope.from,
    c.scope.to,
    c.time_zone,
    c.total,
    c.without_hash,
    c.actor,
    c.at,
    c.at,
  );
}

/** A stopped check runs again: the records added to its scope since count too. */
export function resumeCheck(db: Db, checkId: string, total: number, withoutHash: number, at: number): void {
  stmt(
    db,
    `UPDATE onchain_checks SET state = 'running', error = '', finished_at = NULL, total = ?, without_hash = ?, resumed = resumed + 1, updated_at = ?
     WHERE check_id = ?`,
  ).run(total, withoutHash, at, checkId);
}

export function setCheckState(db: Db, checkId: string, state: OnchainCheck['state'], at: number, error = ''): void {
  stmt(
    db,
    `UPDATE onchain_checks SET state = ?, error = ?, updated_at = ?, finished_at = CASE WHEN ? = 'running' THEN NULL ELSE ? END WHERE check_id = ?`,
  ).run(state, error, at, state, at, checkId);
}

/** Keep the newest `keep` checks (with their findings); older ones go. */
export function pruneChecks(db: Db, keep: number): void {
  stmt(
    db,
    `DELETE FROM onchain_checks WHERE check_id NOT IN (SELECT check_id FROM onchain_checks ORDER BY started_at DESC, rowid DESC LIMIT ?)`,
  ).run(keep);
}

/** A record's finding as kept: the judgement (compare.ts) with the record it is of. */
export interface ResultRow extends Judged {
  record_no: number;
  transaction_id: string;
  wallet_id: string;
  chain_id: string;
  token_id: string;
  hash: string;
  ticket_id: string | null;
  checked_at: number;
}

/**
 * A page's findings, its counts and where the check has got to, in one step: a check stopped
 * after it resumes after the page. A record found again (a resumed check reading a record it had)
 * replaces its finding; the counts are made from the findings, so it is never counted twice.
 */
export function storeResults(db: Db, checkId: string, rows: readonly ResultRow[], cursor: number, retries: number, at: number): void {
  const insert = stmt(
    db,
    `INSERT OR REPLACE INTO onchain_results (check_id, record_no, transaction_id, wallet_id, chain_id, token_id, hash, outcome, fields, reason, chain,
       confirmations, block_number, ticket_id, checked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of rows)
    insert.run(
      checkId,
      r.record_no,
      r.transaction_id,
      r.wallet_id,
      r.chain_id,
      r.token_id,
      r.hash,
      r.outcome,
      r.fields.join(','),
      r.reason,
      JSON.stringify(r.chain),
      r.confirmations,
      r.block_number,
      r.ticket_id,
      r.checked_at,
    );
  const counts = Object.fromEntries(
    stmt<[string], { outcome: string; n: number }>(
      db,
      'SELECT outcome, count(*) AS n FROM onchain_results WHERE check_id = ? GROUP BY outcome',
    )
      .all(checkId)
      .map((r) => [r.outcome, r.n]),
  );
  stmt(
    db,
    `UPDATE onchain_checks SET cursor = max(cursor, ?), retries = ?, updated_at = ?, agrees = ?, differs = ?, pending = ?, not_found = ?, unchecked = ?
     WHERE check_id = ?`,
  ).run(
    cursor,
    retries,
    at,
    counts.agrees ?? 0,
    counts.differs ?? 0,
    counts.pending ?? 0,
    counts.not_found ?? 0,
    counts.unchecked ?? 0,
    checkId,
  );
}

const ITEM_COLUMNS =
  'record_no, transaction_id, wallet_id, chain_id, token_id, hash, outcome, fields, reason, chain, confirmations, block_number, ticket_id, checked_at';

type StoredRow = Omit<ResultRow, 'fields' | 'chain'> & { fields: string; chain: string };

const itemOf = ({ record_no: _n, ...r }: StoredRow): OnchainItem => ({
  ...r,
  fields: r.fields === '' ? [] : (r.fields.split(',') as OnchainField[]),
  chain: JSON.parse(r.chain) as Record<string, string>,
});

/** A check's findings in the order of the records, of one outcome or all. */
export function listItems(
  db: Db,
  checkId: string,
  outcome: OnchainOutcome | undefined,
  notable: boolean,
  page: number,
  pageSize: number,
): Page<OnchainItem> {
  const filter = (outcome === undefined ? '' : 'AND outcome = ?') + (notable ? " AND outcome <> 'agrees'" : '');
  const args: (string | number)[] = outcome === undefined ? [checkId] : [checkId, outcome];
  const total = stmt<unknown[], number>(db, `SELECT count(*) FROM onchain_results WHERE check_id = ? ${filter}`)
    .pluck()
    .get(...args) as number;
  const rows = stmt<unknown[], StoredRow>(
    db,
    `SELECT ${ITEM_COLUMNS} FROM onchain_results WHERE check_id = ? ${filter} ORDER BY record_no LIMIT ? OFFSET ?`,
  ).all(...args, pageSize, (page - 1) * pageSize);
  return { list: rows.map(itemOf), total, page, page_size: pageSize };
}
