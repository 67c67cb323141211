import type pg from 'pg';
import { ADVISORY_LOCKS } from '../db/advisory-locks';
import { inTransaction, type Db } from '../db/open';
import { inPgTransaction, type PgDb } from '../db/postgres';
import { openTickets, pendingTicketIds, updateTicketClaim, type NewTicket, type TicketClaim } from '../tickets/repository';
import { insertChunk, insertRun, type ChunkRow, type RunRow } from './repository';

/*
 * The write of one batch of a verification, on either engine: the store interface's slice for runs
 * (team mode, docs/team.md), after the nonces, the tickets a person works on and the API keys. A
 * batch of up to 1,000 claims writes its run (the first batch of a run creates it), a Pending
 * mismatch ticket for each mismatched record that has none, an update of the ticket for each that
 * has one, and its chunk of results, in one transaction: all of it lands, or none of it.
 *
 * Which tickets are Pending is read inside that transaction and decides what it writes. On SQLite
 * one process holds the store and the transaction is synchronous: nothing comes in between. On
 * PostgreSQL several services write at once, and without more two batches about one transaction
 * would each find no Pending ticket and each open one, or a batch would update a ticket a person
 * has just resolved. So a batch first takes a transaction-scoped advisory lock on each
 * transaction it found mismatched (in one order, so two batches never wait on each other in a
 * circle), then reads their Pending tickets FOR UPDATE: a second batch about the same transaction
 * waits for the first to commit and then finds the ticket it opened; a person's change of status
 * waits for the batch and is then told the ticket changed (its version moved); a batch that waited
 * for a person's change finds the ticket no longer Pending and opens a new one.
 *
 * The exceptions of a two-way run (books runs) and the runs' reading stay on the SQLite store's
 * statements until the ledger moves (docs/team.md).
 */

/** What one batch writes besides its run: the tickets opened, then the updates in claim order, then its chunk. */
export interface BatchWrites {
  opened: NewTicket[];
  /** [ticket_id, the newer claim]: a ticket this batch opened may be updated by a later claim of it. */
  updates: [string, TicketClaim][];
  chunk: ChunkRow;
}

interface BatchPlan<T> {
  run_id: string;
  /** The run, when this batch creates it. */
  run?: RunRow;
  /** The transactions of the records the batch found mismatched: their Pending tickets are what `plan` is given. */
  mismatched: readonly string[];
  /**
   * What to write, given the Pending mismatch ticket of each of those transactions as the batch's
   * own transaction reads it; and what the caller is answered. Runs inside the transaction: on the
   * embedded store it may write more there (a two-way run's exceptions), on the service's connection.
   */
  plan(pending: Map<string, string>): { writes: BatchWrites; result: T };
}

export interface RunStore {
  /** Write a batch as `plan` decides it, in one transaction; a failure writes nothing of it. */
  writeBatch<T>(batch: BatchPlan<T>): Promise<T>;
}

/** Writes of a batch on the embedded store; the caller holds the transaction. */
function writeBatchSqlite(db: Db, runId: string, w: BatchWrites): void {
  openTickets(db, w.opened);
  for (const [id, claim] of w.updates) updateTicketClaim(db, id, claim);
  insertChunk(db, runId, w.chunk);
}

/** The embedded store's: one synchronous transaction on the service's connection. */
export function sqliteRunStore(db: Db): RunStore {
  return {
    writeBatch: async (batch) =>
      inTransaction(db, () => {
        if (batch.run) insertRun(db, batch.run);
        const { writes, result } = batch.plan(pendingTicketIds(db, batch.mismatched));
        writeBatchSqlite(db, batch.run_id, writes);
        return result;
      }),
  };
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A team store's, on PostgreSQL: each batch in a transaction of its own client. */
export function postgresRunStore(db: PgDb): RunStore {
  const pool = db.$client;
  return {
    writeBatch: (batch) =>
      inPgTransaction(pool, async (client) => {
        if (batch.run) await insertRunPg(client, batch.run);
        const pending = await lockPending(client, batch.mismatched);
        const { writes, result } = batch.plan(pending);
        await openTicketsPg(client, writes.opened);
        await updateClaimsPg(client, writes.updates);
        await insertChunkPg(client, batch.run_id, writes.chunk);
        return result;
      }),
  };
}

async function insertRunPg(client: pg.PoolClient, run: RunRow): Promise<void> {
  await client.query(
    `INSERT INTO verification_runs (run_id, source, api_key, label, wallet_id, shape, options, item_count, matched, mismatched, not_found, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0, 0, 0, $8)`,
    [run.run_id, run.source, run.api_key, run.label, run.wallet_id, run.shape, run.options, run.created_at],
  );
}

/**
 * The Pending mismatch ticket of each transaction, locked until the batch commits, after the
 * batch's advisory lock on each transaction (the file's comment says why both).
 */
async function lockPending(client: pg.PoolClient, transactionIds: readonly string[]): Promise<Map<string, string>> {
  const ids = [...new Set(transactionIds)].sort(byText);
  if (ids.length === 0) return new Map();
  // The locks are taken in the order of their keys, by every service.
  await client.query(
    `SELECT pg_advisory_xact_lock($1::integer, k) FROM (SELECT DISTINCT hashtext(id) AS k FROM unnest($2::text[]) AS id ORDER BY k) AS keys`,
    [ADVISORY_LOCKS.pendingTicket, ids],
  );
  const { rows } = await client.query<{ ticket_id: string; transaction_id: string }>(
    `SELECT ticket_id, transaction_id FROM tickets
     WHERE transaction_id = ANY($1::text[]) AND status = 'Pending' AND kind = 'mismatch'
     ORDER BY ticket_id FOR UPDATE`,
    [ids],
  );
  return new Map(rows.map((r) => [r.transaction_id, r.ticket_id]));
}

/** New Pending tickets and their first events: one statement each for the whole batch. */
async function openTicketsPg(client: pg.PoolClient, list: readonly NewTicket[]): Promise<void> {
  if (list.length === 0) return;
  const col = <K extends keyof NewTicket>(k: K) => list.map((t) => t[k]);
  await client.query(
    `INSERT INTO tickets (ticket_id, kind, subject, wallet_id, transaction_id, status, chain_id, token_id, amount, abnormals, "desc", claimed, run_id, created_at, updated_at)
     SELECT id, 'mismatch', tx, wallet, tx, 'Pending', chain, token, amount, abnormals, d, claimed, run, at, at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[])
       AS t(id, tx, wallet, chain, token, amount, abnormals, d, claimed, run, at)`,
    [
      col('ticket_id'),
      col('transaction_id'),
      col('wallet_id'),
      col('chain_id'),
      col('token_id'),
      col('amount'),
      col('abnormals'),
      col('desc'),
      col('claimed'),
      col('run_id'),
      col('at'),
    ],
  );
  await client.query(
    `INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at)
     SELECT id, 'opened', NULL, 'Pending', note, actor, at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS e(id, note, actor, at, n) ORDER BY n`,
    [col('ticket_id'), col('desc'), col('actor'), col('at')],
  );
}

/**
 * Newer claims on Pending tickets, in claim order: each ticket ends with its last claim and its
 * version moved once a claim (as the embedded store's one UPDATE a claim does), and each claim
 * leaves its event, in order.
 */
async function updateClaimsPg(client: pg.PoolClient, updates: readonly [string, TicketClaim][]): Promise<void> {
  if (updates.length === 0) return;
  const last = new Map<string, { claim: TicketClaim; claims: number }>();
  for (const [id, claim] of updates) last.set(id, { claim, claims: (last.get(id)?.claims ?? 0) + 1 });
  const ids = [...last.keys()];
  const finals = ids.map((id) => last.get(id)!);
  await client.query(
    `UPDATE tickets AS t SET abnormals = u.abnormals, "desc" = u.d, claimed = u.claimed, run_id = u.run, updated_at = u.at,
       version = t.version + u.claims
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::integer[])
       AS u(id, abnormals, d, claimed, run, at, claims)
     WHERE t.ticket_id = u.id`,
    [
      ids,
      finals.map((f) => f.claim.abnormals),
      finals.map((f) => f.claim.desc),
      finals.map((f) => f.claim.claimed),
      finals.map((f) => f.claim.run_id),
      finals.map((f) => f.claim.at),
      finals.map((f) => f.claims),
    ],
  );
  await client.query(
    `INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at)
     SELECT id, 'updated', 'Pending', 'Pending', note, actor, at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) WITH ORDINALITY AS e(id, note, actor, at, n) ORDER BY n`,
    [updates.map(([id]) => id), updates.map(([, c]) => c.desc), updates.map(([, c]) => c.actor), updates.map(([, c]) => c.at)],
  );
}

async function insertChunkPg(client: pg.PoolClient, runId: string, c: ChunkRow): Promise<void> {
  await client.query(
    `INSERT INTO verification_chunks (run_id, first_idx, item_count, matched, mismatched, not_found, duplicates, claims, outcomes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [runId, c.first_idx, c.item_count, c.matched, c.mismatched, c.not_found, c.duplicates, c.claims, c.outcomes],
  );
  await client.query(
    `UPDATE verification_runs SET item_count = item_count + $1, matched = matched + $2, mismatched = mismatched + $3,
       not_found = not_found + $4, duplicates = duplicates + $5 WHERE run_id = $6`,
    [c.item_count, c.matched, c.mismatched, c.not_found, c.duplicates, runId],
  );
}
