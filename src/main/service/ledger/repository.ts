import {
  UNSUMMED_STATUSES,
  type ImportDetail,
  type ImportListed,
  type LedgerExportPage,
  type LedgerRecord,
  type LedgerStatus,
  type LedgerTotals,
  type LedgerType,
  type Rejection,
  type TransactionFilters,
  type TransactionListQuery,
  type TransactionSort,
} from '../../../shared/ledger';
import type { Page } from '../../../shared/primitives';
import type { Db } from '../db/open';
import { RECORD_COLUMNS, recordOfRow } from '../db/record-sql';
import { ENCODED, identifierSearchSql, keyEquals, NAMES_TABLE, statusKey } from '../db/ledger-sql';
import { stmt } from '../db/statements';
import { ExactSum } from './exact-sum';
import type { CatalogueView } from './rows';

/*
 * SQL of the ledger: the catalogue as the importer needs it, the lists, and one record or wallet by
 * its ID (the import's writes: import-repository.ts).
 */

const q = (name: string) => `"${name}"`;

export function loadCatalogue(db: Db): CatalogueView {
  const chains = db.$client
    .prepare(
      'SELECT c.chain_id, c.chain_identifier, c.native_token_id, c.name, c.is_testnet, coalesce(t.symbol, c.native_token_id) AS native_symbol FROM chains c LEFT JOIN tokens t ON t.token_id = c.native_token_id',
    )
    .all() as {
    chain_id: string;
    chain_identifier: string;
    native_token_id: string;
    name: string;
    is_testnet: number;
    native_symbol: string;
  }[];
  const tokens = db.$client.prepare('SELECT token_id, chain_id, symbol, contract_address, decimal FROM tokens').all() as {
    token_id: string;
    chain_id: string;
    symbol: string;
    contract_address: string;
    decimal: number;
  }[];
  const view: CatalogueView = { chains: new Map(), tokens: new Map(), byContract: new Map(), bySymbol: new Map() };
  for (const c of chains)
    view.chains.set(c.chain_id, {
      family: c.chain_identifier,
      native_token_id: c.native_token_id,
      native_symbol: c.native_symbol,
      name: c.name,
      is_testnet: c.is_testnet === 1,
    });
  for (const t of tokens) {
    view.tokens.set(t.token_id, { chain_id: t.chain_id, decimal: t.decimal, symbol: t.symbol });
    if (t.contract_address) view.byContract.set(`${t.chain_id}\n${t.contract_address.toLowerCase()}`, t.token_id);
    view.bySymbol.set(`${t.chain_id}\n${t.symbol.toUpperCase()}`, t.token_id);
  }
  return view;
}

const SUMMARY_COLUMNS =
  'import_id, file_name, file_sha256, file_size, format, preset, rows_total, added, updated, unchanged, rejected, started_at, finished_at, wallet_id, read_as, undone_at, undone_by';

/** An imports row as listed: read_as kept as JSON. */
const listed = (row: Omit<ImportListed, 'read_as'> & { read_as: string | null }): ImportListed => ({
  ...row,
  read_as: row.read_as === null ? null : (JSON.parse(row.read_as) as ImportListed['read_as']),
});

export function listImports(db: Db, page: number, pageSize: number): Page<ImportListed> {
  const total = (db.$client.prepare('SELECT count(*) FROM imports').pluck().get() as number) ?? 0;
  const rows = db.$client
    .prepare(`SELECT ${SUMMARY_COLUMNS} FROM imports ORDER BY started_at DESC, import_id LIMIT ? OFFSET ?`)
    .all(pageSize, (page - 1) * pageSize) as Parameters<typeof listed>[0][];
  return { list: rows.map(listed), total, page, page_size: pageSize };
}

export function getImport(db: Db, importId: string): ImportDetail | undefined {
  const row = db.$client.prepare(`SELECT ${SUMMARY_COLUMNS} FROM imports WHERE import_id = ?`).get(importId) as
    Parameters<typeof listed>[0] | undefined;
  if (!row) return undefined;
  const summary = listed(row);
  const rejections = db.$client
    .prepare('SELECT row_number, "column", reason, value FROM import_rejections WHERE import_id = ? ORDER BY row_number, id')
    .all(importId) as Rejection[];
  return { ...summary, rejections };
}

const TX_SELECT = `SELECT ${RECORD_COLUMNS} FROM transactions t`;

export function getTransaction(db: Db, transactionId: string): LedgerRecord | undefined {
  const row = stmt<[string], unknown[]>(db, `${TX_SELECT} WHERE ${keyEquals('transaction_id', 't.tx_key')}`)
    .raw(true)
    .get(transactionId) as unknown[] | undefined;
  return row && recordOfRow(row);
}

/** The stored spelling of a wallet ID, matched case-insensitively (UUIDs are hex numbers). */
export function findWallet(db: Db, walletId: string): string | undefined {
  return stmt<[string], { wallet_id: string }>(db, 'SELECT wallet_id FROM wallets WHERE lower(wallet_id) = lower(?)').get(walletId)
    ?.wallet_id;
}

/**
 * The WHERE clause of the ledger's filters ("" for none) and its arguments. A search leads: its
 * records are found by the identifiers' indexes (a few index ranges), and the other filters are
 * checked on those rows only (`+` keeps SQLite from reading a wallet's or a period's every record
 * instead, which it would guess cheaper).
 */
export function filterSql(query: TransactionFilters): { filter: string; args: (string | number)[] } {
  const where: string[] = [];
  const args: (string | number)[] = [];
  const searched = query.search !== undefined;
  const col = (name: string) => `${searched ? '+' : ''}t.${name}`;
  const eq = (column: 'wallet_id' | 'chain_id' | 'token_id' | 'type' | 'status', value: string | undefined) => {
    if (value === undefined) return;
    // By the stored key (db/ledger-sql.ts), encoded once: the wallet's and the chain's indexes serve.
    where.push(keyEquals(column, col(ENCODED[column].key)));
    args.push(value);
  };
  if (query.search !== undefined) {
    const found = identifierSearchSql(query.search);
    where.push(`t.rowid IN (${found.sql})`);
    args.push(...found.args);
  }
  eq('wallet_id', query.wallet_id?.toLowerCase());
  eq('chain_id', query.chain_id);
  eq('token_id', query.token_id);
  eq('type', query.type);
  eq('status', query.status);
  if (query.from !== undefined) {
    where.push(`${col('created_at')} >= ?`);
    args.push(query.from);
  }
  if (query.to !== undefined) {
    where.push(`${col('created_at')} < ?`);
    args.push(query.to);
  }
  return { filter: where.length ? ` WHERE ${where.join(' AND ')}` : '', args };
}

/**
 * ORDER BY of a sort. Time runs on transactions_created_idx (created_at DESC, then rowid: records
 * of one time in the order they were added), read backwards for ascending; the others sort their
 * column, then newest first. Amounts sort by decimal_key, exact where a float would tie
 * (0.1000000000000000001 and 0.1).
 */
function orderSql(sort: TransactionSort, order: 'asc' | 'desc'): string {
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  if (sort === 'created_at') return order === 'asc' ? 't.created_at ASC, t.rowid DESC' : 't.created_at DESC, t.rowid';
  const key = sort === 'amount' ? 'decimal_key(t.amount)' : `t.${q(sort)}`;
  return `${key} ${dir}, t.created_at DESC, t.rowid`;
}

export function countTransactions(db: Db, query: TransactionFilters): number {
  const { filter, args } = filterSql(query);
  return stmt<unknown[], number>(db, `SELECT count(*) FROM transactions t${filter}`)
    .pluck()
    .get(...args) as number;
}

/**
 * The last order asked for that no index serves (a sort other than time), per connection: the
 * rowids of the records the filters select, in that order. SQLite sorts such a column by reading
 * every record, and for a page deep in the list it keeps every row before it too, so each page of
 * a million records would take that long again; sorted once and kept, every page and the count are
 * a lookup. It is dropped when the store changes: PRAGMA data_version moves when another connection
 * (an import's thread) commits, total_changes() when this one writes.
 */
const sortedOrders = new WeakMap<Db, { key: string; version: string; rowids: number[] }>();

function storeVersion(db: Db): string {
  const changes = stmt<[], number>(db, 'SELECT total_changes()').pluck().get() as number;
  return `${db.$client.pragma('data_version', { simple: true }) as number}:${changes}`;
}

function sortedRowids(db: Db, query: TransactionListQuery): number[] {
  const { filter, args } = filterSql(query);
  const sql = `SELECT t.rowid FROM transactions t${filter} ORDER BY ${orderSql(query.sort, query.order)}`;
  const key = JSON.stringify([sql, args]);
  const version = storeVersion(db);
  const kept = sortedOrders.get(db);
  if (kept && kept.key === key && kept.version === version) return kept.rowids;
  const rowids = stmt<unknown[], number>(db, sql)
    .pluck()
    .all(...args) as number[];
  sortedOrders.set(db, { key, version, rowids });
  return rowids;
}

const RECORDS_BY_ROWID = `SELECT t.rowid, ${RECORD_COLUMNS} FROM transactions t WHERE t.rowid IN (SELECT value FROM json_each(?))`;

export function listTransactions(db: Db, query: TransactionListQuery): Page<LedgerRecord> {
  const offset = (query.page - 1) * query.page_size;
  if (query.sort !== 'created_at') {
    const rowids = sortedRowids(db, query);
    const wanted = rowids.slice(offset, offset + query.page_size);
    const rows = stmt(db, RECORDS_BY_ROWID).raw(true).all(JSON.stringify(wanted)) as unknown[][];
    const byRowid = new Map(rows.map((row) => [row[0] as number, recordOfRow(row.slice(1))]));
    const list = wanted.map((rowid) => byRowid.get(rowid)).filter((r): r is LedgerRecord => r !== undefined);
    return { list, total: rowids.length, page: query.page, page_size: query.page_size };
  }
  const { filter, args } = filterSql(query);
  const list = stmt(db, `${TX_SELECT}${filter} ORDER BY ${orderSql(query.sort, query.order)} LIMIT ? OFFSET ?`)
    .raw(true)
    .all(...args, query.page_size, offset)
    .map((row) => recordOfRow(row as unknown[]));
  return { list, total: countTransactions(db, query), page: query.page, page_size: query.page_size };
}

/** Every record the filters select, in the sort's order, read one at a time (a file export). */
export function* eachTransaction(
  db: Db,
  query: TransactionFilters & { sort: TransactionSort; order: 'asc' | 'desc' },
): Generator<LedgerRecord> {
  const { filter, args } = filterSql(query);
  const rows = db.$client
    .prepare(`${TX_SELECT}${filter} ORDER BY ${orderSql(query.sort, query.order)}`)
    .raw(true)
    .iterate(...args);
  for (const row of rows) yield recordOfRow(row as unknown[]);
}

/**
 * The amounts and fees of the records the filters select, per chain, token and type, summed exactly
 * as they stream by, by the rule balances count fees with (FAILED_FEE_RULE): Failed and Rejected
 * records moved no amount, so they are counted apart and left out, but for a failed withdrawal that
 * reached the chain (it has a hash), whose fee is summed (`fee_only`). A status filter that asks for
 * Failed or Rejected records sums exactly those.
 */
export function sumTransactions(db: Db, query: TransactionFilters): LedgerTotals {
  const { filter, args } = filterSql(query);
  const groups = new Map<
    string,
    { chain_id: string; token_id: string; type: LedgerType; count: number; fee_only: number; amount: ExactSum; fee: ExactSum }
  >();
  let total = 0;
  // By the stored status number: Failed and Rejected, unless the filter selects one of them.
  const unsummed = new Map<number, { status: LedgerStatus; count: number }>(
    query.status === undefined ? UNSUMMED_STATUSES.map((status) => [statusKey(status), { status, count: 0 }]) : [],
  );
  const failed = statusKey('Failed');
  // Chain and token by their names' numbers (db/ledger-sql.ts), decoded once a group rather than once a record.
  const names = new Map(stmt<[], [number, string]>(db, `SELECT no, name FROM ${NAMES_TABLE}`).raw(true).all());
  const rows = stmt(
    db,
    `SELECT t.chain_no, t.token_no, t.type, t.status_key, t.amount, t.fee, t.hash_key IS NOT NULL FROM transactions t${filter}`,
  )
    .raw(true)
    .iterate(...args) as IterableIterator<[number, number, LedgerType, number, string, string | null, 0 | 1]>;
  for (const [chainNo, tokenNo, type, status, amount, fee, onChain] of rows) {
    total++;
    const left = unsummed.get(status);
    const feeOnly = left !== undefined && status === failed && type === 'Withdrawal' && onChain === 1;
    if (left && !feeOnly) {
      left.count++;
      continue;
    }
    const key = `${chainNo}\n${tokenNo}\n${type}`;
    let g = groups.get(key);
    if (!g) {
      const [chain_id, token_id] = [names.get(chainNo)!, names.get(tokenNo)!];
      groups.set(key, (g = { chain_id, token_id, type, count: 0, fee_only: 0, amount: new ExactSum(), fee: new ExactSum() }));
    }
    g.fee.add(fee);
    if (feeOnly) g.fee_only++;
    else {
      g.count++;
      g.amount.add(amount);
    }
  }
  const totals = [...groups.values()]
    .map((g) => ({ ...g, amount: g.amount.toString(), fee: g.fee.toString() }))
    .sort((a, b) => a.chain_id.localeCompare(b.chain_id) || a.token_id.localeCompare(b.token_id) || a.type.localeCompare(b.type));
  return { total, totals, left_out: [...unsummed.values()].filter((l) => l.count > 0) };
}

/** Wallet names by ID ('' for an unnamed wallet), for files that show them beside the IDs. */
export function walletNames(db: Db): Map<string, string> {
  const rows = stmt<[], { wallet_id: string; name: string }>(db, 'SELECT wallet_id, name FROM wallets').all();
  return new Map(rows.map((r) => [r.wallet_id, r.name]));
}

/** Records after the cursor (a rowid), in stored order, with the cursor of the next page. */
export function exportPage(
  db: Db,
  query: { wallet_id?: string; chain_id?: string; token_id?: string; after: number; limit: number },
): LedgerExportPage {
  const where = ['t.rowid > ?'];
  const args: (string | number)[] = [query.after];
  for (const column of ['wallet_id', 'chain_id', 'token_id'] as const) {
    const value = column === 'wallet_id' ? query.wallet_id?.toLowerCase() : query[column];
    if (value === undefined) continue;
    where.push(keyEquals(column, `t.${ENCODED[column].key}`));
    args.push(value);
  }
  const rows = db.$client
    .prepare(`SELECT t.rowid, ${RECORD_COLUMNS} FROM transactions t WHERE ${where.join(' AND ')} ORDER BY t.rowid LIMIT ?`)
    .raw(true)
    .all(...args, query.limit) as unknown[][];
  const records = rows.map((row) => {
    const { import_id: _i, updated_at: _u, movement: _m, ...record } = recordOfRow(row.slice(1));
    return record;
  });
  return { records, next: rows.length === query.limit ? (rows[rows.length - 1]![0] as number) : null };
}
