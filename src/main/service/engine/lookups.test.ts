import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LedgerRecord, RECORD_FIELDS } from '../../../shared/ledger';
import { generateLedger } from '../../../../bench/generate-ledger';
import { tempService } from '../test-support';
import { CHECKPOINT_EVERY_MS, CHECKPOINT_IDLE_MS, RecordLookups, SPLIT_MIN_VALUES, type Found, type Wanted } from './lookups';
import { recordsWhereIn } from '../reconcile/repository';
import { recordsWhereInJsonSql, recordsWhereInSql } from '../db/record-sql';

/*
 * A verification's lookups split between the service's thread and the lookup thread must find
 * exactly what the service's thread alone finds, see every commit made before they start, and
 * keep answering when the thread is gone.
 */

const svc = tempService();
let wanted: Wanted;

const byId = (list: LedgerRecord[]) => [...list].sort((a, b) => a.transaction_id.localeCompare(b.transaction_id));
const alone = (w: Wanted): Found => ({
  transaction_id: recordsWhereIn(svc.ctx.db, 'transaction_id', w.transaction_id),
  hash: recordsWhereIn(svc.ctx.db, 'hash', w.hash),
  request_id: recordsWhereIn(svc.ctx.db, 'request_id', w.request_id),
});
const expectSame = (a: Found, b: Found) => {
  for (const column of ['transaction_id', 'hash', 'request_id'] as const) expect(byId(a[column])).toEqual(byId(b[column]));
};

beforeAll(async () => {
  const file = join(svc.dataDir, 'ledger.csv');
  await generateLedger(file, 2000, { seed: 5, wallets: 3 });
  const report = await svc.invoke('ledger-import', { source: { path: file } }, { actor: 'cli' });
  expect(report.added).toBe(2000);
  const rows = svc.ctx.db.$client.prepare('SELECT transaction_id, hash, request_id FROM transactions ORDER BY rowid LIMIT 900').all() as {
    transaction_id: string;
    hash: string | null;
    request_id: string | null;
  }[];
  const missing = (i: number) => `ffffffff-0000-4000-8000-${String(i).padStart(12, '0')}`;
  wanted = {
    transaction_id: [...rows.slice(0, 300).map((r) => r.transaction_id), missing(1), missing(2)],
    hash: rows.slice(300, 600).flatMap((r) => (r.hash === null ? [] : [r.hash])),
    request_id: [...rows.slice(600).flatMap((r) => (r.request_id === null ? [] : [r.request_id])), 'no-such-request'],
  };
});
afterAll(() => svc.dispose());

test("closing the service ends the thread's connection first: the store is left whole, without a log beside it", async () => {
  const other = tempService();
  try {
    expect(await other.ctx.engine.warm()).toBe(true);
    await other.invoke('keys-create', { label: 'k', wallets: null }, { actor: 'cli' });
    const file = join(other.dataDir, 'nps.sqlite');
    expect(existsSync(`${file}-wal`)).toBe(true);
    other.close();
    // The last connection to close folds the log into the database and removes it.
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(existsSync(`${file}-shm`)).toBe(false);
  } finally {
    other.dispose();
  }
});

describe('lookups by hash through its short key', () => {
  test('each identifier is looked up through its index, never by reading the whole ledger, on either thread', () => {
    const db = svc.ctx.db.$client;
    for (const column of ['transaction_id', 'hash', 'request_id'] as const) {
      for (const sql of [recordsWhereInSql(column), recordsWhereInJsonSql(column)]) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('[]') as { detail: string }[]).map((r) => r.detail);
        expect(
          plan.some((d) => d.startsWith(`SEARCH r USING INDEX transactions_${column === 'transaction_id' ? 'id' : column.split('_')[0]}`)),
        ).toBe(true);
        // r: ledger_rows, under the view `transactions`.
        expect(plan.filter((d) => /^SCAN (t|r)\b/.test(d))).toEqual([]);
      }
    }
  });

  test('a hash that shares its last 16 characters with a recorded one finds nothing; the recorded one finds its records', () => {
    const hash = wanted.hash[0]!;
    const twin = `${hash.slice(0, -20)}ffff${hash.slice(-16)}`;
    expect(twin).not.toBe(hash);
    expect(twin.slice(-16)).toBe(hash.slice(-16));
    expect(recordsWhereIn(svc.ctx.db, 'hash', [twin])).toEqual([]);
    expect(recordsWhereIn(svc.ctx.db, 'hash', [twin, hash]).map((r) => r.hash)).toEqual([hash]);
  });
});

describe('record lookups on two threads', () => {
  test('a large batch split between the threads finds exactly what one thread finds', async () => {
    expect(await svc.ctx.engine.warm()).toBe(true);
    expect(wanted.transaction_id.length + wanted.hash.length + wanted.request_id.length).toBeGreaterThan(SPLIT_MIN_VALUES);
    const found = await svc.ctx.engine.findRecords(wanted);
    expect(found.transaction_id).toHaveLength(300);
    expect(found.hash.length).toBeGreaterThan(250);
    expectSame(found, alone(wanted));
  });

  test('the lookup thread sees what the service committed just before', async () => {
    const id = wanted.transaction_id[250]!;
    svc.ctx.db.$client.prepare("UPDATE transactions SET amount = '123.456' WHERE transaction_id = ?").run(id);
    const found = await svc.ctx.engine.findRecords(wanted);
    // The second half of the list is the thread's.
    expect(found.transaction_id.find((r) => r.transaction_id === id)?.amount).toBe('123.456');
    expectSame(found, alone(wanted));
  });

  test("after the service's writes, the thread copies the write-ahead log into the database; the service's thread does not", async () => {
    const file = join(svc.dataDir, 'nps.sqlite');
    expect(await svc.ctx.engine.warm()).toBe(true);
    expect(svc.ctx.db.$client.pragma('wal_autocheckpoint', { simple: true })).toBe(40_000);
    // Let an earlier checkpoint's spacing pass, then write a verification run of 900 claims.
    await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_EVERY_MS));
    const before = statSync(file).size;
    const txs = wanted.transaction_id.slice(0, 300).map((transaction_id) => ({ transaction_id, amount: '1' }));
    await svc.invoke('reconcile-verify-txs', { txs, shape: 'A' }, { actor: 'cli' });
    // Its pages are in the log only until the thread's checkpoint lands them in the database.
    for (let i = 0; i < 100 && statSync(file).size === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(statSync(file).size).toBeGreaterThan(before);
  });

  test("within a stream of the service's writes, the thread checkpoints only once the log passes its bound; once they stop, at once", async () => {
    const db = svc.ctx.db.$client;
    const file = join(svc.dataDir, 'nps.sqlite');
    db.exec('CREATE TABLE IF NOT EXISTS checkpoint_scratch (x BLOB)');
    // A bound of 64 pages (the service's own checkpoint is far off), nothing pending from earlier tests.
    const lookups = new RecordLookups(svc.ctx.db, 64);
    try {
      expect(await lookups.ready()).toBe(true);
      db.pragma('wal_checkpoint(TRUNCATE)');
      const write = (rows: number) => {
        db.prepare(
          'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO checkpoint_scratch SELECT randomblob(1000) FROM n',
        ).run(rows);
        lookups.afterWrite();
      };
      const settle = async () => {
        for (let i = 0; i < 200 && lookups.checkpoints === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      };
      let before = 0;
      // Small writes closer together than the idle wait, for longer than a second: none (requests
      // under way never meet a checkpoint they could wait behind).
      const size = statSync(file).size;
      for (let i = 0; i < 12; i++) {
        write(2);
        await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_IDLE_MS / 3));
      }
      expect(lookups.checkpoints).toBe(0);
      // Past the bound (about 100 pages of 4 KiB), one at once, while writes still go on.
      write(400);
      expect(lookups.checkpoints).toBe(0);
      await settle();
      expect(lookups.checkpoints).toBe(1);
      expect(statSync(file).size).toBeGreaterThan(size);
      // A last small write, then quiet: it lands in the database too.
      before = 1;
      write(2);
      await settle();
      expect(lookups.checkpoints).toBe(2);
      expect(db.pragma('wal_checkpoint(PASSIVE)')).toEqual([{ busy: 0, log: expect.any(Number), checkpointed: expect.any(Number) }]);
    } finally {
      lookups.close();
      db.exec('DROP TABLE checkpoint_scratch');
    }
  });

  test('under a steady stream of writes the log still starts over: its file stays a fraction of what was written', async () => {
    const db = svc.ctx.db.$client;
    const file = join(svc.dataDir, 'nps.sqlite');
    db.exec('CREATE TABLE IF NOT EXISTS checkpoint_scratch (x BLOB)');
    const lookups = new RecordLookups(svc.ctx.db, 64);
    try {
      expect(await lookups.ready()).toBe(true);
      db.pragma('wal_checkpoint(TRUNCATE)');
      const insert = db.prepare(
        'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO checkpoint_scratch SELECT randomblob(1000) FROM n',
      );
      // About 1,200 pages of 4 KiB in 100 transactions 10 ms apart (as verifications one after
      // another), never idle for long.
      let largest = 0;
      for (let i = 0; i < 100; i++) {
        insert.run(36);
        lookups.afterWrite();
        largest = Math.max(largest, statSync(`${file}-wal`).size);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(lookups.checkpoints).toBeGreaterThan(1);
      expect(largest).toBeLessThan(400 * 4096);
    } finally {
      lookups.close();
      db.exec('DROP TABLE checkpoint_scratch');
    }
  });

  test('a batch is looked up on the service thread alone; shared with the lookup thread only while other verifications wait', async () => {
    const lookups = new RecordLookups(svc.ctx.db);
    try {
      expect(await lookups.ready()).toBe(true);
      expectSame(await lookups.find(wanted), alone(wanted));
      expect(lookups.split).toBe(0);
      expectSame(await lookups.find(wanted, true), alone(wanted));
      expect(lookups.split).toBeGreaterThan(0);
      expect(lookups.split).toBeLessThan(wanted.transaction_id.length + wanted.hash.length + wanted.request_id.length);
    } finally {
      lookups.close();
    }
    // Through the engine: a verification waiting for its turn makes the batch shared, with the same records.
    const waiting = svc.ctx.engine.nextTurn();
    const found = svc.ctx.engine.findRecords(wanted);
    await waiting;
    expectSame(await found, alone(wanted));
  });

  test('with the thread closed (or never started, for a store in memory), every lookup runs here with the same results', async () => {
    const lookups = new RecordLookups(svc.ctx.db);
    expect(await lookups.ready()).toBe(true);
    lookups.close();
    expect(await lookups.ready()).toBe(false);
    // Its checkpoints stop with it: the service's connection does them again.
    expect(svc.ctx.db.$client.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expectSame(await lookups.find(wanted), alone(wanted));
  });
});

describe('records as the contract names them, from either thread', () => {
  test('every field under its contract name in its order, "" for text not recorded, odd text and times kept, the same from both threads', async () => {
    // Values the generated ledger does not hold: text to escape, moments on millisecond edges, nothing recorded.
    const odd = [
      ['to "quoted" \\ back', 'req\ttab \u00e9 \u4e2d \u{1f600}', 946684800000, 946684800999, null],
      ['0xAbC', 'line\nbreak \u001e', 7258118399999, null, 1700000000001],
      [null, null, 1700000000000, 1700000000500, 1700000000999],
    ] as const;
    const ids = wanted.transaction_id.slice(0, odd.length);
    const update = svc.ctx.db.$client.prepare(
      'UPDATE transactions SET "to" = ?, request_id = ?, created_at = ?, confirmed_at = ?, completed_at = ? WHERE transaction_id = ?',
    );
    odd.forEach((values, i) => update.run(...values, ids[i]));
    const here = byId(recordsWhereIn(svc.ctx.db, 'transaction_id', ids));
    expect(here.map((r) => Object.keys(r))).toEqual(ids.map(() => [...RECORD_FIELDS, 'import_id', 'updated_at', 'movement']));
    for (const r of here) LedgerRecord.parse(r);
    const third = here.find((r) => r.transaction_id === ids[2])!;
    expect([third.to, third.request_id, third.completed_at]).toEqual(['', '', 1700000000999]);
    expect(here.find((r) => r.transaction_id === ids[0])!.request_id).toBe('req\ttab \u00e9 \u4e2d \u{1f600}');

    expect(await svc.ctx.engine.warm()).toBe(true);
    // The end of each list is the thread's part.
    const last = { ...wanted, transaction_id: [...wanted.transaction_id.filter((id) => !ids.includes(id)), ...ids] };
    const split = await svc.ctx.engine.findRecords(last);
    expect(byId(split.transaction_id.filter((r) => ids.includes(r.transaction_id)))).toEqual(here);
    expectSame(split, alone(last));
  });
});

test.runIf(process.platform === 'linux')(
  "a lookup thread lost while the service runs leaves SQLite's locks on the log's index in place (its descriptor is let go only once the store has closed)",
  async () => {
    const shm = `${join(svc.dataDir, 'nps.sqlite')}-shm`;
    // This process's POSIX locks on the index file, as the system lists them.
    const locksHeld = () => {
      const ino = statSync(shm).ino;
      return readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .filter((l) => new RegExp(`^\\d+:\\s+POSIX\\s+ADVISORY\\s+\\w+\\s+${process.pid}\\s+[0-9a-f]+:[0-9a-f]+:${ino}\\s`).test(l)).length;
    };
    const lookups = new RecordLookups(svc.ctx.db);
    try {
      expect(await lookups.ready()).toBe(true);
      expect(locksHeld()).toBeGreaterThan(0);
      // The thread ends under the service (a crash of its own): lookups go on here.
      const { worker } = (lookups as unknown as { spawned: { worker: Worker } }).spawned;
      await new Promise((resolve) => {
        worker.once('exit', resolve);
        void worker.terminate();
      });
      lookups.afterWrite();
      expect(locksHeld()).toBeGreaterThan(0);
    } finally {
      lookups.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    // The service's connection is still open: its locks stay.
    expect(locksHeld()).toBeGreaterThan(0);
  },
);
