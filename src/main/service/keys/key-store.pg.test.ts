import { describe, expect, test } from 'vitest';
import { storesOnBothEngines, type FreshStore } from '../db/engines.test-support';
import { postgresKeyStore, sqliteKeyStore, type KeyStore } from './key-repository';

/*
 * The key store's behaviour, the same on both engines: a key registered reads back with its
 * wallets, keys list newest first, a label or the wallets change in one commit, a revocation keeps
 * its first time. Then over one PostgreSQL database, two services: what one registers, changes or
 * revokes, the other reads at once.
 */

const stores = storesOnBothEngines();

async function open(fresh: () => Promise<FreshStore>): Promise<{ store: KeyStore; second: () => Promise<KeyStore> }> {
  const store = await fresh();
  if (store.engine === 'sqlite') return { store: sqliteKeyStore(store.db), second: async () => sqliteKeyStore(await store.another()) };
  return { store: postgresKeyStore(store.db), second: async () => postgresKeyStore(await store.another()) };
}

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);
const W1 = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';

describe.each(stores)('the key store on %s', (_name, fresh) => {
  test('a key reads back as registered, with its wallets in order; all wallets is null; unknown keys read as nothing', async () => {
    const { store } = await open(fresh);
    expect(await store.insert({ api_key: KEY_A, label: 'books robot', wallets: [W2, W1], created_at: 1_000 })).toEqual({
      api_key: KEY_A,
      label: 'books robot',
      wallets: [W1, W2],
      created_at: 1_000,
      revoked_at: null,
      last_used_at: null,
    });
    await store.insert({ api_key: KEY_B, label: 'all of them', wallets: null, created_at: 2_000 });
    expect(await store.get(KEY_B)).toMatchObject({ wallets: null });
    await store.insert({ api_key: 'c'.repeat(64), label: 'none', wallets: [], created_at: 2_000 });
    expect(await store.get('c'.repeat(64))).toMatchObject({ wallets: [] });
    expect(await store.get('d'.repeat(64))).toBeUndefined();
    // Newest first; the same time ordered by key.
    expect((await store.list()).map((k) => k.api_key)).toEqual([KEY_B, 'c'.repeat(64), KEY_A]);
  });

  test('a label and the wallets change; a revocation keeps its first time', async () => {
    const { store } = await open(fresh);
    await store.insert({ api_key: KEY_A, label: 'robot', wallets: null, created_at: 1_000 });
    expect(await store.update(KEY_A, { label: 'books robot' })).toMatchObject({ label: 'books robot', wallets: null });
    expect(await store.update(KEY_A, { wallets: [W1] })).toMatchObject({ label: 'books robot', wallets: [W1] });
    expect(await store.update(KEY_A, { wallets: null })).toMatchObject({ wallets: null });
    expect(await store.revoke(KEY_A, 5_000)).toMatchObject({ revoked_at: 5_000 });
    expect(await store.revoke(KEY_A, 6_000)).toMatchObject({ revoked_at: 5_000 });
  });

  test('what one service registers, changes or revokes, another on the same store reads at once', async () => {
    const { store, second } = await open(fresh);
    const other = await second();
    await store.insert({ api_key: KEY_A, label: 'robot', wallets: [W1], created_at: 1_000 });
    expect(await other.get(KEY_A)).toEqual(await store.get(KEY_A));
    await other.update(KEY_A, { label: 'renamed', wallets: [W1, W2] });
    expect(await store.get(KEY_A)).toMatchObject({ label: 'renamed', wallets: [W1, W2] });
    await other.revoke(KEY_A, 9_000);
    expect(await store.get(KEY_A)).toMatchObject({ revoked_at: 9_000 });
  });
});
