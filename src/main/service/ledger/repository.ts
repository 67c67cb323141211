import type { ImportDetail, ImportSummary, Rejection, RowUpdate, TransactionListQuery, TransactionRecord, WalletSummary } from '../../../shared/ledger';
import { LEDGER_FIELDS, MAX_REPORTED_UPDATES } from '../../../shared/ledger';
import type { Page } from '../../../shared/primitives';
import type { Db } from '../db/open';
import type { CatalogueView } from './rows';
import { detach } from './values';

/* SQL of the ledger: the catalogue as the importer needs it, the import's writes, and the lists. */

const q = (name: string) => `"${name}"`;
const RECORD_COLUMNS = LEDGER_FIELDS.map(q).join(', ');
const TIME_FIELDS = new Set(['created_at', 'confirmed_at', 'completed_at']);
const IS_TIME = LEDGER_FIELDS.map((f) => TIME_FIELDS.has(f));
const N = LEDGER_FIELDS.length;

export function loadCatalogue(db: Db): CatalogueView {
  const chains = db.$client.prepare('SELECT chain_id, chain_identifier, native_token_id FROM chains').all() as { chain_id: string; chain_identifier: string; native_token_id: string }[];
  const tokens = db.$client.prepare('SELECT token_id, chain_id, symbol, contract_address, decimals FROM tokens').all() as {
    token_id: string;
    chain_id: string;
    symbol: string;
    contract_address: string;
    decimals: number;
  }[];
  const view: CatalogueView = { chains: new Map(), tokens: new Map(), byContract: new Map(), bySymbol: new Map() };
  for (const c of chains) view.chains.set(c.chain_id, { family: c.chain_identifier, native_token_id: c.native_token_id });
  for (const t of tokens) {
    view.tokens.set(t.token_id, { chain_id: t.chain_id, decimals: t.decimals, symbol: t.symbol });
    if (t.contract_address) view.byContract.set(`${t.chain_id}\n${t.contract_address.toLowerCase()}`, t.token_id);
    view.bySymbol.set(`${t.chain_id}\n${t.symbol.toUpperCase()}`, t.token_id);
  }
  return view;
}

export interface ApplyOptions {
  /** Staged rows: `values... \t row_number`, values in LEDGER_FIELDS order ('' = not recorded). */
  lines: Iterable<string>;
  /** Secondary indexes to drop before and rebuild after the rows (see planIndexRebuild). */
  rebuild: IndexDef[];
  importId: string;
  now: number;
  /** Read only: count what would happen. */
  dryRun: boolean;
}

export interface ApplyResult {
  added: number;
  updated: number;
  unchanged: number;
  updates: RowUpdate[];
  walletsCreated: string[];
}

export interface IndexDef {
  name: string;
  sql: string;
}

/**
 * Below this many rows, or when the store already holds more than the import brings, the
 * secondary indexes are kept up to date row by row; above it they are dropped and rebuilt (one
 * sort each instead of a random B-tree insert per row and index), inside the same transaction.
 */
const REBUILD_MIN_ROWS = 50_000;

export function planIndexRebuild(db: Db, rows: number): IndexDef[] {
  if (rows < REBUILD_MIN_ROWS) return [];
  const existing = db.$client.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
  if (existing >= rows) return [];
  return db.$client
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' AND sql IS NOT NULL ORDER BY name")
    .all() as IndexDef[];
}

/** Page cache for a bulk load: rows arrive in key order and indexes are sorted on disk, so a large cache buys nothing. */
const BULK_CACHE_KIB = 16 * 1024;

/**
 * Run a bulk load with SQLite's temporary files (the sorter of an index build) on disk and a
 * small page cache, so rebuilding indexes over millions of rows does not hold them in memory.
 * Neither setting may change inside a transaction, so this wraps it; both are restored.
 */
export function withBulkSettings<T>(db: Db, fn: () => T): T {
  const sqlite = db.$client;
  const tempStore = sqlite.pragma('temp_store', { simple: true }) as number;
  const cacheSize = sqlite.pragma('cache_size', { simple: true }) as number;
  sqlite.pragma('temp_store = FILE');
  sqlite.pragma(`cache_size = -${BULK_CACHE_KIB}`);
  try {
    return fn();
  } finally {
    sqlite.pragma(`cache_size = ${cacheSize}`);
    sqlite.pragma(`temp_store = ${tempStore}`);
  }
}

/**
 * Apply staged rows: new records are added, known ones with other values updated (the changed
 * fields named), equal ones left alone; wallets are created as they first appear. The caller
 * wraps this in one transaction; a dry run only reads.
 */
export function applyStaged(db: Db, opts: ApplyOptions): ApplyResult {
  const sqlite = db.$client;
  const insertTx = sqlite.prepare(
    `INSERT INTO transactions (${RECORD_COLUMNS}, import_id, updated_at) VALUES (${'?, '.repeat(N + 1)}?) ON CONFLICT(transaction_id) DO NOTHING`,
  );
  const selectTx = sqlite.prepare(`SELECT ${RECORD_COLUMNS} FROM transactions WHERE transaction_id = ?`).raw(true);
  const updateTx = sqlite.prepare(
    `UPDATE transactions SET ${LEDGER_FIELDS.slice(1)
      .map((f) => `${q(f)} = ?`)
      .join(', ')}, import_id = ?, updated_at = ? WHERE transaction_id = ?`,
  );
  const insertWallet = sqlite.prepare(`INSERT INTO wallets (wallet_id, name, created_at, updated_at) VALUES (?, '', ?, ?) ON CONFLICT(wallet_id) DO NOTHING`);
  const knownWallets = new Set((sqlite.prepare('SELECT wallet_id FROM wallets').pluck().all() as string[]).map((w) => w.toLowerCase()));

  const rebuild = opts.dryRun ? [] : opts.rebuild;
  for (const index of rebuild) sqlite.exec(`DROP INDEX ${q(index.name)}`);

  const result: ApplyResult = { added: 0, updated: 0, unchanged: 0, updates: [], walletsCreated: [] };
  const params: (string | number | null)[] = new Array<string | number | null>(N + 2);
  params[N] = opts.importId;
  params[N + 1] = opts.now;
  const walletIdx = LEDGER_FIELDS.indexOf('wallet_id');

  for (const line of opts.lines) {
    const cells = line.split('\t');
    for (let i = 0; i < N; i++) {
      const v = cells[i]!;
      params[i] = v === '' ? null : IS_TIME[i] ? Number(v) : v;
    }
    const wallet = params[walletIdx] as string;
    if (!knownWallets.has(wallet)) {
      knownWallets.add(detach(wallet));
      result.walletsCreated.push(detach(wallet));
      if (!opts.dryRun) insertWallet.run(wallet, opts.now, opts.now);
    }
    if (!opts.dryRun && insertTx.run(params).changes === 1) {
      result.added++;
      continue;
    }
    const existing = selectTx.get(params[0]) as (string | number | null)[] | undefined;
    if (existing === undefined) {
      result.added++;
      continue;
    }
    let changed: string[] | undefined;
    for (let i = 1; i < N; i++) {
      if (existing[i] !== params[i]) (changed ??= []).push(LEDGER_FIELDS[i]!);
    }
    if (changed === undefined) {
      result.unchanged++;
      continue;
    }
    result.updated++;
    result.updates.push({ row_number: Number(cells[N]), transaction_id: detach(params[0] as string), fields: changed });
    if (result.updates.length >= 2 * MAX_REPORTED_UPDATES) keepFirstUpdates(result.updates);
    if (!opts.dryRun) updateTx.run(...params.slice(1), params[0]);
  }

  for (const index of rebuild) sqlite.exec(index.sql);
  keepFirstUpdates(result.updates);
  result.walletsCreated.sort();
  return result;
}

/** Rows arrive in id order; the report lists the updates of the lowest row numbers. */
function keepFirstUpdates(updates: RowUpdate[]): void {
  updates.sort((a, b) => a.row_number - b.row_number);
  if (updates.length > MAX_REPORTED_UPDATES) updates.length = MAX_REPORTED_UPDATES;
}

export function recordImport(db: Db, summary: ImportSummary, rejections: Rejection[]): void {
  const sqlite = db.$client;
  sqlite
    .prepare(
      `INSERT INTO imports (import_id, file_name, file_sha256, file_size, format, preset, rows_total, added, updated, unchanged, rejected, started_at, finished_at)
       VALUES (@import_id, @file_name, @file_sha256, @file_size, @format, @preset, @rows_total, @added, @updated, @unchanged, @rejected, @started_at, @finished_at)`,
    )
    .run(summary);
  const insert = sqlite.prepare('INSERT INTO import_rejections (import_id, row_number, "column", reason) VALUES (?, ?, ?, ?)');
  for (const r of rejections) insert.run(summary.import_id, r.row_number, r.column, r.reason);
}

const SUMMARY_COLUMNS = 'import_id, file_name, file_sha256, file_size, format, preset, rows_total, added, updated, unchanged, rejected, started_at, finished_at';

export function listImports(db: Db, page: number, pageSize: number): Page<ImportSummary> {
  const total = (db.$client.prepare('SELECT count(*) FROM imports').pluck().get() as number) ?? 0;
  const list = db.$client
    .prepare(`SELECT ${SUMMARY_COLUMNS} FROM imports ORDER BY started_at DESC, import_id LIMIT ? OFFSET ?`)
    .all(pageSize, (page - 1) * pageSize) as ImportSummary[];
  return { list, total, page, page_size: pageSize };
}

export function getImport(db: Db, importId: string): ImportDetail | undefined {
  const summary = db.$client.prepare(`SELECT ${SUMMARY_COLUMNS} FROM imports WHERE import_id = ?`).get(importId) as ImportSummary | undefined;
  if (!summary) return undefined;
  const rejections = db.$client
    .prepare('SELECT row_number, "column", reason FROM import_rejections WHERE import_id = ? ORDER BY row_number, id')
    .all(importId) as Rejection[];
  return { ...summary, rejections };
}

const TX_SELECT = `SELECT ${RECORD_COLUMNS}, import_id, updated_at FROM transactions`;

export function getTransaction(db: Db, transactionId: string): TransactionRecord | undefined {
  return db.$client.prepare(`${TX_SELECT} WHERE transaction_id = ?`).get(transactionId) as TransactionRecord | undefined;
}

const HEX_ID = /^(0x)?[0-9a-fA-F]{64}$|^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function listTransactions(db: Db, query: TransactionListQuery): Page<TransactionRecord> {
  const where: string[] = [];
  const args: (string | number)[] = [];
  const eq = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(`${q(column)} = ?`);
    args.push(value);
  };
  eq('wallet_id', query.wallet_id?.toLowerCase());
  eq('chain_id', query.chain_id);
  eq('token_id', query.token_id);
  eq('type', query.type);
  eq('status', query.status);
  if (query.from !== undefined) {
    where.push('created_at >= ?');
    args.push(query.from);
  }
  if (query.to !== undefined) {
    where.push('created_at < ?');
    args.push(query.to);
  }
  if (query.search !== undefined) {
    // Ids and hex hashes are stored lower-case; a request_id is matched as written.
    const s = query.search;
    const lowered = HEX_ID.test(s) ? s.toLowerCase() : s;
    where.push('(transaction_id = ? OR hash = ? OR request_id = ?)');
    args.push(lowered, lowered, s);
  }
  const filter = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  const total = db.$client.prepare(`SELECT count(*) FROM transactions${filter}`).pluck().get(...args) as number;
  const list = db.$client
    .prepare(`${TX_SELECT}${filter} ORDER BY created_at DESC, transaction_id LIMIT ? OFFSET ?`)
    .all(...args, query.page_size, (query.page - 1) * query.page_size) as TransactionRecord[];
  return { list, total, page: query.page, page_size: query.page_size };
}

export function listWallets(db: Db): WalletSummary[] {
  return db.$client
    .prepare(
      `SELECT w.wallet_id AS wallet_id, w.name AS name, (SELECT count(*) FROM transactions t WHERE t.wallet_id = w.wallet_id) AS transactions
       FROM wallets w ORDER BY w.name, w.wallet_id`,
    )
    .all() as WalletSummary[];
}
