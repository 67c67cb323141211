import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { storesOnBothEngines, type FreshStore } from '../db/engines.test-support';
import { defaultResourcesDir } from '../paths';
import type { CatalogueSeed } from './repository';
import { postgresCatalogueStore, sqliteCatalogueStore, type CatalogueStore } from './store-repository';

/*
 * The catalogue store's behaviour, the same on both engines: the shipped catalogue file seeds a
 * fresh store once per file, a newer file refreshes the rows the user never changed and keeps the
 * others; pages, filters and order as the /nps routes answer them; a chain added with its native
 * coin, a token, a contract ignored and no longer, each refused (writing nothing) when its id or
 * contract is taken; a second connection reads the same at once. Then, on PostgreSQL, services
 * over one database at once: of four starting together on a fresh store exactly one seeds, and of
 * ten adding one token exactly one adds it.
 */

const stores = storesOnBothEngines();

async function open(fresh: () => Promise<FreshStore>): Promise<{ store: CatalogueStore; second: () => Promise<CatalogueStore> }> {
  const store = await fresh();
  if (store.engine === 'sqlite') {
    return { store: sqliteCatalogueStore(store.db), second: async () => sqliteCatalogueStore(await store.another()) };
  }
  return { store: postgresCatalogueStore(store.db), second: async () => postgresCatalogueStore(await store.another()) };
}

/** The catalogue file the app ships, as a seed reads it. */
const shipped = (): CatalogueSeed => JSON.parse(readFileSync(join(defaultResourcesDir(), 'catalogue.json'), 'utf8')) as CatalogueSeed;
const FILE = shipped();
const T0 = 1_700_000_000_000;
const PEPE = '0x6982508145454Ce325dDbE47a25d4ec3d2311933';

/** A fresh store seeded from the shipped file. */
async function seeded(fresh: () => Promise<FreshStore>) {
  const opened = await open(fresh);
  expect(await opened.store.seed('hash-1', shipped, T0)).toBe(true);
  return opened;
}

const pepe = {
  chain_id: 'ETH',
  token_id: 'ETH_PEPE',
  symbol: 'PEPE',
  contract_address: PEPE,
  decimal: 18,
  name: 'Pepe',
  dust_threshold: '0',
};

describe.each(stores)('the catalogue store on %s', (_name, fresh) => {
  test('a fresh store is seeded from the file once; the same file again writes nothing', async () => {
    const { store } = await open(fresh);
    expect(await store.seededHash()).toBeUndefined();
    expect(await store.seed('hash-1', shipped, T0)).toBe(true);
    expect(await store.seededHash()).toBe('hash-1');
    let read = 0;
    expect(await store.seed('hash-1', () => (read++, shipped()), T0 + 1)).toBe(false);
    // The rows are not even read when the file is the one seeded.
    expect(read).toBe(0);
    const chains = await store.chains({ page: 1, page_size: 100 });
    const tokens = await store.tokens({ page: 1, page_size: 100 });
    expect(chains.total).toBe(FILE.chains.length);
    expect(tokens.total).toBe(FILE.tokens.length);
    // As the file has them, under the contract's names only (network_id is not served).
    const { network_id: _, ...eth } = FILE.chains.find((c) => c.chain_id === 'ETH')!;
    expect(chains.chains.find((c) => c.chain_id === 'ETH')).toEqual(eth);
    expect(tokens.tokens.find((t) => t.token_id === 'ETH_USDT')).toEqual(FILE.tokens.find((t) => t.token_id === 'ETH_USDT'));
  });

  test('pages, filters and order are the /nps routes’: by chain_id, then token_id; totals of the filter', async () => {
    const { store } = await seeded(fresh);
    const ids = FILE.chains.map((c) => c.chain_id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const first = await store.chains({ page: 1, page_size: 3 });
    expect(first).toMatchObject({ total: ids.length, page: 1, page_size: 3 });
    expect(first.chains.map((c) => c.chain_id)).toEqual(ids.slice(0, 3));
    expect((await store.chains({ page: 2, page_size: 3 })).chains.map((c) => c.chain_id)).toEqual(ids.slice(3, 6));
    const evm = await store.chains({ page: 1, page_size: 100, chain_identifier: 'ETH' });
    expect(evm.total).toBe(FILE.chains.filter((c) => c.chain_identifier === 'ETH').length);
    expect((await store.chains({ page: 1, page_size: 20, chain_id: 'NOPE' })).total).toBe(0);
    const eth = await store.tokens({ page: 1, page_size: 100, chain_id: 'ETH' });
    const ethIds = FILE.tokens
      .filter((t) => t.chain_id === 'ETH')
      .map((t) => t.token_id)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(eth.tokens.map((t) => t.token_id)).toEqual(ethIds);
    expect((await store.tokens({ page: 1, page_size: 20, token_id: 'TRON_USDT' })).tokens).toHaveLength(1);
  });

  test("a newer file refreshes the rows the user never changed, adds its new ones and keeps the user's", async () => {
    const { store } = await seeded(fresh);
    expect(await store.updateChain('ETH', { confirming_threshold: 64 }, T0 + 1)).toMatchObject({
      chain_id: 'ETH',
      confirming_threshold: 64,
    });
    expect(await store.updateToken('ETH_USDT', { dust_threshold: '0.5' }, T0 + 1)).toMatchObject({ dust_threshold: '0.5' });
    const newer = shipped();
    for (const c of newer.chains) c.confirming_threshold = 99;
    for (const t of newer.tokens) t.dust_threshold = '0.000000000000000001';
    newer.tokens.push({ ...newer.tokens.find((t) => t.token_id === 'ETH_USDT')!, token_id: 'ETH_DAI', symbol: 'DAI', name: 'Dai' });
    expect(await store.seed('hash-2', () => newer, T0 + 2)).toBe(true);
    expect(await store.chain('ETH')).toMatchObject({ confirming_threshold: 64 });
    expect(await store.chain('TRON')).toMatchObject({ confirming_threshold: 99 });
    expect(await store.token('ETH_USDT')).toMatchObject({ dust_threshold: '0.5' });
    expect(await store.token('TRON_USDT')).toMatchObject({ dust_threshold: '0.000000000000000001' });
    expect(await store.token('ETH_DAI')).toMatchObject({ symbol: 'DAI', is_native: false });
    expect(await store.seededHash()).toBe('hash-2');
  });

  test('a chain is added with its native coin; its id taken by a chain or a token is refused, writing nothing', async () => {
    const { store } = await seeded(fresh);
    const add = {
      chain_id: 'MANTLE',
      chain_identifier: 'ETH',
      name: 'Mantle',
      native_symbol: 'MNT',
      native_decimal: 18,
      confirming_threshold: 10,
      explorer_tx_url: 'https://mantlescan.xyz/tx/{hash}',
      explorer_address_url: 'https://mantlescan.xyz/address/{address}',
      is_testnet: false,
      network_id: '5000',
    };
    expect(await store.addChain(add, T0)).toEqual({
      chain_id: 'MANTLE',
      chain_identifier: 'ETH',
      native_token_id: 'MANTLE',
      confirming_threshold: 10,
      explorer_tx_url: 'https://mantlescan.xyz/tx/{hash}',
      explorer_address_url: 'https://mantlescan.xyz/address/{address}',
      enabled: true,
      name: 'Mantle',
      is_testnet: false,
      explorer_url: 'https://mantlescan.xyz',
    });
    expect(await store.token('MANTLE')).toMatchObject({ symbol: 'MNT', decimal: 18, is_native: true, contract_address: '' });
    expect(await store.addChain({ ...add, name: 'Again' }, T0)).toEqual({ taken: 'chain' });
    expect(await store.addChain({ ...add, chain_id: 'ETH_USDT' }, T0)).toEqual({ taken: 'token' });
    expect(await store.chain('ETH_USDT')).toBeUndefined();
    expect((await store.chain('MANTLE'))?.name).toBe('Mantle');
  });

  test('a token is added and found by its contract in any case; its id or contract taken is refused, writing nothing', async () => {
    const { store } = await seeded(fresh);
    const ignored = await store.ignore({ chain_id: 'ETH', contract_address: PEPE.toLowerCase(), symbol: 'PEPE', name: '' }, PEPE, T0);
    expect(ignored).toEqual({ chain_id: 'ETH', contract_address: PEPE.toLowerCase(), symbol: 'PEPE', name: '', ignored_at: T0 });
    const token = await store.addToken(pepe, PEPE.toLowerCase(), T0 + 1);
    expect(token).toEqual({ ...pepe, can_deposit: true, can_withdraw: true, is_native: false });
    // Added, its contract is no longer ignored: its rows are imported from now on.
    expect(await store.ignored('ETH')).toEqual([]);
    expect(await store.tokenByContract('ETH', PEPE.toUpperCase().replace('0X', '0x'))).toEqual(token);
    expect(await store.tokenByContract('BSC_BNB', PEPE)).toBeUndefined();
    expect(await store.addToken({ ...pepe, contract_address: '0x' + '1'.repeat(40) }, '0x' + '1'.repeat(40), T0)).toEqual({ taken: token });
    expect(await store.addToken({ ...pepe, token_id: 'ETH_PEPE2', contract_address: PEPE.toLowerCase() }, PEPE.toLowerCase(), T0)).toEqual({
      taken: token,
    });
    expect(await store.token('ETH_PEPE2')).toBeUndefined();
    // A contract a token has is not ignored.
    expect(await store.ignore({ chain_id: 'ETH', contract_address: PEPE.toLowerCase(), symbol: '', name: '' }, PEPE, T0)).toEqual({
      taken: token,
    });
    expect(await store.ignored()).toEqual([]);
    await store.removeToken('ETH_PEPE');
    expect(await store.token('ETH_PEPE')).toBeUndefined();
    expect(await store.updateToken('ETH_PEPE', { name: 'x' }, T0)).toBeUndefined();
    expect(await store.updateChain('NOPE', { name: 'x' }, T0)).toBeUndefined();
  });

  test('contracts ignored list by chain then contract, keep their first time and their last names; no longer ignored, once', async () => {
    const { store } = await seeded(fresh);
    const spam = (chain_id: string, contract_address: string, symbol: string) => ({ chain_id, contract_address, symbol, name: '' });
    await store.ignore(spam('TRON', 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', 'A'), 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', T0);
    await store.ignore(spam('ETH', '0x' + 'b'.repeat(40), 'B'), '0x' + 'b'.repeat(40), T0 + 1);
    await store.ignore(spam('ETH', '0x' + 'a'.repeat(40), 'C'), '0x' + 'a'.repeat(40), T0 + 2);
    expect(await store.ignore(spam('ETH', '0x' + 'a'.repeat(40), 'C2'), '0x' + 'a'.repeat(40), T0 + 3)).toMatchObject({
      symbol: 'C2',
      ignored_at: T0 + 2,
    });
    expect((await store.ignored()).map((i) => [i.chain_id, i.symbol])).toEqual([
      ['ETH', 'C2'],
      ['ETH', 'B'],
      ['TRON', 'A'],
    ]);
    expect((await store.ignored('TRON')).map((i) => i.symbol)).toEqual(['A']);
    expect(await store.unignore('ETH', '0x' + 'b'.repeat(40))).toMatchObject({ symbol: 'B', ignored_at: T0 + 1 });
    expect(await store.unignore('ETH', '0x' + 'b'.repeat(40))).toBeUndefined();
    expect((await store.ignored('ETH')).map((i) => i.symbol)).toEqual(['C2']);
  });

  test('a second connection reads what the first wrote at once', async () => {
    const { store, second } = await seeded(fresh);
    const other = await second();
    expect(await other.seed('hash-1', shipped, T0)).toBe(false);
    await store.addToken(pepe, PEPE.toLowerCase(), T0);
    await store.updateChain('TRON', { enabled: false }, T0);
    expect(await other.token('ETH_PEPE')).toMatchObject({ symbol: 'PEPE' });
    expect(await other.chain('TRON')).toMatchObject({ enabled: false });
    expect((await other.tokens({ page: 1, page_size: 100 })).total).toBe(FILE.tokens.length + 1);
  });
});

describe('services over one PostgreSQL store at once', () => {
  const postgres = stores.find(([name]) => name === 'PostgreSQL')![1];

  test('of four starting together on a fresh store, exactly one seeds, and the catalogue is the file once (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      const { store, second } = await open(postgres);
      const all = [store, ...(await Promise.all([second(), second(), second()]))];
      const seededBy = await Promise.all(all.map((s) => s.seed(`hash-${round}`, shipped, T0)));
      expect(seededBy.filter(Boolean)).toHaveLength(1);
      expect((await store.chains({ page: 1, page_size: 100 })).total).toBe(FILE.chains.length);
      expect((await store.tokens({ page: 1, page_size: 100 })).total).toBe(FILE.tokens.length);
    }
  }, 60_000);

  test('of ten adding one token (by its id, or its contract in another case) at once, exactly one adds it (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      const { store, second } = await open(postgres);
      await store.seed('hash', shipped, T0);
      const all = [store, ...(await Promise.all(Array.from({ length: 9 }, () => second())))];
      const answers = await Promise.all(
        all.map((s, i) =>
          s.addToken(
            { ...pepe, token_id: i % 2 === 0 ? 'ETH_PEPE' : `ETH_PEPE${i}`, contract_address: i % 3 === 0 ? PEPE : PEPE.toLowerCase() },
            PEPE.toLowerCase(),
            T0,
          ),
        ),
      );
      expect(answers.filter((a) => !('taken' in a))).toHaveLength(1);
      expect((await store.tokens({ page: 1, page_size: 100, chain_id: 'ETH' })).tokens.filter((t) => t.symbol === 'PEPE')).toHaveLength(1);
    }
  }, 60_000);
});
