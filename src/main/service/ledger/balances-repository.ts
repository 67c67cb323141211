import type { Db } from '../db/open';
import { ExactSum } from './exact-sum';
import { stmt } from '../db/statements';
import { keyEquals, LEDGER_TABLE, nameOf, NAMES_TABLE, statusKey, typeKey } from '../db/ledger-sql';

/*
 * SQL of balances (the rule: ledger/balances.ts and docs/ledger.md "Balances"). Each record that can
 * move a balance is read as three flows in its own token: `inflow`, `outflow` and `fee` (NULL: none).
 *
 * Amounts are decimal strings, and SQLite would add them as floats, so a sum is made exact in SQL
 * with integers: each amount splits into its integer part and two 9-digit halves of its fraction
 * (up to 18 places), and SQLite sums each part as a 64-bit integer (exact; an overflow is an error,
 * never a wrong sum). That keeps summing a million records in SQLite's C, several times faster than
 * handing each row to JavaScript. A ledger the parts cannot hold (an amount with more than 18
 * integer digits or fraction places, or sums past 64 bits) is summed by streaming its flows through
 * big.js instead: the same answer, slower.
 */

/*
 * The records are read by their stored keys (db/ledger-sql.ts), from `ledger_rows` or the view: a
 * type or status is its number, a wallet, chain or token its name's number, decoded once per group.
 */
const COMPLETED = statusKey('Completed');
const DEPOSIT = typeKey('Deposit');
const WITHDRAWAL = typeKey('Withdrawal');

/** Completed records, and Failed withdrawals that went on chain (a hash): the only ones that can move a balance. */
const MOVES = `(t.status_key = ${COMPLETED} OR (t.status_key = ${statusKey('Failed')} AND t.type_key = ${WITHDRAWAL} AND t.hash_key IS NOT NULL))`;

/** The moment that places a record in time: when it completed, else when it was confirmed, else when it was created. */
const AT = 'coalesce(t.completed_at, t.confirmed_at, t.created_at)';

/**
 * The flows of a moving record: a Completed Deposit brings `amount` in; a Completed Withdrawal takes
 * out what reached `to` (`amount_actual`, else `amount`); every moving record pays its `fee` (a
 * Failed one only that).
 */
const FLOWS = `CASE WHEN t.status_key = ${COMPLETED} AND t.type_key = ${DEPOSIT} THEN t.amount END AS inflow,
  CASE WHEN t.status_key = ${COMPLETED} AND t.type_key = ${WITHDRAWAL} THEN coalesce(t.amount_actual, t.amount) END AS outflow,
  t.fee AS fee`;

export interface BalanceFilter {
  /** null: every wallet. */
  walletIds: readonly string[] | null;
  tokenId?: string;
  /** Records placed before it are the opening (null: no opening, everything is inside). */
  from: number | null;
  /** Records placed after it are left out (null: none). */
  to: number | null;
}

/** A wallet's token in one bucket: before the period (opening), inside it, or undated (no time at all). */
export interface BucketSums {
  wallet_id: string;
  chain_id: string;
  token_id: string;
  bucket: 'before' | 'inside' | 'undated';
  records: number;
  inflow: string;
  outflow: string;
  fees: string;
}

const BUCKETS = ['before', 'inside', 'undated'] as const;

function whereOf(f: BalanceFilter): { where: string; args: (string | number)[] } {
  const where = [MOVES];
  const args: (string | number)[] = [];
  if (f.walletIds !== null && f.walletIds.length === 1) {
    where.push(keyEquals('wallet_id', 't.wallet_no'));
    args.push(f.walletIds[0]!);
  } else if (f.walletIds !== null) {
    where.push(`t.wallet_no IN (SELECT no FROM ${NAMES_TABLE} WHERE name IN (SELECT value FROM json_each(?)))`);
    args.push(JSON.stringify(f.walletIds));
  }
  if (f.tokenId !== undefined) {
    where.push(keyEquals('token_id', 't.token_no'));
    args.push(f.tokenId);
  }
  if (f.to !== null) {
    where.push(`(${AT} <= ? OR ${AT} IS NULL)`);
    args.push(f.to);
  }
  return { where: where.join(' AND '), args };
}

/**
 * The records of the filter as [wallet_no, chain_no, token_no (numbers of their names), bucket (0 before, 1 inside, 2
 * undated), inflow, outflow, fee]. Every wallet's records are read in the table's order: SQLite's
 * planner would otherwise walk the wallet index to save the GROUP BY's sort, one random row read
 * per record, several times slower on a large ledger (measured: bench/balances.ts).
 */
function flowsSql(f: BalanceFilter): { sql: string; args: (string | number)[] } {
  const { where, args } = whereOf(f);
  return {
    sql: `SELECT t.wallet_no, t.chain_no, t.token_no,
        CASE WHEN ${AT} IS NULL THEN 2 WHEN ${AT} < ? THEN 0 ELSE 1 END AS bucket, ${FLOWS}
      FROM ${LEDGER_TABLE} t${f.walletIds === null ? ' NOT INDEXED' : ''} WHERE ${where}`,
    // No `from`: nothing is before it (every dated record is inside).
    args: [f.from ?? Number.MIN_SAFE_INTEGER, ...args],
  };
}

const INT = (c: string) => `CASE WHEN instr(${c}, '.') = 0 THEN ${c} ELSE substr(${c}, 1, instr(${c}, '.') - 1) END`;
const FRACTION = (c: string) => `CASE WHEN instr(${c}, '.') = 0 THEN '' ELSE substr(${c}, instr(${c}, '.') + 1) END`;
const ZEROS = '000000000000000000';
/** The exact parts of a column's sum: integer parts, fraction places 1-9 and 10-18, and the longest parts (to know they fit). */
const parts = (c: string) => `sum(CAST(${INT(c)} AS INTEGER)), sum(CAST(substr(${FRACTION(c)} || '${ZEROS}', 1, 9) AS INTEGER)),
  sum(CAST(substr(${FRACTION(c)} || '${ZEROS}', 10, 9) AS INTEGER)), max(length(${INT(c)})), max(length(${FRACTION(c)}))`;

const E9 = 10n ** 9n;
const E18 = 10n ** 18n;

/** The decimal of integer parts, first and second nine fraction places (null sums: 0). */
function decimalOfParts(int: number | bigint | null, hi: number | bigint | null, lo: number | bigint | null): string {
  const scaled = BigInt(int ?? 0) * E18 + BigInt(hi ?? 0) * E9 + BigInt(lo ?? 0);
  const whole = scaled / E18;
  const fraction = (scaled % E18).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

type PartsRow = [string, string, string, 0 | 1 | 2, number, ...(number | bigint | null)[]];

/** The sums in SQL, exact; null when an amount has more digits than the parts hold, or a sum overflows them. */
function sumsInSql(db: Db, f: BalanceFilter): BucketSums[] | null {
  const flows = flowsSql(f);
  const sql = `SELECT ${nameOf('wallet_no')}, ${nameOf('chain_no')}, ${nameOf('token_no')}, bucket, count(*), ${parts('inflow')}, ${parts('outflow')}, ${parts('fee')}
    FROM (${flows.sql}) GROUP BY wallet_no, chain_no, token_no, bucket`;
  let rows: PartsRow[];
  try {
    rows = stmt(db, sql)
      .raw(true)
      .safeIntegers(true)
      .all(...flows.args) as PartsRow[];
  } catch (err) {
    if (err instanceof Error && /integer overflow/i.test(err.message)) return null;
    throw err;
  }
  const out: BucketSums[] = [];
  for (const r of rows) {
    const sums: string[] = [];
    for (let i = 5; i < 20; i += 5) {
      const [int, hi, lo, intDigits, places] = r.slice(i, i + 5) as (bigint | null)[];
      if (Number(intDigits ?? 0) > 18 || Number(places ?? 0) > 18) return null;
      sums.push(decimalOfParts(int!, hi!, lo!));
    }
    out.push({
      wallet_id: r[0],
      chain_id: r[1],
      token_id: r[2],
      bucket: BUCKETS[Number(r[3])]!,
      records: Number(r[4]),
      inflow: sums[0]!,
      outflow: sums[1]!,
      fees: sums[2]!,
    });
  }
  return out;
}

/** The same sums, each record's flows streamed through an exact running sum: for what the SQL parts cannot hold. */
function sumsStreamed(db: Db, f: BalanceFilter): BucketSums[] {
  const flows = flowsSql(f);
  const groups = new Map<string, { sums: BucketSums; inflow: ExactSum; outflow: ExactSum; fees: ExactSum }>();
  const rows = stmt(db, flows.sql)
    .raw(true)
    .iterate(...flows.args) as IterableIterator<[number, number, number, 0 | 1 | 2, string | null, string | null, string | null]>;
  const names = new Map(stmt<[], [number, string]>(db, `SELECT no, name FROM ${NAMES_TABLE}`).raw(true).all());
  for (const [walletNo, chainNo, tokenNo, bucket, inflow, outflow, fee] of rows) {
    const key = `${walletNo}|${chainNo}|${tokenNo}|${bucket}`;
    let g = groups.get(key);
    if (!g) {
      const [wallet_id, chain_id, token_id] = [walletNo, chainNo, tokenNo].map((no) => names.get(no)!) as [string, string, string];
      const sums: BucketSums = { wallet_id, chain_id, token_id, bucket: BUCKETS[bucket], records: 0, inflow: '', outflow: '', fees: '' };
      groups.set(key, (g = { sums, inflow: new ExactSum(), outflow: new ExactSum(), fees: new ExactSum() }));
    }
    g.sums.records++;
    g.inflow.add(inflow);
    g.outflow.add(outflow);
    g.fees.add(fee);
  }
  return [...groups.values()].map((g) => ({
    ...g.sums,
    inflow: g.inflow.toString(),
    outflow: g.outflow.toString(),
    fees: g.fees.toString(),
  }));
}

/** Per wallet and token: the flows before `from`, from `from` to `to`, and of the undated records. */
export function bucketSums(db: Db, f: BalanceFilter): BucketSums[] {
  return sumsInSql(db, f) ?? sumsStreamed(db, f);
}

/** A statement line as read: the record's own fields and its flows. */
export interface StatementRow {
  transaction_id: string;
  type: string;
  status: string;
  hash: string | null;
  at: number;
  amount: string;
  fee: string | null;
  amount_actual: string | null;
  inflow: string | null;
  outflow: string | null;
}

/** A wallet's moving records of a token placed from `from` to `to` (inclusive), in the statement's order: time, then transaction_id. */
export function statementRows(db: Db, walletId: string, tokenId: string, from: number, to: number): IterableIterator<StatementRow> {
  const { where, args } = whereOf({ walletIds: [walletId], tokenId, from, to });
  return stmt(
    db,
    `SELECT t.transaction_id, t.type, t.status, t.hash, ${AT} AS at, t.amount, t.fee, t.amount_actual, ${FLOWS}
     FROM transactions t WHERE ${where} AND ${AT} >= ? ORDER BY at, t.transaction_id`,
  ).iterate(...args, from) as IterableIterator<StatementRow>;
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
