import type { LedgerRecord } from '../../../shared/ledger';
import type { Page } from '../../../shared/primitives';
import {
  FLAG_FIELDS,
  matchFlagOf,
  type BooksRejectedRow,
  type FlagField,
  type MatchFlags,
  type RunSummary,
  type Shape,
  type UnbookedItem,
} from '../../../shared/reconcile';
import type { Db } from '../db/open';
import { stmt } from '../db/statements';
import { keyEquals, LEDGER_TABLE, nameOf, NAMES_TABLE } from '../db/ledger-sql';
import { ledgerNames, recordOfStoredRow, storedKeys, storedRecordsWhereInSql, type LookupColumn } from '../db/record-sql';

/*
 * The reconciliation store: reads the ledger (`transactions`, never written here), writes
 * verification runs and their results. Lookups take a whole batch at once through json_each, so a
 * request of 1000 claims costs a few index probes per claim and one statement per identifier kind.
 */

/** Records whose column holds one of the values (each value once; duplicates are harmless). */
export function recordsWhereIn(db: Db, column: LookupColumn, values: Iterable<string>): LedgerRecord[] {
  const list = new Set(values);
  if (list.size === 0) return [];
  const rows = stmt<[string, string], unknown[]>(db, storedRecordsWhereInSql(column))
    .raw(true)
    .all(...storedKeys(column, list)) as unknown as unknown[][];
  const name = ledgerNames(db.$client);
  return rows.map((row) => recordOfStoredRow(row, name));
}

/** Chains whose addresses are EVM hex (chain_identifier ETH): `to` compares case-insensitively there. */
export function evmChainIds(db: Db): Set<string> {
  return new Set(
    stmt<[], { chain_id: string }>(db, "SELECT chain_id FROM chains WHERE chain_identifier = 'ETH'")
      .all()
      .map((r) => r.chain_id),
  );
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

export interface ChunkRow {
  first_idx: number;
  item_count: number;
  matched: number;
  mismatched: number;
  not_found: number;
  /** Duplicate claims of a two-way run: counted here only, not in matched / mismatched / not_found. */
  duplicates: number;
  /** JSON array of the claims as sent. */
  claims: string;
  /** JSON array of [transaction_id | null, result 0/1, [false flags], ticket_id | null], see outcomeJson. */
  outcomes: string;
}

/** Store a chunk of results as one row and add its counts to the run's; the caller holds the transaction. */
export function insertChunk(db: Db, runId: string, c: ChunkRow): void {
  stmt(
    db,
    `INSERT INTO verification_chunks (run_id, first_idx, item_count, matched, mismatched, not_found, duplicates, claims, outcomes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(runId, c.first_idx, c.item_count, c.matched, c.mismatched, c.not_found, c.duplicates, c.claims, c.outcomes);
  stmt(
    db,
    `UPDATE verification_runs SET item_count = item_count + ?, matched = matched + ?, mismatched = mismatched + ?, not_found = not_found + ?,
       duplicates = duplicates + ? WHERE run_id = ?`,
  ).run(c.item_count, c.matched, c.mismatched, c.not_found, c.duplicates, runId);
}

const RUN_COLUMNS =
  'run_id, source, label, api_key, wallet_id, shape, item_count, matched, mismatched, not_found, created_at, rejected_count, two_way, period_from, period_to, not_in_books, duplicates';

type RunRowStored = Omit<RunSummary, 'two_way'> & { two_way: number };
const runOf = (r: RunRowStored): RunSummary => ({ ...r, two_way: r.two_way === 1 });

export function getRun(db: Db, runId: string): RunSummary | undefined {
  const row = stmt<[string], RunRowStored>(db, `SELECT ${RUN_COLUMNS} FROM verification_runs WHERE run_id = ?`).get(runId);
  return row && runOf(row);
}

/** A two-way run's ledger side: its period, and the counts of the groups found after its claims. */
export function setRunTwoWay(db: Db, runId: string, periodFrom: number | null, periodTo: number | null): void {
  stmt(db, 'UPDATE verification_runs SET two_way = 1, period_from = ?, period_to = ? WHERE run_id = ?').run(periodFrom, periodTo, runId);
}

export function addRunGroupCounts(db: Db, runId: string, notInBooks: number, duplicates: number): void {
  stmt(db, 'UPDATE verification_runs SET not_in_books = not_in_books + ?, duplicates = duplicates + ? WHERE run_id = ?').run(
    notInBooks,
    duplicates,
    runId,
  );
}

/** Ledger records no claim of the run found, each with its exception; the caller holds the transaction. */
export function insertUnbooked(db: Db, runId: string, rows: readonly { transaction_id: string; ticket_id: string | null }[]): void {
  const insert = stmt(db, 'INSERT OR IGNORE INTO run_unbooked (run_id, transaction_id, ticket_id) VALUES (?, ?, ?)');
  for (const r of rows) insert.run(runId, r.transaction_id, r.ticket_id);
}

/** A page of a run's ledger records that no claim found, in ledger order, each with the record as it stands now. */
export function listUnbooked(db: Db, runId: string, page: number, pageSize: number): Page<UnbookedItem> {
  const total = stmt<[string], number>(db, 'SELECT count(*) FROM run_unbooked WHERE run_id = ?').pluck().get(runId)!;
  const rows = stmt<[string, number, number], { transaction_id: string; ticket_id: string | null }>(
    db,
    'SELECT transaction_id, ticket_id FROM run_unbooked WHERE run_id = ? ORDER BY transaction_id LIMIT ? OFFSET ?',
  ).all(runId, pageSize, (page - 1) * pageSize);
  const records = new Map(
    recordsWhereIn(
      db,
      'transaction_id',
      rows.map((r) => r.transaction_id),
    ).map((r) => [r.transaction_id, r]),
  );
  const list = rows.map((r) => ({
    record: records.get(r.transaction_id) ?? null,
    transaction_id: r.transaction_id,
    ticket_id: r.ticket_id,
  }));
  return { list, total, page, page_size: pageSize };
}

/** A books run's rows that could not become claims: how many, and the first of them. */
export function recordRunRejections(db: Db, runId: string, count: number, rows: readonly BooksRejectedRow[]): void {
  stmt(db, 'UPDATE verification_runs SET rejected_count = ?, rejected = ? WHERE run_id = ?').run(count, JSON.stringify(rows), runId);
}

/** How many of a run's items are stored (fewer than its item_count once data retention has removed some). */
export function storedItemCount(db: Db, runId: string): number {
  return stmt<[string], number>(db, 'SELECT coalesce(sum(item_count), 0) FROM verification_chunks WHERE run_id = ?').pluck().get(runId)!;
}

export function runRejections(db: Db, runId: string): BooksRejectedRow[] {
  const text = stmt<[string], string>(db, 'SELECT rejected FROM verification_runs WHERE run_id = ?').pluck().get(runId);
  return text === undefined ? [] : (JSON.parse(text) as BooksRejectedRow[]);
}

export function listRuns(db: Db, page: number, pageSize: number): Page<RunSummary> {
  const total = stmt<[], { n: number }>(db, 'SELECT count(*) AS n FROM verification_runs').get()!.n;
  const list = stmt<[number, number], RunRowStored>(
    db,
    `SELECT ${RUN_COLUMNS} FROM verification_runs ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
  )
    .all(pageSize, (page - 1) * pageSize)
    .map(runOf);
  return { list, total, page, page_size: pageSize };
}

export type RunItemFilter = 'all' | 'matched' | 'mismatched' | 'not_found' | 'duplicates';

/**
 * One item's outcome as stored in a chunk's `outcomes`; a duplicate claim of a two-way run adds
 * the idx of the claim it repeats (and counts in the chunk's `duplicates` only).
 */
export type StoredOutcome = [
  transactionId: string | null,
  result: 0 | 1,
  falseFlags: FlagField[],
  ticketId: string | null,
  duplicateOf?: number,
];

export interface RunItemRow {
  idx: number;
  claimed: unknown;
  falseFlags: FlagField[];
  result: boolean;
  ticket_id: string | null;
  record: LedgerRecord | null;
  duplicate_of: number | null;
}

function inFilter(filter: RunItemFilter, o: StoredOutcome): boolean {
  if (filter === 'all') return true;
  if (o[4] !== undefined) return filter === 'duplicates';
  switch (filter) {
    case 'matched':
      return o[1] === 1;
    case 'not_found':
      return o[0] === null;
    case 'mismatched':
      return o[1] === 0 && o[0] !== null;
    case 'duplicates':
      return false;
  }
}

type ChunkCounts = Pick<ChunkRow, 'first_idx' | 'item_count' | 'matched' | 'mismatched' | 'not_found' | 'duplicates'>;
const countIn = (filter: RunItemFilter, c: ChunkCounts): number => (filter === 'all' ? c.item_count : c[filter]);

/**
 * A page of a run's items, each with the record as it stands in the ledger now. The chunks' counts
 * say which chunks hold the page, so only those are read and parsed, however long the run.
 * `parseClaims` reads a chunk's claims document (numbers keep their digits).
 */
export function listRunItems(
  db: Db,
  runId: string,
  filter: RunItemFilter,
  page: number,
  pageSize: number,
  parseClaims: (text: string) => unknown[],
): Page<RunItemRow> {
  const chunks = stmt<[string], ChunkCounts>(
    db,
    'SELECT first_idx, item_count, matched, mismatched, not_found, duplicates FROM verification_chunks WHERE run_id = ? ORDER BY first_idx',
  ).all(runId);
  const total = chunks.reduce((n, c) => n + countIn(filter, c), 0);
  const list: RunItemRow[] = [];
  const ids: (string | null)[] = [];
  let skip = (page - 1) * pageSize;
  const read = stmt<[string, number], { claims: string; outcomes: string }>(
    db,
    'SELECT claims, outcomes FROM verification_chunks WHERE run_id = ? AND first_idx = ?',
  );
  for (const c of chunks) {
    if (list.length >= pageSize) break;
    const n = countIn(filter, c);
    if (skip >= n) {
      skip -= n;
      continue;
    }
    const doc = read.get(runId, c.first_idx)!;
    const outcomes = JSON.parse(doc.outcomes) as StoredOutcome[];
    const claims = parseClaims(doc.claims);
    for (let i = 0; i < outcomes.length && list.length < pageSize; i++) {
      const o = outcomes[i]!;
      if (!inFilter(filter, o)) continue;
      if (skip > 0) {
        skip--;
        continue;
      }
      list.push({
        idx: c.first_idx + i,
        claimed: claims[i],
        falseFlags: o[2],
        result: o[1] === 1,
        ticket_id: o[3],
        record: null,
        duplicate_of: o[4] ?? null,
      });
      ids.push(o[0]);
    }
  }
  const records = new Map(
    recordsWhereIn(
      db,
      'transaction_id',
      ids.filter((id) => id !== null),
    ).map((r) => [r.transaction_id, r]),
  );
  list.forEach((r, i) => (r.record = ids[i] === null ? null : (records.get(ids[i]!) ?? null)));
  return { list, total, page, page_size: pageSize };
}

const ALL_FALSE_JSON = JSON.stringify(FLAG_FIELDS);

/**
 * One item's outcome as a chunk stores it: [transaction_id or null, result 0/1, the false flags'
 * fields (a few bytes for a match), ticket_id or null].
 */
export function outcomeJson(
  transactionId: string | null,
  result: boolean,
  flags: MatchFlags,
  ticketId: string | null,
  duplicateOf?: number,
): string {
  const falseFlags = result
    ? '[]'
    : transactionId === null
      ? ALL_FALSE_JSON
      : JSON.stringify(FLAG_FIELDS.filter((f) => !flags[matchFlagOf(f)]));
  const dup = duplicateOf === undefined ? '' : `,${duplicateOf}`;
  return `[${transactionId === null ? 'null' : JSON.stringify(transactionId)},${result ? 1 : 0},${falseFlags},${ticketId === null ? 'null' : JSON.stringify(ticketId)}${dup}]`;
}

/** Flags from the stored list of the false ones' fields. */
export function flagsOf(falseFlags: readonly FlagField[]): MatchFlags {
  const falseOnes = new Set(falseFlags);
  return Object.fromEntries(FLAG_FIELDS.map((f) => [matchFlagOf(f), !falseOnes.has(f)])) as MatchFlags;
}

/** Ids of the records in scope and period, oldest first (served by the wallet/created index or the created index). */
export function recordIdsInScope(
  db: Db,
  scope: { wallet_id: string | null; wallets: ReadonlySet<string> | null },
  period: { from: number | null; to: number | null },
): string[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (scope.wallet_id !== null) {
    where.push(keyEquals('wallet_id', 'wallet_no'));
    params.push(scope.wallet_id);
  } else if (scope.wallets !== null) {
    where.push(`wallet_no IN (SELECT no FROM ${NAMES_TABLE} WHERE lower(name) IN (SELECT value FROM json_each(?)))`);
    params.push(JSON.stringify([...scope.wallets]));
  }
  if (period.from !== null) {
    where.push('created_at >= ?');
    params.push(period.from);
  }
  if (period.to !== null) {
    where.push('created_at <= ?');
    params.push(period.to);
  }
  const sql = `SELECT transaction_id FROM transactions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, transaction_id`;
  return stmt<unknown[], string>(db, sql)
    .pluck()
    .all(...params);
}

/** Every exception a run's items and its unbooked records carry, each once (read from the stored outcomes, however long the run). */
export function runTicketIds(db: Db, runId: string): string[] {
  return stmt<[string, string], string>(
    db,
    `SELECT json_extract(o.value, '$[3]') AS id FROM verification_chunks c, json_each(c.outcomes) o
       WHERE c.run_id = ? AND json_extract(o.value, '$[3]') IS NOT NULL
     UNION SELECT ticket_id FROM run_unbooked WHERE run_id = ? AND ticket_id IS NOT NULL`,
  )
    .pluck()
    .all(runId, runId);
}

/** What a run's stored options say (books runs keep the tolerances, the period's zone, who ran it and the file); {} when nothing. */
export function runOptions(db: Db, runId: string): Record<string, unknown> {
  const text = stmt<[string], string>(db, 'SELECT options FROM verification_runs WHERE run_id = ?').pluck().get(runId);
  const parsed: unknown = text ? JSON.parse(text) : {};
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

/** The catalogue's tokens: what a books token cell (an id or a symbol) is read against. */
export function catalogueTokens(db: Db): { token_id: string; chain_id: string; symbol: string }[] {
  return stmt<[], { token_id: string; chain_id: string; symbol: string }>(
    db,
    'SELECT token_id, chain_id, symbol FROM tokens ORDER BY chain_id, token_id',
  ).all();
}

/**
 * The chains a wallet (or each wallet in scope; null: every wallet) is on: those it has an address
 * on, and those its records are on.
 */
export function walletChains(db: Db, scope: { wallet_id: string | null; wallets: ReadonlySet<string> | null }): string[] {
  const wallets = scope.wallet_id !== null ? [scope.wallet_id.toLowerCase()] : scope.wallets === null ? null : [...scope.wallets];
  const chainsOf = (sql: string, ...params: unknown[]) =>
    stmt<unknown[], string>(db, sql)
      .pluck()
      .all(...params);
  if (wallets === null) {
    return chainsOf(
      `SELECT chain_id FROM wallet_addresses UNION SELECT ${nameOf('chain_no')} FROM (SELECT DISTINCT chain_no FROM ${LEDGER_TABLE})`,
    );
  }
  const list = JSON.stringify(wallets);
  return chainsOf(
    `SELECT chain_id FROM wallet_addresses WHERE lower(wallet_id) IN (SELECT value FROM json_each(?))
     UNION SELECT ${nameOf('chain_no')} FROM (SELECT DISTINCT chain_no FROM ${LEDGER_TABLE}
       WHERE wallet_no IN (SELECT no FROM ${NAMES_TABLE} WHERE lower(name) IN (SELECT value FROM json_each(?))))`,
    list,
    list,
  );
}
