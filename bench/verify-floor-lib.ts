import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { isItemIssue, readVerifyItem, type VerifyItem } from '../src/shared/reconcile';
import type { LedgerRecord } from '../src/shared/ledger';
import type { Db } from '../src/main/service/db/open';
import { hashIndexKey } from '../src/main/service/db/ledger-sql';
import { claimedJson } from '../src/main/service/json/claimed';
import { parseExactJson } from '../src/main/service/json/exact';
import {
  abnormalFields,
  caselessKey,
  describeMismatch,
  isCaseless,
  lookupKey,
  matchClaim,
  type Identifier,
} from '../src/main/service/reconcile/match';
import { evmChainIds, outcomeJson, recordsWhereIn } from '../src/main/service/reconcile/repository';

/*
 * The verification floor: what SQLite itself needs for a request of claims, with no service around
 * it. Per request, on one better-sqlite3 connection opened as the service opens the store:
 *
 *   - the lookups: every record each claim's identifier points at, one statement per identifier
 *     kind over the same indexes as the service's (the unique transaction_id index, the hash
 *     index's 8-byte key then the whole hash, the request_id index), each record read whole, as
 *     stored (raw rows of `ledger_rows`);
 *   - the Pending tickets of the mismatched records (the statement the service runs);
 *   - one transaction: the nonce used, the run with its counts, each ticket opened (with its
 *     event) or updated (with its event), the run's chunk of claims and outcomes.
 *
 * Everything else is worked out beforehand, untimed (`planFloor`): the claims read, the keys
 * encoded as the store keeps them, the matching, the texts written (the same bytes the service
 * writes: the claims as sent, the outcomes, the tickets' descriptions), the ids. So the floor's
 * CPU time is SQLite's and better-sqlite3's only, and a service at 1x the floor would spend no
 * time on HTTP, signatures, JSON, matching or answers at all.
 */

type Column = 'tx' | 'hash' | 'request';
const COLUMN_OF: Record<Identifier, Column> = { transaction_id: 'tx', hash: 'hash', request_id: 'request' };

interface TicketRow {
  ticket_id: string;
  transaction_id: string;
  wallet_id: string;
  chain_id: string;
  token_id: string;
  amount: string;
  abnormals: string;
  desc: string;
  claimed: string;
}

/** One request's work for the floor, every value ready to bind. */
export interface FloorRequest {
  nonce: string;
  /** Per identifier kind: the keys as stored, as two JSON arrays (blobs in hex, texts). */
  keys: Record<Column, [string, string]>;
  /** JSON array of the mismatched records' transaction ids (the Pending tickets' lookup). */
  mismatched: string;
  run: { run_id: string; item_count: number; matched: number; mismatched: number; not_found: number; created_at: number };
  opened: TicketRow[];
  updates: { ticket_id: string; abnormals: string; desc: string; claimed: string }[];
  claims: string;
  outcomes: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** The keys a claim's identifier is stored under (db/ledger-sql.ts): blobs in hex, texts as they are. */
function storedKeys(by: Identifier, value: string): { blobs: string[]; texts: string[] } {
  const key = isCaseless(by, value) ? caselessKey(by, value) : value;
  if (by !== 'hash') return UUID.test(key) ? { blobs: [key.replace(/-/g, '')], texts: [] } : { blobs: [], texts: [key] };
  // A hex hash is kept as its 32 bytes (EVM, written with 0x) or a zero byte and its 32 bytes (TRON,
  // written bare): both share the index's 8-byte key, so this is still one probe of the index.
  return HEX64.test(key) ? { blobs: [key, `00${key}`], texts: [] } : { blobs: [], texts: [key] };
}

/**
 * Each request's floor work (see the top of this file), from the store as it is before the
 * requests (read only) and the bodies in the order they are sent; tickets are opened and updated
 * as the service would, request after request.
 */
export function planFloor(store: string, bodies: readonly string[], apiKey: string, firstNonce: number): FloorRequest[] {
  const sqlite = new Database(store, { readonly: true });
  const db = { $client: sqlite } as unknown as Db;
  const evm = evmChainIds(db);
  const isEvm = (chainId: string) => evm.has(chainId);
  const pendingStmt = sqlite
    .prepare(
      "SELECT ticket_id, transaction_id FROM tickets WHERE transaction_id IN (SELECT value FROM json_each(?)) AND status = 'Pending' AND kind = 'mismatch'",
    )
    .raw(true);
  /** Tickets opened by the requests planned so far, by transaction. */
  const openedBefore = new Map<string, string>();
  let nonce = firstNonce;
  const plans = bodies.map((body): FloorRequest => {
    const raw = (parseExactJson(body) as { txs: unknown[] }).txs;
    const items = raw.map((r, i) => {
      const item = readVerifyItem(r);
      if (isItemIssue(item)) throw new Error(`txs[${i}]: ${item.message}`);
      return item;
    });
    const claimed = raw.map(claimedJson);
    const keys: Record<Column, { blobs: Set<string>; texts: Set<string> }> = {
      tx: { blobs: new Set(), texts: new Set() },
      hash: { blobs: new Set(), texts: new Set() },
      request: { blobs: new Set(), texts: new Set() },
    };
    const wanted: Record<Identifier, Set<string>> = { transaction_id: new Set(), hash: new Set(), request_id: new Set() };
    const claimKeys = items.map((item) => {
      const { by, value } = lookupKey(item);
      const stored = storedKeys(by, value);
      for (const b of stored.blobs) keys[COLUMN_OF[by]].blobs.add(b);
      for (const t of stored.texts) keys[COLUMN_OF[by]].texts.add(t);
      const key = isCaseless(by, value) ? caselessKey(by, value) : value;
      wanted[by].add(key);
      if (by === 'hash' && isCaseless(by, value)) wanted[by].add(`0x${key}`);
      return { by, key };
    });
    // The records each claim finds, filed under the claim's comparison key (as the service does).
    const found: Record<Identifier, Map<string, LedgerRecord[]>> = { transaction_id: new Map(), hash: new Map(), request_id: new Map() };
    for (const by of ['transaction_id', 'hash', 'request_id'] as const) {
      for (const r of recordsWhereIn(db, by, wanted[by])) {
        const v = r[by];
        const key = isCaseless(by, v) ? caselessKey(by, v) : v;
        const list = found[by].get(key);
        if (list) list.push(r);
        else found[by].set(key, [r]);
      }
    }
    const matches = items.map((item: VerifyItem, i) => matchClaim(item, found[claimKeys[i]!.by].get(claimKeys[i]!.key) ?? [], isEvm));
    const runId = uuidv7();
    const now = Date.now();
    const mismatchedTx = matches.filter((m) => m.record !== null && !m.result).map((m) => m.record!.transaction_id);
    const pending = new Map((pendingStmt.all(JSON.stringify([...new Set(mismatchedTx)])) as [string, string][]).map(([t, tx]) => [tx, t]));
    const opened: TicketRow[] = [];
    const updates: FloorRequest['updates'] = [];
    let matched = 0;
    let notFound = 0;
    const outcomes = matches.map((m, i) => {
      if (m.result) matched++;
      else if (m.record === null) notFound++;
      if (m.record === null || m.result) return outcomeJson(m.record?.transaction_id ?? null, m.result, m.flags, null);
      const tx = m.record.transaction_id;
      const text = {
        abnormals: abnormalFields(m.flags).join(','),
        desc: describeMismatch(items[i]!, m.record, m.flags),
        claimed: claimed[i]!,
      };
      let ticketId = pending.get(tx) ?? openedBefore.get(tx);
      if (ticketId !== undefined) updates.push({ ticket_id: ticketId, ...text });
      else {
        ticketId = uuidv7();
        opened.push({
          ticket_id: ticketId,
          transaction_id: tx,
          wallet_id: m.record.wallet_id,
          chain_id: m.record.chain_id,
          token_id: m.record.token_id,
          amount: m.record.amount,
          ...text,
        });
        openedBefore.set(tx, ticketId);
      }
      return outcomeJson(tx, m.result, m.flags, ticketId);
    });
    const json = (s: Set<string>) => JSON.stringify([...s]);
    return {
      nonce: String(nonce++),
      keys: {
        tx: [json(keys.tx.blobs), json(keys.tx.texts)],
        hash: [json(keys.hash.blobs), json(keys.hash.texts)],
        request: [json(keys.request.blobs), json(keys.request.texts)],
      },
      mismatched: JSON.stringify([...new Set(mismatchedTx)]),
      run: {
        run_id: runId,
        item_count: items.length,
        matched,
        mismatched: items.length - matched - notFound,
        not_found: notFound,
        created_at: now,
      },
      opened,
      updates,
      claims: `[${claimed.join(',')}]`,
      outcomes: `[${outcomes.join(',')}]`,
    };
  });
  sqlite.close();
  return plans;
}

/** Opens the store as the service does (db/open.ts): the same pragmas, so the same page cache and the same mapped reads. */
function openLikeService(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  db.pragma('mmap_size = 2147483648');
  return db;
}

const lookupSql = (column: string, where: (k: string) => string) =>
  `WITH wanted(k) AS MATERIALIZED (SELECT unhex(value) FROM json_each(?) UNION ALL SELECT value FROM json_each(?))
   SELECT * FROM ledger_rows t WHERE ${where(column)}`;

/** The floor on a copy of the store (`file`, written to): `run` does one planned request and answers its CPU time, ms (every thread of this process). */
export interface Floor {
  run(r: FloorRequest): number;
  /** Of the CPU time `run` answered so far, the time in user mode, ms (the rest was the kernel's). */
  readonly userMs: number;
  /** Records read since the floor was opened (a check that the lookups found what the service found). */
  readonly records: number;
  close(): void;
}

export function openFloor(file: string, apiKey: string): Floor {
  const db = openLikeService(file);
  const lookups: Record<Column, Database.Statement> = {
    tx: db.prepare(lookupSql('tx_key', (c) => `t.${c} IN (SELECT k FROM wanted)`)).raw(true),
    hash: db
      .prepare(
        lookupSql(
          'hash_key',
          (c) => `${hashIndexKey(`t.${c}`)} IN (SELECT ${hashIndexKey('k')} FROM wanted) AND t.${c} IN (SELECT k FROM wanted)`,
        ),
      )
      .raw(true),
    request: db.prepare(lookupSql('request_key', (c) => `t.${c} IN (SELECT k FROM wanted)`)).raw(true),
  };
  const pending = db
    .prepare(
      "SELECT ticket_id, transaction_id FROM tickets WHERE transaction_id IN (SELECT value FROM json_each(?)) AND status = 'Pending' AND kind = 'mismatch'",
    )
    .raw(true);
  const nonce = db.prepare('INSERT INTO used_nonces (api_key, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  const keyUsed = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE api_key = ?');
  const run = db.prepare(
    `INSERT INTO verification_runs (run_id, source, api_key, label, wallet_id, shape, options, item_count, matched, mismatched, not_found, created_at)
     VALUES (?, 'api', ?, 'bench', NULL, 'A', '{}', ?, ?, ?, ?, ?)`,
  );
  const ticket = db.prepare(
    `INSERT INTO tickets (ticket_id, kind, subject, wallet_id, transaction_id, status, chain_id, token_id, amount, abnormals, "desc", claimed, run_id, created_at, updated_at)
     VALUES (?, 'mismatch', ?, ?, ?, 'Pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const opened = db.prepare(
    "INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at) VALUES (?, 'opened', NULL, 'Pending', ?, ?, ?)",
  );
  const update = db.prepare('UPDATE tickets SET abnormals = ?, "desc" = ?, claimed = ?, run_id = ?, updated_at = ? WHERE ticket_id = ?');
  const updated = db.prepare(
    "INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at) VALUES (?, 'updated', 'Pending', 'Pending', ?, ?, ?)",
  );
  const chunk = db.prepare(
    `INSERT INTO verification_chunks (run_id, first_idx, item_count, matched, mismatched, not_found, duplicates, claims, outcomes)
     VALUES (?, 0, ?, ?, ?, ?, 0, ?, ?)`,
  );
  const actor = `api:${apiKey}`;
  let records = 0;
  let userMs = 0;
  const one = (r: FloorRequest) => {
    for (const column of ['tx', 'hash', 'request'] as const) records += lookups[column].all(...r.keys[column]).length;
    pending.all(r.mismatched);
    const at = r.run.created_at;
    db.exec('BEGIN');
    nonce.run(apiKey, r.nonce, at + 60_000);
    keyUsed.run(at, apiKey);
    run.run(r.run.run_id, apiKey, r.run.item_count, r.run.matched, r.run.mismatched, r.run.not_found, at);
    for (const t of r.opened) {
      ticket.run(
        t.ticket_id,
        t.transaction_id,
        t.wallet_id,
        t.transaction_id,
        t.chain_id,
        t.token_id,
        t.amount,
        t.abnormals,
        t.desc,
        t.claimed,
        r.run.run_id,
        at,
        at,
      );
      opened.run(t.ticket_id, t.desc, actor, at);
    }
    for (const u of r.updates) {
      update.run(u.abnormals, u.desc, u.claimed, r.run.run_id, at, u.ticket_id);
      updated.run(u.ticket_id, u.desc, actor, at);
    }
    chunk.run(r.run.run_id, r.run.item_count, r.run.matched, r.run.mismatched, r.run.not_found, r.claims, r.outcomes);
    db.exec('COMMIT');
  };
  return {
    run(r) {
      const before = process.cpuUsage();
      one(r);
      const used = process.cpuUsage(before);
      userMs += used.user / 1000;
      return (used.user + used.system) / 1000;
    },
    get userMs() {
      return userMs;
    },
    get records() {
      return records;
    },
    close: () => db.close(),
  };
}
