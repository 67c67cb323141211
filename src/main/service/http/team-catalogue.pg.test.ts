import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { StoreChange } from '../../../shared/changes';
import { postgresCatalogueStore } from '../catalogue/store-repository';
import { followChanges } from '../changes';
import { openPostgres, type PgDb } from '../db/postgres';
import { postgresStoreChanges, type StoreChanges } from '../engine/index';
import { defaultResourcesDir } from '../paths';
import { tempService } from '../test-support';
import type { buildServer } from './server';
import { twoServicesOverPostgres } from './team.test-support';

/*
 * Two services, each with its own data folder, whose catalogue is in one PostgreSQL store and
 * whose word of a change goes through it (LISTEN/NOTIFY), as a local tool and a person use them:
 * a token added, a chain edited or added, a contract ignored through one service's window calls is
 * answered by the other's /nps routes and window calls within a second, though the other kept its
 * earlier /nps answers (the catalogue is what local tools read most); a service whose listening
 * connection broke drops its kept answers, since it may have missed a word; and two services
 * starting at once on a fresh store seed it once.
 */

let clock = Date.UTC(2026, 10, 27, 12);
const { pools, services, apps, createDatabase } = twoServicesOverPostgres(
  async (pool) => ({ catalogue: postgresCatalogueStore(pool), changes: await postgresStoreChanges(pool.$client) }),
  () => clock,
);

const ui = { actor: 'ui' as const, window: 'desktop' };
const PEPE = '0x6982508145454Ce325dDbE47a25d4ec3d2311933';
const SPAM = '0x' + '5'.repeat(40);
const FILE = JSON.parse(readFileSync(join(defaultResourcesDir(), 'catalogue.json'), 'utf8')) as { chains: unknown[]; tokens: unknown[] };

type App = ReturnType<typeof buildServer>;
const get = async (app: App, url: string) => (await app.inject({ method: 'GET', url, headers: { host: '127.0.0.1' } })).json();

/** The answer to `url` from `app` once `ok` holds of it, and how long that took; the last answer if it does not within a second. */
async function within1s(app: App, url: string, ok: (body: { status: number; data: never }) => boolean) {
  const start = performance.now();
  let body = await get(app, url);
  // Bounded: 100 tries 10 ms apart.
  for (let i = 0; i < 100 && !ok(body); i++) {
    await new Promise((r) => setTimeout(r, 10));
    body = await get(app, url);
  }
  return { body, ms: performance.now() - start };
}

describe('two services over one PostgreSQL catalogue', () => {
  test("a token added, a chain edited and a contract ignored through one's window are answered by the other's /nps and window within a second", async () => {
    const [a, b] = apps as [App, App];
    const [first, second] = services as [ReturnType<typeof tempService>, ReturnType<typeof tempService>];
    const heard: StoreChange[] = [];
    const follower = followChanges(second.ctx.changes, {
      instance: second.ctx.instance,
      window: 'desktop',
      send: (c) => (heard.push(c), true),
    });
    try {
      // Both services answer, and keep, their pages before the change.
      for (let i = 0; i < 2; i++) {
        expect((await get(a, '/nps/tokens?token_id=ETH_PEPE')).data).toMatchObject({ total: 0, tokens: [] });
        expect((await get(b, '/nps/tokens?token_id=ETH_PEPE')).data).toMatchObject({ total: 0, tokens: [] });
        expect((await get(b, '/nps/chains?chain_id=TRON')).data.chains[0]).toMatchObject({ confirming_threshold: 19, enabled: true });
      }
      // Not in the second service's own store: it reads the team store's.
      expect(second.ctx.db.$client.prepare("SELECT count(*) FROM tokens WHERE token_id = 'ETH_PEPE'").pluck().get()).toBe(0);

      await first.invoke('catalogue-token-add', { chain_id: 'ETH', symbol: 'PEPE', contract_address: PEPE, decimal: 18 }, ui);
      // The first's own page shows its write at once: it does not wait for its own word to come back.
      expect((await get(a, '/nps/tokens?token_id=ETH_PEPE')).data.total).toBe(1);
      const added = await within1s(b, '/nps/tokens?token_id=ETH_PEPE', (r) => (r.data as { total: number }).total === 1);
      expect(added.body.data.tokens[0]).toMatchObject({ token_id: 'ETH_PEPE', symbol: 'PEPE', contract_address: PEPE, decimal: 18 });
      expect(added.ms).toBeLessThan(1_000);

      clock += 1_000;
      await first.invoke('catalogue-chain-update', { chain_id: 'TRON', confirming_threshold: 25, enabled: false }, ui);
      const edited = await within1s(
        b,
        '/nps/chains?chain_id=TRON',
        (r) => (r.data as { chains: { enabled: boolean }[] }).chains[0]?.enabled === false,
      );
      expect(edited.body.data.chains[0]).toMatchObject({ confirming_threshold: 25, enabled: false });
      expect(edited.ms).toBeLessThan(1_000);

      await first.invoke('catalogue-token-ignore', { chain_id: 'ETH', contract_address: SPAM, symbol: 'SPAM' }, ui);
      expect(await second.invoke('catalogue-ignored-list', {}, ui)).toEqual([
        { chain_id: 'ETH', contract_address: SPAM, symbol: 'SPAM', name: '', ignored_at: clock },
      ]);
      // A contract the other ignored is not ignored again, and the token the other added is not added again.
      await expect(second.invoke('catalogue-token-ignore', { chain_id: 'ETH', contract_address: PEPE }, ui)).rejects.toThrow(
        /it is the catalogue's token ETH_PEPE on ETH/,
      );
      await expect(
        second.invoke('catalogue-token-add', { chain_id: 'ETH', symbol: 'PEPE2', contract_address: PEPE.toLowerCase(), decimal: 18 }, ui),
      ).rejects.toThrow('contract_address: ETH already has this contract as ETH_PEPE');

      // A chain added through one is known to the other's address check.
      expect(
        (
          await b.inject({
            method: 'POST',
            url: '/nps/address/verify',
            headers: { host: '127.0.0.1' },
            payload: { address: PEPE, chain_id: 'MANTLE' },
          })
        ).json().status,
      ).toBe(3001);
      await first.invoke(
        'catalogue-chain-add',
        { chain_id: 'MANTLE', chain_identifier: 'ETH', name: 'Mantle', native_symbol: 'MNT', native_decimal: 18 },
        ui,
      );
      const verified = await b.inject({
        method: 'POST',
        url: '/nps/address/verify',
        headers: { host: '127.0.0.1' },
        payload: { address: PEPE, chain_id: 'MANTLE' },
      });
      expect(verified.json()).toMatchObject({ status: 0, data: { is_valid: true, address: PEPE } });
      expect(
        (await within1s(b, '/nps/chains?chain_id=MANTLE', (r) => (r.data as { total: number }).total === 1)).body.data.chains[0],
      ).toMatchObject({
        native_token_id: 'MANTLE',
      });

      // The second desktop's window heard each, by name.
      const deadline = Date.now() + 1_000;
      while (heard.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(heard.map((c) => c.what)).toEqual([
        'Token ETH_PEPE (PEPE) added',
        'Chain TRON edited (confirming_threshold, enabled)',
        `The SPAM contract ${SPAM} on ETH ignored`,
        'Chain MANTLE (Mantle) added',
      ]);
    } finally {
      follower.close();
    }
  });

  test('a service whose LISTEN connection broke drops its kept pages: a change whose word it missed is answered', async () => {
    const [, b] = apps as [App, App];
    const url = '/nps/chains?chain_id=BTC';
    expect((await get(b, url)).data.chains[0].name).toBe('Bitcoin');
    // A change whose word never reaches b (as one announced while its connection was down): the kept page stays.
    await pools[0]!.$client.query("UPDATE chains SET name = 'Bitcoin (renamed)' WHERE chain_id = 'BTC'");
    expect((await get(b, url)).data.chains[0].name).toBe('Bitcoin');
    // What a dropped network does to the listening sessions: the server ends them; each service hears EVERYTHING.
    await pools[0]!.$client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid() AND datname = current_database()",
    );
    const after = await within1s(b, url, (r) => (r.data as { chains: { name: string }[] }).chains[0]?.name === 'Bitcoin (renamed)');
    expect(after.body.data.chains[0].name).toBe('Bitcoin (renamed)');
  });

  test('two services starting at once on a fresh store seed it once, and both answer the whole catalogue', async () => {
    const url = await createDatabase('fresh');
    const pools: PgDb[] = [];
    const words: StoreChanges[] = [];
    const started: ReturnType<typeof tempService>[] = [];
    try {
      for (let i = 0; i < 3; i++) pools.push(await openPostgres(url));
      for (const pool of pools) words.push(await postgresStoreChanges(pool.$client));
      const seeds: string[] = [];
      // A third party on the store (a service already running) hears the seed.
      words[2]!.on('catalogue', (_topic, detail) => {
        if (detail) seeds.push((JSON.parse(detail) as { change: StoreChange }).change.what);
      });
      // Both opened before either has seeded: their seeds run together.
      for (let i = 0; i < 2; i++)
        started.push(tempService({ now: () => clock, catalogue: postgresCatalogueStore(pools[i]!), changes: words[i]! }));
      await Promise.all(started.map((s) => s.ready));
      const counts = await pools[2]!.$client.query<{ chains: number; tokens: number }>(
        'SELECT (SELECT count(*) FROM chains) AS chains, (SELECT count(*) FROM tokens) AS tokens',
      );
      expect(counts.rows[0]).toEqual({ chains: FILE.chains.length, tokens: FILE.tokens.length });
      for (const s of started) expect((await s.invoke('catalogue-chains-list', { page_size: 100 }, ui)).total).toBe(FILE.chains.length);
      const deadline = Date.now() + 500;
      while (Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(seeds).toEqual(["The catalogue updated from the app's list of chains and tokens"]);
    } finally {
      for (const s of started) s.dispose();
      for (const w of words) await w.close();
      for (const pool of pools) await pool.$client.end();
    }
  });
});
