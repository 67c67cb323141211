import { describe, expect, test } from 'vitest';
import { storesOnBothEngines, type FreshStore } from '../db/engines.test-support';
import { postgresNonceStore, sqliteNonceStore } from './nonce-repository';

/*
 * The nonce store's behaviour, the same on both engines: a (key, nonce) pair passes once, is kept
 * until it expires, marks its key used, and the window widens once. Then what only PostgreSQL
 * offers: two services (two stores, each its own pool) over one database, where a pair accepted by
 * one is refused by the other, however the requests interleave.
 */

const KEY = 'a'.repeat(64);
const OTHER_KEY = 'b'.repeat(64);

const stores = storesOnBothEngines();

/** A fresh store with KEY and OTHER_KEY registered: its nonces, a second service's, and a key's last use. */
async function open(fresh: () => Promise<FreshStore>) {
  const store = await fresh();
  if (store.engine === 'sqlite') {
    const { db } = store;
    db.$client
      .prepare('INSERT INTO api_keys (api_key, label, all_wallets, created_at) VALUES (?, ?, 1, 0), (?, ?, 1, 0)')
      .run(KEY, 'k', OTHER_KEY, 'k');
    return {
      store: sqliteNonceStore(db),
      second: async () => sqliteNonceStore(await store.another()),
      lastUsed: async (key: string) =>
        (db.$client.prepare('SELECT last_used_at FROM api_keys WHERE api_key = ?').pluck().get(key) as number | null) ?? null,
    };
  }
  const { db } = store;
  await db.$client.query('INSERT INTO api_keys (api_key, label, all_wallets, created_at) VALUES ($1, $3, true, 0), ($2, $3, true, 0)', [
    KEY,
    OTHER_KEY,
    'k',
  ]);
  return {
    store: postgresNonceStore(db),
    second: async () => postgresNonceStore(await store.another()),
    lastUsed: async (key: string) =>
      ((await db.$client.query<{ last_used_at: number | null }>('SELECT last_used_at FROM api_keys WHERE api_key = $1', [key])).rows[0]
        ?.last_used_at as number | null) ?? null,
  };
}

describe.each(stores)('the nonce store on %s', (_name, fresh) => {
  test('a pair passes once; the same nonce passes for another key; the key is marked used when one passes', async () => {
    const { store, lastUsed } = await open(fresh);
    expect(await store.used(KEY, 'n1')).toBe(false);
    expect(await store.consume(KEY, 'n1', 10_000, 1_000)).toBe(true);
    expect(await lastUsed(KEY)).toBe(1_000);
    expect(await store.used(KEY, 'n1')).toBe(true);
    expect(await store.consume(KEY, 'n1', 10_000, 2_000)).toBe(false);
    // A replay leaves the key's last use as it was.
    expect(await lastUsed(KEY)).toBe(1_000);
    expect(await store.consume(OTHER_KEY, 'n1', 10_000, 3_000)).toBe(true);
    expect(await lastUsed(OTHER_KEY)).toBe(3_000);
  });

  test('a pair is kept until it expires, then forgotten', async () => {
    const { store } = await open(fresh);
    await store.consume(KEY, 'early', 5_000, 1_000);
    await store.consume(KEY, 'late', 9_000, 1_000);
    expect(await store.prune(4_999)).toBe(0);
    expect(await store.prune(6_000)).toBe(1);
    expect(await store.used(KEY, 'early')).toBe(false);
    expect(await store.used(KEY, 'late')).toBe(true);
  });

  test('a wider window keeps the recorded pairs as much longer, once, and refuses what may have been forgotten', async () => {
    const { store, second } = await open(fresh);
    expect(await store.windowRecord()).toEqual({ widestMs: undefined, recordsFromMs: -Infinity });
    await store.consume(KEY, 'kept', 100_000, 40_000);
    await store.widenWindow(60_000, 60_000, -Infinity, 40_000);
    expect(await store.windowRecord()).toEqual({ widestMs: 60_000, recordsFromMs: -Infinity });

    // Two services started with a window of 5 minutes, at once: the pair is kept 4 minutes longer, not 8.
    const other = await second();
    await Promise.all([store.widenWindow(60_000, 300_000, 50_000, 50_000), other.widenWindow(60_000, 300_000, 50_000, 50_000)]);
    expect(await store.windowRecord()).toEqual({ widestMs: 300_000, recordsFromMs: 50_000 });
    expect(await store.prune(100_000 + 240_000 - 1)).toBe(0);
    expect(await store.prune(100_000 + 240_000 + 1)).toBe(1);

    // A narrower window later changes nothing.
    await store.widenWindow(60_000, 120_000, 45_000, 60_000);
    expect(await store.windowRecord()).toEqual({ widestMs: 300_000, recordsFromMs: 50_000 });
  });
});

describe('two services over one PostgreSQL store', () => {
  test('a nonce used through one is refused through the other (2004), and the other way round', async () => {
    const { store: first, second } = await open(stores[1]![1]);
    const other = await second();
    expect(await first.consume(KEY, 'shared', 10_000, 1_000)).toBe(true);
    expect(await other.used(KEY, 'shared')).toBe(true);
    expect(await other.consume(KEY, 'shared', 10_000, 1_001)).toBe(false);
    expect(await other.consume(KEY, 'next', 10_000, 1_002)).toBe(true);
    expect(await first.consume(KEY, 'next', 10_000, 1_003)).toBe(false);
  });

  test('of many requests with one nonce sent to both at once, exactly one passes', async () => {
    const { store: first, second } = await open(stores[1]![1]);
    const other = await second();
    for (let round = 0; round < 20; round++) {
      const nonce = `race-${round}`;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_v, i) => (i % 2 ? first : other).consume(KEY, nonce, 10_000, 1_000 + i)),
      );
      expect(answers.filter(Boolean), nonce).toHaveLength(1);
    }
  });
});
