import { afterEach, describe, expect, test } from 'vitest';
import type { StoreChange } from '../../../shared/changes';
import { DEFAULT_RETENTION } from '../../../shared/retention';
import type { ServiceContext } from '../context';
import { openService } from '../index';
import { tempService } from '../test-support';
import { insertRecords } from './fixtures.test-support';
import { REMOVAL_START, removalBounds, removeBatch, readPolicy } from './retention-repository';
import { retentionSettled } from './retention';
import { newRunId, verifyChunk, type Claim } from './verify';

/*
 * Retention against real SQLite files: the policy and its defaults, what it removes and keeps, the
 * removal in batches, and the pass after the service starts.
 */

const W = '11111111-1111-4111-8111-111111111111';
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const tx = (i: number) => `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`;
const ui = { actor: 'ui' as const };
const LEDGER = 2000;

type Svc = ReturnType<typeof tempService>;
const open: Svc[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    await retentionSettled(s.ctx);
    s.dispose();
  }
});

/** A service whose clock the test moves, over a ledger of LEDGER records of amount 100. */
function service(): { svc: Svc; clock: { now: number } } {
  const clock = { now: T0 };
  const svc = tempService({ now: () => clock.now });
  open.push(svc);
  insertRecords(
    svc.ctx.db,
    Array.from({ length: LEDGER }, (_, i) => ({ transaction_id: tx(i), wallet_id: W, amount: '100' })),
  );
  return { svc, clock };
}

/** A run through the signed API's handler: each claim matches (amount 100) unless its amount is given. */
async function verify(svc: Svc, claims: { i: number; amount?: unknown }[]): Promise<string> {
  const before = (await svc.invoke('runs-list', { page_size: 1 }, ui)).list[0]?.run_id;
  await svc.invoke('reconcile-verify-txs', { txs: claims.map((c) => ({ transaction_id: tx(c.i), amount: c.amount ?? '100' })) }, ui);
  const run = (await svc.invoke('runs-list', { page_size: 1 }, ui)).list[0]!.run_id;
  expect(run).not.toBe(before);
  return run;
}

const runIds = async (svc: Svc) => (await svc.invoke('runs-list', { page_size: 100 }, ui)).list.map((r) => r.run_id).sort();

function checkStore({ ctx }: { ctx: ServiceContext }): void {
  const db = ctx.db.$client;
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.pragma('foreign_key_check')).toEqual([]);
  // Every chunk holds as many claims and outcomes as it counts, and its counts add up.
  const bad = db
    .prepare(
      `SELECT run_id, first_idx FROM verification_chunks
       WHERE json_array_length(claims) != item_count OR json_array_length(outcomes) != item_count
          OR matched + mismatched + not_found + duplicates != item_count`,
    )
    .all();
  expect(bad).toEqual([]);
  // Every ticket's run is still listed, and each ticket's items are all still stored.
  expect(
    db
      .prepare('SELECT count(*) FROM tickets t WHERE NOT EXISTS (SELECT 1 FROM verification_runs r WHERE r.run_id = t.run_id)')
      .pluck()
      .get(),
  ).toBe(0);
}

/** Every (run, item index, ticket) of items that name a ticket. */
const ticketItems = ({ ctx }: { ctx: ServiceContext }) =>
  ctx.db.$client
    .prepare(
      `SELECT c.run_id, c.first_idx + o.key AS idx, json_extract(o.value, '$[3]') AS ticket_id
       FROM verification_chunks c, json_each(c.outcomes) o WHERE json_extract(o.value, '$[3]') IS NOT NULL ORDER BY 1, 2`,
    )
    .all();

describe('the policy', () => {
  test('defaults: the last 90 days and at least the last 100 runs; the store and its counts', async () => {
    const { svc } = service();
    const status = await svc.invoke('retention-get', {}, ui);
    expect(status.policy).toEqual({ days: 90, runs: 100 });
    expect(DEFAULT_RETENTION).toEqual({ days: 90, runs: 100 });
    expect(status).toMatchObject({ runs: 0, items: 0, would_remove: { runs: 0, items: 0 }, running: false });
    expect(status.store.file.endsWith('nps.sqlite')).toBe(true);
    expect(status.store.db_bytes).toBeGreaterThan(0);
    expect(status.store.wal_bytes).toBeGreaterThanOrEqual(0);
    expect(status.store.auto_vacuum).toBe('none');
  });

  test('set: each value checked, the error names the field; one value alone keeps the other; kept in the store', async () => {
    const { svc } = service();
    const refused = async (input: unknown) => {
      try {
        await svc.invoke('retention-set', input, ui);
      } catch (err) {
        return { code: (err as { code: number }).code, msg: (err as Error).message };
      }
      throw new Error(`accepted ${JSON.stringify(input)}`);
    };
    expect(await refused({ days: 0 })).toEqual({ code: 1002, msg: 'days: must be an integer from 1 to 3650' });
    expect(await refused({ days: 3651 })).toMatchObject({ msg: 'days: must be an integer from 1 to 3650' });
    expect(await refused({ days: 1.5 })).toMatchObject({ msg: 'days: must be an integer from 1 to 3650' });
    expect(await refused({ days: '30' })).toMatchObject({ msg: 'days: must be an integer from 1 to 3650' });
    expect(await refused({ days: 30, runs: -1 })).toEqual({ code: 1002, msg: 'runs: must be an integer from 0 to 1000000' });
    expect(await refused({ runs: 1_000_001 })).toMatchObject({ msg: 'runs: must be an integer from 0 to 1000000' });
    expect((await svc.invoke('retention-get', {}, ui)).policy).toEqual(DEFAULT_RETENTION);

    expect(await svc.invoke('retention-set', { days: 3650, runs: 0 }, ui)).toEqual({ days: 3650, runs: 0 });
    expect(await svc.invoke('retention-set', { runs: 1_000_000 }, ui)).toEqual({ days: 3650, runs: 1_000_000 });
    expect(await svc.invoke('retention-set', { days: 1 }, ui)).toEqual({ days: 1, runs: 1_000_000 });
    svc.close();
    const again = openService({ dataDir: svc.dataDir });
    try {
      expect((await again.invoke('retention-get', {}, ui)).policy).toEqual({ days: 1, runs: 1_000_000 });
    } finally {
      await retentionSettled(again.ctx);
      again.close();
    }
  });

  test('whichever keeps more: the runs of the last N days, or the last M runs', async () => {
    const { svc, clock } = service();
    const ages = [200, 150, 100, 50, 10, 0];
    const runs: Record<number, string> = {};
    for (const [k, age] of ages.entries()) {
      clock.now = T0 + (300 - age) * DAY;
      runs[age] = await verify(svc, [{ i: k }]);
    }
    clock.now = T0 + 300 * DAY;
    const expectRemoval = async (policy: { days: number; runs: number }, removed: number[]) => {
      await svc.invoke('retention-set', policy, ui);
      const before = await runIds(svc);
      const status = await svc.invoke('retention-get', {}, ui);
      expect(status.would_remove, JSON.stringify(policy)).toEqual({ runs: removed.length, items: removed.length });
      const applied = await svc.invoke('retention-apply', {}, ui);
      expect(applied.removed).toEqual({ runs: removed.length, items: removed.length });
      expect(applied.kept_for_tickets).toEqual({ runs: 0, items: 0 });
      expect(await runIds(svc)).toEqual(before.filter((r) => !removed.map((a) => runs[a]).includes(r)));
      expect((await svc.invoke('retention-get', {}, ui)).would_remove).toEqual({ runs: 0, items: 0 });
    };
    // Fewer runs than the default keeps: nothing goes, however old.
    expect((await svc.invoke('retention-get', {}, ui)).would_remove).toEqual({ runs: 0, items: 0 });
    await expectRemoval({ days: 365, runs: 0 }, []);
    // The last 4 runs keep more than the last 30 days (2 runs).
    await expectRemoval({ days: 30, runs: 4 }, [200, 150]);
    // The last 90 days (3 runs) keep more than the last 2 runs.
    await expectRemoval({ days: 90, runs: 2 }, [100]);
    // A day, and no run count: only today's run stays.
    await expectRemoval({ days: 1, runs: 0 }, [50, 10]);
    expect(await runIds(svc)).toEqual([runs[0]]);
    checkStore(svc);
  });
});

describe('what is kept', () => {
  test('items that opened or touched a ticket stay with their run, as they were; the rest of the run goes', async () => {
    const { svc, clock } = service();
    // Old run: a match, a mismatch (opens a ticket), a claim for a record the ledger lacks, another mismatch.
    const exact = { isLosslessNumber: true, value: '101.000000000000000000000001' };
    const old = await verify(svc, [{ i: 1 }, { i: 2, amount: exact }, { i: 999_999 }, { i: 3, amount: '7' }]);
    const onlyMatches = await verify(svc, [{ i: 4 }, { i: 5 }]);
    // Later, a mismatch on the same record updates the ticket the old run opened.
    clock.now = T0 + 10 * DAY;
    const later = await verify(svc, [{ i: 2, amount: '99' }]);
    const ticketsBefore = ticketItems(svc);
    expect(ticketsBefore).toHaveLength(3);
    const oldDetail = await svc.invoke('run-get', { run_id: old, filter: 'mismatched' }, ui);
    const claimsBefore = oldDetail.items.list.map((it) => [it.idx, it.claimed, it.ticket_id]);

    clock.now = T0 + 200 * DAY;
    await svc.invoke('retention-set', { days: 30, runs: 0 }, ui);
    expect((await svc.invoke('retention-get', {}, ui)).would_remove).toEqual({ runs: 1, items: 4 });
    const applied = await svc.invoke('retention-apply', {}, ui);
    expect(applied.removed).toEqual({ runs: 1, items: 4 });
    // The old run keeps its two; the later run has nothing but its ticket's item, so the removal does not touch it.
    expect(applied.kept_for_tickets).toEqual({ runs: 1, items: 2 });

    // The run without a ticket is gone; the others stay listed with their counts as they were.
    expect(await runIds(svc)).toEqual([old, later].sort());
    const shell = await svc.invoke('run-get', { run_id: old, page_size: 100 }, ui);
    expect(shell).toMatchObject({ item_count: 4, matched: 1, mismatched: 2, not_found: 1, stored_items: 2 });
    expect(shell.items.total).toBe(2);
    expect(shell.items.list.map((it) => [it.idx, it.claimed, it.ticket_id])).toEqual(claimsBefore);
    // The claim's number keeps every digit it was sent with.
    expect(JSON.stringify(shell.items.list[0]!.claimed)).toContain('101.000000000000000000000001');
    expect((await svc.invoke('run-get', { run_id: old, filter: 'matched' }, ui)).items.total).toBe(0);
    expect(ticketItems(svc)).toEqual(ticketsBefore);
    for (const t of ticketsBefore as { ticket_id: string }[]) {
      expect((await svc.invoke('ticket-get', { ticket_id: t.ticket_id }, ui)).ticket_id).toBe(t.ticket_id);
    }
    expect(onlyMatches).not.toBe(old);

    // Applied again: nothing more to remove, and the kept items stay.
    expect((await svc.invoke('retention-get', {}, ui)).would_remove).toEqual({ runs: 0, items: 0 });
    expect((await svc.invoke('retention-apply', {}, ui)).removed).toEqual({ runs: 0, items: 0 });
    expect(ticketItems(svc)).toEqual(ticketsBefore);
    checkStore(svc);
  });
});

describe('two-way runs', () => {
  test('claims not in the ledger and duplicates hold an exception each: kept like mismatches, counted as they were', async () => {
    const { svc, clock } = service();
    const books = ['transaction_id,amount', `${tx(1)},100`, `${tx(2)},7`, `${tx(999_999)},1`, `${tx(1)},100`, `${tx(3)},100`].join('\n');
    const run = await svc.invoke(
      'reconcile-books-run',
      {
        source: { name: 'b.csv', text: books },
        mapping: { columns: { transaction_id: 'transaction_id', amount: 'amount' } },
        two_way: false,
      },
      ui,
    );
    const twoWay = await svc.invoke(
      'reconcile-books-run',
      {
        source: { name: 'b.csv', text: books },
        mapping: { columns: { transaction_id: 'transaction_id', amount: 'amount' } },
        from: '2026-01-01',
        to: '2026-01-01',
      },
      ui,
    );
    expect(twoWay).toMatchObject({ matched: 2, mismatched: 1, not_found: 1, duplicates: 1 });
    expect(run).toMatchObject({ matched: 3, mismatched: 1, not_found: 1, duplicates: 0 });

    clock.now = T0 + 200 * DAY;
    await svc.invoke('retention-set', { days: 30, runs: 0 }, ui);
    // One-way: 4 items without a ticket go (the run stays for its mismatch). Two-way: its 2 matches go.
    expect((await svc.invoke('retention-get', {}, ui)).would_remove).toEqual({ runs: 0, items: 6 });
    const applied = await svc.invoke('retention-apply', {}, ui);
    expect(applied.removed).toEqual({ runs: 0, items: 6 });
    expect(applied.kept_for_tickets).toEqual({ runs: 2, items: 4 });
    const kept = await svc.invoke('run-get', { run_id: twoWay.run_id, page_size: 10 }, ui);
    expect(kept).toMatchObject({ stored_items: 3, not_found: 1, duplicates: 1 });
    expect((await svc.invoke('run-get', { run_id: twoWay.run_id, filter: 'duplicates' }, ui)).items.list).toMatchObject([
      { idx: 3, duplicate_of: 0 },
    ]);
    // Applied again: nothing more, and the counts of the kept chunks still add up.
    expect((await svc.invoke('retention-get', {}, ui)).would_remove).toEqual({ runs: 0, items: 0 });
    checkStore(svc);
  });

  test('a run whose only exceptions are ledger records not in the books stays listed with them', async () => {
    const { svc, clock } = service();
    svc.ctx.db.$client.prepare('UPDATE transactions SET created_at = ? WHERE transaction_id = ?').run(T0 + 1000, tx(5));
    const books = ['transaction_id,amount', `${tx(1)},100`].join('\n');
    const run = await svc.invoke(
      'reconcile-books-run',
      {
        source: { name: 'b.csv', text: books },
        mapping: { columns: { transaction_id: 'transaction_id', amount: 'amount' } },
        from: '2026-01-01',
        to: '2026-01-01',
      },
      ui,
    );
    expect(run).toMatchObject({ matched: 1, not_in_books: 1 });
    clock.now = T0 + 200 * DAY;
    await svc.invoke('retention-set', { days: 30, runs: 0 }, ui);
    expect((await svc.invoke('retention-get', {}, ui)).would_remove).toEqual({ runs: 0, items: 1 });
    expect((await svc.invoke('retention-apply', {}, ui)).removed).toEqual({ runs: 0, items: 1 });
    expect((await svc.invoke('run-unbooked', { run_id: run.run_id }, ui)).list).toMatchObject([{ transaction_id: tx(5) }]);
    expect((await svc.invoke('retention-get', {}, ui)).would_remove).toEqual({ runs: 0, items: 0 });
    checkStore(svc);
  });
});

describe('the removal', () => {
  test('in batches, with the event loop free between them; the store consistent after each, and at the end', async () => {
    const { svc, clock } = service();
    // A books-sized run of 12 chunks of 1000 (1 in 100 a mismatch), and 700 runs of one claim.
    const big = newRunId();
    const claims = (from: number): Claim[] =>
      Array.from({ length: 1000 }, (_, k) => {
        const i = (from + k) % LEDGER;
        const amount = (from + k) % 100 === 7 ? '5' : '100';
        const item = { transaction_id: tx(i), amount, amount_delta: '0.001', time_type: 'Created' as const, time_delta: 10 };
        return { item, claimed: JSON.stringify({ transaction_id: tx(i), amount }) };
      });
    const scope = { run_id: big, wallet_id: null, wallets: null, actor: 'test' };
    const run = {
      run_id: big,
      source: 'cli' as const,
      api_key: null,
      label: 'big',
      wallet_id: null,
      shape: 'A' as const,
      options: '{}',
      created_at: clock.now,
    };
    for (let c = 0; c < 12; c++) await verifyChunk(svc.ctx, scope, c * 1000, claims(c * 1000), c === 0 ? run : undefined);
    for (let r = 0; r < 700; r++) await verify(svc, [{ i: r, amount: r % 50 === 0 ? '1' : '100' }]);
    const tickets = ticketItems(svc);
    expect(tickets.length).toBe(120 + 14);

    // The run stored 100 days later starts a pass (an hour and more since the last): under a policy that keeps everything.
    await svc.invoke('retention-set', { days: 3650, runs: 0 }, ui);
    clock.now = T0 + 100 * DAY;
    await verify(svc, [{ i: 1 }]);
    await retentionSettled(svc.ctx);
    await svc.invoke('retention-set', { days: 90, runs: 0 }, ui);
    const status = await svc.invoke('retention-get', {}, ui);
    expect(status).toMatchObject({ runs: 702, items: 12_701, would_remove: { runs: 686, items: 12_000 - 120 + 686 } });

    // One batch, then the process "killed": the batch is whole, the store consistent.
    const bounds = removalBounds(svc.ctx.db, readPolicy(svc.ctx.db), clock.now)!;
    const first = removeBatch(svc.ctx.db, bounds, REMOVAL_START, 4000, 500);
    expect(first).toMatchObject({ done: false, items_seen: 4000, runs_removed: 0, items_removed: 4000 - 40 });
    checkStore(svc);
    svc.close();

    const again = openService({ dataDir: svc.dataDir, now: () => clock.now });
    try {
      // The pass after the start would do it; here the apply does, in batches, and the loop turns between them.
      let turns = 0;
      let counting = true;
      const tick = () => {
        turns++;
        if (counting) setImmediate(tick);
      };
      setImmediate(tick);
      const progress: number[] = [];
      const applied = await again.invoke('retention-apply', {}, { actor: 'ui', onProgress: (p) => progress.push(p.done) });
      counting = false;
      expect(applied.removed).toEqual({ runs: 686, items: 12_000 - 120 + 686 - (4000 - 40) });
      expect(progress.length).toBeGreaterThan(1);
      expect(turns).toBeGreaterThan(1);
      const after = await again.invoke('retention-get', {}, ui);
      expect(after).toMatchObject({ runs: 1 + 1 + 14, items: 1 + 134, would_remove: { runs: 0, items: 0 } });
      expect(ticketItems(again)).toEqual(tickets);
      checkStore(again);
      expect(after.store.free_bytes).toBeGreaterThan(0);
      expect(applied.vacuum).toBe('none');
    } finally {
      await retentionSettled(again.ctx);
      again.close();
    }
  }, 60_000);

  test('in incremental auto-vacuum mode the freed pages go back to the disk', async () => {
    const { svc, clock } = service();
    svc.close();
    const { default: Database } = await import('better-sqlite3');
    // A store made in incremental mode (the mode has to be set before its first table; VACUUM sets it on an existing one).
    const raw = new Database(svc.ctx.db.$client.name);
    raw.pragma('auto_vacuum = INCREMENTAL');
    raw.exec('VACUUM');
    raw.close();
    const again = openService({ dataDir: svc.dataDir, now: () => clock.now });
    try {
      for (let r = 0; r < 30; r++)
        await again.invoke(
          'reconcile-verify-txs',
          { txs: Array.from({ length: 1000 }, (_, k) => ({ transaction_id: tx(k), amount: '100' })) },
          ui,
        );
      again.ctx.db.$client.pragma('wal_checkpoint(TRUNCATE)');
      clock.now = T0 + 100 * DAY;
      await again.invoke('retention-set', { days: 30, runs: 0 }, ui);
      expect((await again.invoke('retention-get', {}, ui)).store.auto_vacuum).toBe('incremental');
      const applied = await again.invoke('retention-apply', {}, ui);
      expect(applied).toMatchObject({ removed: { runs: 30, items: 30_000 }, vacuum: 'incremental' });
      // The lookup thread's connection may still be reading: the checkpoint is taken once nothing holds the log.
      for (let i = 0; i < 200 && (again.ctx.db.$client.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]!.busy; i++)
        await new Promise((r) => setTimeout(r, 10));
      const status = await again.invoke('retention-get', {}, ui);
      expect(status.store.free_bytes).toBe(0);
      expect(status.store.db_bytes).toBeLessThan(applied.db_bytes_before / 2);
      checkStore(again);
    } finally {
      await retentionSettled(again.ctx);
      again.close();
    }
  }, 60_000);
});

describe('when it runs', () => {
  test('after the service starts, without delaying openService', async () => {
    const { svc, clock } = service();
    for (let r = 0; r < 20; r++)
      await verify(
        svc,
        Array.from({ length: 1000 }, (_, k) => ({ i: k })),
      );
    await svc.invoke('retention-set', { days: 30, runs: 0 }, ui);
    svc.close();
    clock.now = T0 + 100 * DAY;

    const again = openService({ dataDir: svc.dataDir, now: () => clock.now });
    try {
      // Nothing removed yet when openService returns: the pass runs after, on the event loop.
      const count = () => again.ctx.db.$client.prepare('SELECT count(*) FROM verification_runs').pluck().get();
      expect(count()).toBe(20);
      await new Promise((r) => setImmediate(r));
      expect((await again.invoke('retention-get', {}, ui)).running).toBe(true);
      await retentionSettled(again.ctx);
      expect(count()).toBe(0);
      expect((await again.invoke('retention-get', {}, ui)).running).toBe(false);
    } finally {
      await retentionSettled(again.ctx);
      again.close();
    }
  }, 60_000);

  test('after a verification run is stored, at most once an hour', async () => {
    const { svc, clock } = service();
    const oldRun = await verify(svc, [{ i: 1 }]);
    clock.now = T0 + 3 * DAY;
    // More than an hour since the pass at the start: a run stored now starts one (the policy keeps everything yet).
    await verify(svc, [{ i: 2 }]);
    await retentionSettled(svc.ctx);
    await svc.invoke('retention-set', { days: 1, runs: 0 }, ui);
    clock.now += 30 * 60_000;
    await verify(svc, [{ i: 3 }]);
    await retentionSettled(svc.ctx);
    expect(await runIds(svc)).toContain(oldRun);
    clock.now += 31 * 60_000;
    await verify(svc, [{ i: 4 }]);
    await retentionSettled(svc.ctx);
    expect(await runIds(svc)).not.toContain(oldRun);
    expect(await runIds(svc)).toHaveLength(3);
  });

  test('a removal in the background is told to the windows as one asked for is, from no one; one that removed nothing is not', async () => {
    const { svc, clock } = service();
    await verify(svc, [{ i: 1 }]);
    await verify(svc, [{ i: 2 }]);
    await retentionSettled(svc.ctx);
    await svc.invoke('retention-set', { days: 1, runs: 0 }, ui);
    const heard: StoreChange[] = [];
    const stop = svc.ctx.changes.on('runs', (_topic, detail) => heard.push((JSON.parse(detail!) as { change: StoreChange }).change));
    try {
      clock.now = T0 + 10 * DAY;
      await verify(svc, [{ i: 3 }]);
      await retentionSettled(svc.ctx);
      // An hour on, the next run's pass finds nothing more to remove.
      clock.now += 61 * 60_000;
      await verify(svc, [{ i: 4 }]);
      await retentionSettled(svc.ctx);
    } finally {
      stop();
    }
    expect(heard.filter((c) => c.what.startsWith('Old runs')).map((c) => [c.topic, c.what, c.actor])).toEqual([
      ['runs', 'Old runs trimmed: 2 runs removed, 2 items removed in all', ''],
    ]);
    expect(heard.filter((c) => c.what.startsWith('A verification'))).toHaveLength(2);
  });
});
