import type { Db } from '../db/open';
import { stmt } from '../db/statements';

/*
 * SQL of balances: the records that move a balance, streamed (never held whole) for ledger/balances.ts
 * to sum exactly. Amounts stay decimal strings all the way: SQLite would sum them as floats.
 */

/**
 * The records that can move a balance (the rule in full: ledger/balances.ts `effectOf`): Completed
 * ones, and Failed withdrawals that went on chain (a hash), which may have paid their fee. Every
 * other record moves nothing, so it is not read at all.
 */
const MOVES = `(t.status = 'Completed' OR (t.status = 'Failed' AND t.type = 'Withdrawal' AND t.hash IS NOT NULL))`;

/** The moment that places a record in time: when it completed, else when it was confirmed, else created. */
const AT = 'coalesce(t.completed_at, t.confirmed_at, t.created_at)';

/**
 * A moving record as read: [wallet_id, chain_id, token_id, type, status, hash, amount, fee,
 * amount_actual, at], and transaction_id when read in order.
 */
export type MovingRow = [
  string,
  string,
  string,
  string,
  string,
  string | null,
  string,
  string | null,
  string | null,
  number | null,
  string?,
];

const COLUMNS = `t.wallet_id, t.chain_id, t.token_id, t.type, t.status, t.hash, t.amount, t.fee, t.amount_actual, ${AT} AS at`;

export interface MovingFilter {
  /** null: every wallet. */
  walletIds: readonly string[] | null;
  tokenId?: string;
  /** Only records placed at or after this moment (dated records only). */
  from?: number;
  /** Only records placed at or before this moment, and the undated ones (null: every record). */
  to: number | null;
}

/**
 * The moving records of the filter, one at a time; `ordered` in the statement's order (time, then
 * transaction_id). One wallet is read through the wallet's index; the rest is a scan of the ledger.
 */
export function movingRows(db: Db, f: MovingFilter, ordered = false): IterableIterator<MovingRow> {
  const where = [MOVES];
  const args: (string | number)[] = [];
  if (f.walletIds !== null && f.walletIds.length === 1) {
    where.push('t.wallet_id = ?');
    args.push(f.walletIds[0]!);
  } else if (f.walletIds !== null) {
    where.push('t.wallet_id IN (SELECT value FROM json_each(?))');
    args.push(JSON.stringify(f.walletIds));
  }
  if (f.tokenId !== undefined) {
    where.push('t.token_id = ?');
    args.push(f.tokenId);
  }
  if (f.from !== undefined) {
    where.push(`${AT} >= ?`);
    args.push(f.from);
  }
  if (f.to !== null) {
    where.push(f.from !== undefined ? `${AT} <= ?` : `(${AT} <= ? OR ${AT} IS NULL)`);
    args.push(f.to);
  }
  const order = ordered ? ' ORDER BY at, t.transaction_id' : '';
  const columns = ordered ? `${COLUMNS}, t.transaction_id` : COLUMNS;
  return stmt(db, `SELECT ${columns} FROM transactions t WHERE ${where.join(' AND ')}${order}`)
    .raw(true)
    .iterate(...args) as IterableIterator<MovingRow>;
}

/** A token's chain and symbol, from the catalogue. */
export function tokenInfo(db: Db, tokenId: string): { chain_id: string; symbol: string } | undefined {
  return stmt<[string], { chain_id: string; symbol: string }>(db, 'SELECT chain_id, symbol FROM tokens WHERE token_id = ?').get(tokenId);
}

export function walletExists(db: Db, walletId: string): boolean {
  return stmt<[string], number>(db, 'SELECT 1 FROM wallets WHERE wallet_id = ?').pluck().get(walletId) !== undefined;
}

/** The wallets' names ('' for an unnamed one). */
export function walletNames(db: Db): Map<string, string> {
  const rows = stmt<[], { wallet_id: string; name: string }>(db, 'SELECT wallet_id, name FROM wallets').all();
  return new Map(rows.map((r) => [r.wallet_id, r.name]));
}
