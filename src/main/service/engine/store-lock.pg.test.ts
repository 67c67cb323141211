import { describe, expect, test } from 'vitest';
import { ADVISORY_LOCKS } from '../db/advisory-locks';
import { storesOnBothEngines } from '../db/engines.test-support';
import type { PgDb } from '../db/postgres';
import { postgresImportLock } from './store-lock';

/*
 * One import at a time among every service on one PostgreSQL store: the lock two services (two
 * pools over one database) contend for, and what happens when its holder dies.
 */

const stores = storesOnBothEngines();

async function twoServices(): Promise<[PgDb, PgDb]> {
  const store = await stores[1]![1]();
  if (store.engine !== 'postgres') throw new Error('a PostgreSQL store was expected');
  return [store.db, await store.another()];
}

describe('the import lock over one PostgreSQL store', () => {
  test('held by one service at a time: the other is refused at once, or waits its turn within its bound', async () => {
    const [a, b] = await twoServices();
    const [lockA, lockB] = [postgresImportLock(a.$client), postgresImportLock(b.$client)];
    const held = await lockA.tryAcquire();
    expect(held).toBeDefined();
    expect(await lockB.tryAcquire()).toBeUndefined();
    expect(await lockA.tryAcquire()).toBeUndefined();

    const started = Date.now();
    expect(await lockB.acquire(300)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);

    const waiting = lockB.acquire(5_000);
    await new Promise((r) => setTimeout(r, 100));
    await held!.release();
    const next = await waiting;
    expect(next).toBeDefined();
    expect(await lockA.tryAcquire()).toBeUndefined();
    await next!.release();
    const again = await lockA.tryAcquire();
    expect(again).toBeDefined();
    await again!.release();
  });

  test('a service that dies holding it (its connection ended by the server) frees it for the other, and is told it lost it', async () => {
    const [a, b] = await twoServices();
    const held = await postgresImportLock(a.$client).tryAcquire();
    expect(held).toBeDefined();
    expect(await postgresImportLock(b.$client).tryAcquire()).toBeUndefined();

    // What kill -9 of the holder does to its session: the server ends it.
    await b.$client.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = $1 AND pid <> pg_backend_pid()`,
      [ADVISORY_LOCKS.import],
    );
    const lost = await Promise.race([held!.lost, new Promise<undefined>((r) => setTimeout(() => r(undefined), 5_000))]);
    expect(lost).toBeInstanceOf(Error);

    const taken = await postgresImportLock(b.$client).acquire(2_000);
    expect(taken).toBeDefined();
    await taken!.release();
    await held!.release();
  });
});
