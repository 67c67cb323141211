import type pg from 'pg';
import { describe, expect, test } from 'vitest';
import { ADVISORY_LOCKS } from '../db/advisory-locks';
import { storesOnBothEngines, type FreshStore } from '../db/engines.test-support';
import { postgresTicketStore, sqliteTicketStore, type TicketStore } from '../tickets/store-repository';
import type { NewTicket, TicketClaim } from '../tickets/repository';
import { postgresRunStore, sqliteRunStore, type BatchWrites, type RunStore } from './run-repository';
import type { ChunkRow, RunRow } from './repository';

/*
 * The write of a verification's batch, the same on both engines: its run, the tickets it opens and
 * updates (each with its event, in claim order) and its chunk land together, and a failure leaves
 * nothing of it. Then what several services over one PostgreSQL store need: two batches about one
 * transaction at the same moment leave one Pending ticket, the later claim an update of it; a
 * person resolving a ticket while a batch updates it is never overwritten; a batch whose
 * connection dies writes nothing.
 */

const stores = storesOnBothEngines();

interface Opened {
  engine: FreshStore['engine'];
  runs: RunStore;
  tickets: TicketStore;
  /** Rows of a query, `$n` parameters on both engines. */
  rows<T>(sql: string, ...args: unknown[]): Promise<T[]>;
  /** Another service's stores over the same data. */
  second(): Promise<{ runs: RunStore; tickets: TicketStore }>;
  /** PostgreSQL's pool of this service. */
  pool?: pg.Pool;
}

async function open(fresh: () => Promise<FreshStore>): Promise<Opened> {
  const store = await fresh();
  if (store.engine === 'sqlite') {
    const db = store.db;
    return {
      engine: 'sqlite',
      runs: sqliteRunStore(db),
      tickets: sqliteTicketStore(db),
      rows: async <T>(sql: string, ...args: unknown[]) => db.$client.prepare(sql.replace(/\$\d+/g, '?')).all(...args) as T[],
      second: async () => {
        const other = await store.another();
        return { runs: sqliteRunStore(other), tickets: sqliteTicketStore(other) };
      },
    };
  }
  const db = store.db;
  return {
    engine: 'postgres',
    runs: postgresRunStore(db),
    tickets: postgresTicketStore(db),
    rows: async <T>(sql: string, ...args: unknown[]) => (await db.$client.query(sql, args)).rows as T[],
    pool: db.$client,
    second: async () => {
      const other = await store.another();
      return { runs: postgresRunStore(other), tickets: postgresTicketStore(other) };
    },
  };
}

let serial = 0;
const next = () => String(++serial).padStart(12, '0');
const WALLET = '3b7cf3c2-5632-4b92-909d-3fb64afebede';

function run(over: Partial<RunRow> = {}): RunRow {
  return {
    run_id: `0190bbbb-0000-7000-8000-${next()}`,
    source: 'api',
    api_key: 'key1',
    label: 'books robot',
    wallet_id: null,
    shape: 'A',
    options: '{}',
    created_at: 1_700_000_000_000,
    ...over,
  };
}

function claim(runId: string, amount: string, at: number, actor = 'api:key1'): TicketClaim {
  return {
    abnormals: 'amount',
    desc: `amount: claimed ${amount}, ledger 556.4571`,
    claimed: `{"amount":"${amount}"}`,
    run_id: runId,
    actor,
    at,
  };
}

/** A Pending ticket for `tx` as a batch opens it, its amount one no float keeps. */
function newTicket(tx: string, c: TicketClaim): NewTicket {
  return {
    ...c,
    ticket_id: `0190aaaa-0000-7000-8000-${next()}`,
    wallet_id: WALLET,
    transaction_id: tx,
    chain_id: 'BSC_BNB',
    token_id: 'BSC_USDT',
    amount: '123456789012345678.123456789012345678',
  };
}

function chunk(firstIdx: number, counts: Partial<ChunkRow> = {}): ChunkRow {
  return {
    first_idx: firstIdx,
    item_count: 3,
    matched: 1,
    mismatched: 2,
    not_found: 0,
    duplicates: 0,
    claims: '[{"amount":"1"},{"amount":"2"},{"amount":"3"}]',
    outcomes: '[]',
    ...counts,
  };
}

const txId = () => `a05ad1d2-066a-4953-8cc6-${next()}`;

/**
 * What a verification decides for claims mismatching these transactions, as verify.ts's planWrites
 * does: an update of the Pending ticket a transaction has, a new ticket otherwise, which a later
 * claim of the same batch about the same transaction updates.
 */
function mismatches(runId: string, txs: readonly string[], at: number, firstIdx = 0) {
  return (pending: Map<string, string>): { writes: BatchWrites; result: string[] } => {
    const writes: BatchWrites = {
      opened: [],
      updates: [],
      chunk: chunk(firstIdx, { item_count: txs.length, matched: 0, mismatched: txs.length }),
    };
    const ticketIds = txs.map((tx, i) => {
      const c = claim(runId, `556.4570${i}`, at);
      const id = pending.get(tx);
      if (id !== undefined) {
        writes.updates.push([id, c]);
        return id;
      }
      const t = newTicket(tx, c);
      writes.opened.push(t);
      pending.set(tx, t.ticket_id);
      return t.ticket_id;
    });
    return { writes, result: ticketIds };
  };
}

interface TicketSeen {
  ticket_id: string;
  status: string;
  version: number;
  claimed: string;
  run_id: string;
}
const ticketsOf = (s: Opened, tx: string) =>
  s.rows<TicketSeen>(
    'SELECT ticket_id, status, version, claimed, run_id FROM tickets WHERE transaction_id = $1 ORDER BY created_at, ticket_id',
    tx,
  );
const eventsOf = (s: Opened, ticketId: string) =>
  s.rows<{ kind: string; note: string }>('SELECT kind, note FROM ticket_events WHERE ticket_id = $1 ORDER BY id', ticketId);
const runOf = (s: Opened, runId: string) =>
  s.rows<{ item_count: number; matched: number; mismatched: number }>(
    'SELECT item_count, matched, mismatched FROM verification_runs WHERE run_id = $1',
    runId,
  );

describe.each(stores)('a verification batch on %s', (_name, fresh) => {
  test('writes its run, its tickets opened and updated (each with its event, in claim order) and its chunk together', async () => {
    const s = await open(fresh);
    const r = run();
    const [a, b] = [txId(), txId()];
    // a: opened by the first claim and updated by the third; b: opened.
    const first = await s.runs.writeBatch({
      run_id: r.run_id,
      run: r,
      mismatched: [a, b, a],
      plan: mismatches(r.run_id, [a, b, a], 1_000),
    });
    expect(first[0]).toBe(first[2]);
    const [ta] = await ticketsOf(s, a);
    expect(ta).toMatchObject({ ticket_id: first[0], status: 'Pending', version: 1, claimed: '{"amount":"556.45702"}', run_id: r.run_id });
    expect((await eventsOf(s, first[0]!)).map((e) => e.kind)).toEqual(['opened', 'updated']);
    expect(await ticketsOf(s, b)).toMatchObject([{ ticket_id: first[1], status: 'Pending', version: 0 }]);
    expect(await runOf(s, r.run_id)).toEqual([{ item_count: 3, matched: 0, mismatched: 3 }]);

    // The run's second batch finds the Pending tickets and updates them; a resolved one is not Pending: a new ticket.
    const stale = await s.tickets.setStatus([{ ticket_id: first[1]!, from: 'Pending', version: 0 }], 'Resolved', 'paid', 'Anna', 1_500);
    expect(stale).toEqual([]);
    const second = await s.runs.writeBatch({ run_id: r.run_id, mismatched: [a, b], plan: mismatches(r.run_id, [a, b], 2_000, 3) });
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(await ticketsOf(s, a)).toMatchObject([
      { ticket_id: first[0], status: 'Pending', version: 2, claimed: '{"amount":"556.45700"}' },
    ]);
    expect((await ticketsOf(s, b)).map((t) => [t.ticket_id, t.status])).toEqual([
      [first[1], 'Resolved'],
      [second[1], 'Pending'],
    ]);
    expect(await runOf(s, r.run_id)).toEqual([{ item_count: 5, matched: 0, mismatched: 5 }]);
    expect(await s.rows('SELECT first_idx FROM verification_chunks WHERE run_id = $1 ORDER BY first_idx', r.run_id)).toEqual([
      { first_idx: 0 },
      { first_idx: 3 },
    ]);
  });

  test('a batch that fails leaves nothing of it: no run, no ticket, no event, no chunk', async () => {
    const s = await open(fresh);
    const r = run();
    const tx = txId();
    const plan = mismatches(r.run_id, [tx], 1_000);
    await expect(
      s.runs.writeBatch({
        run_id: r.run_id,
        run: r,
        mismatched: [tx],
        plan: (pending) => {
          const planned = plan(pending);
          // A chunk the store refuses (the run's first index again comes later): fails after the tickets are written.
          planned.writes.chunk = { ...planned.writes.chunk, claims: null as unknown as string };
          return planned;
        },
      }),
    ).rejects.toThrow();
    expect(await runOf(s, r.run_id)).toEqual([]);
    expect(await ticketsOf(s, tx)).toEqual([]);
    expect(await s.rows('SELECT ticket_id FROM ticket_events')).toEqual([]);
    expect(await s.rows('SELECT run_id FROM verification_chunks WHERE run_id = $1', r.run_id)).toEqual([]);
  });
});

describe('several services over one PostgreSQL store', () => {
  const postgres = stores.find(([name]) => name === 'PostgreSQL')![1];

  test('two batches about one transaction at the same moment leave one Pending ticket, the later claim an update of it (20 rounds)', async () => {
    const s = await open(postgres);
    const other = await s.second();
    for (let round = 0; round < 20; round++) {
      const tx = txId();
      const [r1, r2] = [run(), run()];
      const [one, two] = await Promise.all([
        s.runs.writeBatch({ run_id: r1.run_id, run: r1, mismatched: [tx], plan: mismatches(r1.run_id, [tx], 1_000 + round) }),
        other.runs.writeBatch({ run_id: r2.run_id, run: r2, mismatched: [tx], plan: mismatches(r2.run_id, [tx], 1_000 + round) }),
      ]);
      expect(one[0]).toBe(two[0]);
      const tickets = await ticketsOf(s, tx);
      expect(tickets).toHaveLength(1);
      expect(tickets[0]).toMatchObject({ status: 'Pending', version: 1 });
      expect((await eventsOf(s, tickets[0]!.ticket_id)).map((e) => e.kind)).toEqual(['opened', 'updated']);
    }
  }, 60_000);

  test('a person resolving a ticket while a batch updates it: the person is told it changed, or the batch opens a new ticket; never an update on a resolved ticket (20 rounds)', async () => {
    const s = await open(postgres);
    const other = await s.second();
    const outcomes = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const tx = txId();
      const r0 = run();
      const [opened] = await s.runs.writeBatch({ run_id: r0.run_id, run: r0, mismatched: [tx], plan: mismatches(r0.run_id, [tx], 1_000) });
      const r = run();
      const [stale, ids] = await Promise.all([
        other.tickets.setStatus([{ ticket_id: opened!, from: 'Pending', version: 0 }], 'Resolved', 'paid', 'Anna', 2_000),
        s.runs.writeBatch({ run_id: r.run_id, run: r, mismatched: [tx], plan: mismatches(r.run_id, [tx], 2_000) }),
      ]);
      const tickets = await ticketsOf(s, tx);
      if (stale.length === 0) {
        // Anna's change came first: her ticket stays as she left it, and the batch opened a new one.
        outcomes.add('resolved first');
        expect(tickets.map((t) => [t.ticket_id, t.status, t.version])).toEqual([
          [opened, 'Resolved', 1],
          [ids[0], 'Pending', 0],
        ]);
        expect((await eventsOf(s, opened!)).map((e) => e.kind)).toEqual(['opened', 'status']);
      } else {
        // The batch came first: Anna read version 0, the ticket moved on, and she is told.
        outcomes.add('batch first');
        expect(stale).toEqual([opened]);
        expect(ids).toEqual([opened]);
        expect(tickets.map((t) => [t.ticket_id, t.status, t.version])).toEqual([[opened, 'Pending', 1]]);
        expect((await eventsOf(s, opened!)).map((e) => e.kind)).toEqual(['opened', 'updated']);
      }
    }
    // Both orders are legal; which came first is the race's.
    expect(outcomes.size).toBeGreaterThan(0);
  }, 60_000);

  test('a batch whose connection dies while it waits writes nothing; the store goes on', async () => {
    const s = await open(postgres);
    const tx = txId();
    const r = run();
    const other = await s.second();
    // A third party holds the transaction's lock, so the batch waits on it, its run already written in its transaction.
    const blocker = await s.pool!.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT pg_advisory_xact_lock($1::integer, hashtext($2))', [ADVISORY_LOCKS.pendingTicket, tx]);
      const batch = other.runs.writeBatch({ run_id: r.run_id, run: r, mismatched: [tx], plan: mismatches(r.run_id, [tx], 1_000) });
      const failed = batch.then(
        () => 'written',
        (err: Error) => err.message,
      );
      // Wait until the batch waits on the lock, then end its connection from the server.
      let waiting: { pid: number }[] = [];
      for (let i = 0; i < 100 && waiting.length === 0; i++) {
        waiting = await s.rows<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'",
        );
        if (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(waiting).toHaveLength(1);
      await s.rows('SELECT pg_terminate_backend($1)', waiting[0]!.pid);
      expect(await failed).toMatch(/terminat/i);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    expect(await runOf(s, r.run_id)).toEqual([]);
    expect(await ticketsOf(s, tx)).toEqual([]);
    // The store and the other service's pool go on: the next batch lands.
    const r2 = run();
    await other.runs.writeBatch({ run_id: r2.run_id, run: r2, mismatched: [tx], plan: mismatches(r2.run_id, [tx], 3_000) });
    expect(await ticketsOf(s, tx)).toHaveLength(1);
  }, 60_000);
});
