import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { EVERYTHING_CHANGED, type StoreChange } from '../../shared/changes';
import { followChanges, MAX_QUEUED_CHANGES } from './changes';
import { EVERYTHING, localStoreChanges } from './engine/index';
import { buildServer } from './http/server';
import { signedInject } from './http/signed.test-support';
import { defaultResourcesDir } from './paths';
import { insertRecords } from './reconcile/fixtures.test-support';
import { openClaimTicket } from './tickets/fixtures.test-support';
import { failure, tempService } from './test-support';
import { startAnvil, startProxy, type Anvil, type Proxy } from './onchain/anvil.test-support';

/*
 * Every change another window shows is announced once, after it succeeded, with its actor,
 * whichever door it came through; a window does not hear its own; a window that does not take
 * its words is told to reload everything rather than have them kept without end.
 */

const W1 = '11111111-1111-4111-8111-111111111111';
const TX1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const T = Date.UTC(2026, 0, 2, 3, 4, 5);
let clock = T;
const svc = tempService({ now: () => clock });
const app = buildServer(svc, { log: () => {}, rateLimit: false });
insertRecords(svc.ctx.db, [{ transaction_id: TX1, wallet_id: W1, amount: '100.25', created_at: T }]);

/** What another window (and, with `window`, that window) hears. */
function listen(window = 'other') {
  const heard: StoreChange[] = [];
  const follower = followChanges(svc.ctx.changes, { instance: svc.ctx.instance, window, send: (c) => (heard.push(c), true) });
  stops.push(() => follower.close());
  return heard;
}
const stops: (() => void)[] = [];

afterAll(async () => {
  await app.close();
  svc.dispose();
});
beforeEach(() => {
  clock += 1000;
  for (const stop of stops.splice(0)) stop();
});

function openTicket(): string {
  return openClaimTicket(svc.ctx.db, { subject: `s-${clock}`, at: clock });
}

describe('each door announces its change once, with its actor', () => {
  test('the window: a ticket resolved, heard by the other windows and not by itself', async () => {
    const id = openTicket();
    await svc.invoke('app-user-set', { name: 'Anna' }, { actor: 'ui' });
    const other = listen('w-2');
    const itself = listen('w-1');
    await svc.handlers['ticket-transition']({ ticket_id: id, to: 'Resolved', note: 'paid' }, { actor: 'ui', window: 'w-1' });
    expect(other).toEqual([
      { topic: 'tickets', what: `Not in ledger ${id.slice(0, 8)} (1 ETH) resolved`, ids: [id], actor: 'Anna', at: clock },
    ]);
    expect(itself).toEqual([]);
  });

  test('the command line: a bulk dismissal, under the named user', async () => {
    const ids = [openTicket(), (clock++, openTicket())];
    await svc.invoke('app-user-set', { name: 'Ben' }, { actor: 'cli' });
    const heard = listen();
    await svc.invoke('tickets-transition', { ticket_ids: ids, to: 'Dismissed', note: 'noise' }, { actor: 'cli' });
    expect(heard).toEqual([{ topic: 'tickets', what: '2 tickets dismissed', ids, actor: 'Ben', at: clock }]);
  });

  test('a refused change announces nothing', async () => {
    const id = openTicket();
    const heard = listen();
    await failure(
      svc.invoke(
        'ticket-transition',
        { ticket_id: id, to: 'Resolved', note: 'x', seen: { status: 'Pending', version: 7 } },
        { actor: 'ui' },
      ),
    );
    expect(heard).toEqual([]);
  });

  test('an import landed, through the command line', async () => {
    const heard = listen();
    const r = await svc.invoke(
      'ledger-import',
      { source: { path: join(defaultResourcesDir(), 'samples', 'native-ledger.csv') } },
      { actor: 'cli' },
    );
    expect(r.import_id).not.toBeNull();
    expect(heard).toEqual([
      {
        topic: 'imports',
        what: `Import of native-ledger.csv landed (${r.added} records added, 0 updated)`,
        ids: [r.import_id],
        actor: 'Ben',
        at: clock,
      },
    ]);
  });

  test('a verification run finished, through /nps, by its API key', async () => {
    const { api_key, api_secret } = await svc.invoke('keys-create', { label: 'tool', wallets: null }, { actor: 'cli' });
    const heard = listen();
    const res = await signedInject(
      app,
      api_secret,
      { method: 'POST', url: '/nps/bill/verify/txs', body: { txs: [{ transaction_id: TX1, amount: '100.5' }] } },
      clock,
    );
    expect(res.body.status).toBe(0);
    expect(heard).toEqual([
      { topic: 'runs', what: 'A verification of 1 claim finished (1 not matched)', ids: [], actor: `api:${api_key}`, at: clock },
    ]);
  });

  test('a call that only reads announces nothing', async () => {
    const heard = listen();
    await svc.invoke('tickets-list', {}, { actor: 'ui' });
    await svc.invoke('runs-list', {}, { actor: 'ui' });
    expect(heard).toEqual([]);
  });
});

describe('the catalogue, from each door, announced once with its actor', () => {
  const PEPE = '0x6982508145454ce325ddbe47a25d4ec3d2311933';

  test('the window adds and edits tokens and chains: the other windows hear each, the window itself none', async () => {
    await svc.invoke('app-user-set', { name: 'Anna' }, { actor: 'ui' });
    const other = listen('w-2');
    const itself = listen('w-1');
    const ui = { actor: 'ui' as const, window: 'w-1' };
    await svc.handlers['catalogue-token-add'](
      { chain_id: 'ETH', contract_address: PEPE, symbol: 'PEPE', decimal: 18, dust_threshold: '0' },
      ui,
    );
    await svc.handlers['catalogue-token-update']({ token_id: 'ETH_PEPE', decimal: 9, name: 'Pepe' }, ui);
    await svc.handlers['catalogue-token-update']({ token_id: 'ETH_PEPE', can_deposit: false }, ui);
    await svc.handlers['catalogue-chain-update']({ chain_id: 'ETH', confirming_threshold: 20, name: 'Ethereum main' }, ui);
    await svc.handlers['catalogue-token-remove']({ token_id: 'ETH_PEPE' }, ui);
    const at = clock;
    expect(other).toEqual([
      { topic: 'catalogue', what: 'Token ETH_PEPE (PEPE) added', ids: ['ETH_PEPE'], actor: 'Anna', at },
      { topic: 'catalogue', what: 'Token ETH_PEPE edited (decimal, name)', ids: ['ETH_PEPE'], actor: 'Anna', at },
      { topic: 'catalogue', what: 'Token ETH_PEPE closed to deposits', ids: ['ETH_PEPE'], actor: 'Anna', at },
      { topic: 'catalogue', what: 'Chain ETH edited (confirming_threshold, name)', ids: ['ETH'], actor: 'Anna', at },
      { topic: 'catalogue', what: 'Token ETH_PEPE (PEPE) removed', ids: ['ETH_PEPE'], actor: 'Anna', at },
    ]);
    expect(itself).toEqual([]);
  });

  test('the command line adds a chain, switches one off, ignores a contract and takes it back', async () => {
    await svc.invoke('app-user-set', { name: 'Ben' }, { actor: 'cli' });
    const heard = listen();
    const cli = { actor: 'cli' as const };
    await svc.invoke(
      'catalogue-chain-add',
      { chain_id: 'MANTLE', chain_identifier: 'ETH', name: 'Mantle', native_symbol: 'MNT', native_decimal: 18 },
      cli,
    );
    await svc.invoke('catalogue-chain-update', { chain_id: 'MANTLE', enabled: false }, cli);
    await svc.invoke('catalogue-token-ignore', { chain_id: 'ETH', contract_address: PEPE, symbol: 'PEPE' }, cli);
    await svc.invoke('catalogue-token-unignore', { chain_id: 'ETH', contract_address: PEPE }, cli);
    expect(heard.map((c) => [c.topic, c.what, c.ids, c.actor])).toEqual([
      ['catalogue', 'Chain MANTLE (Mantle) added', ['MANTLE'], 'Ben'],
      ['catalogue', 'Chain MANTLE disabled', ['MANTLE'], 'Ben'],
      ['catalogue', `The PEPE contract ${PEPE} on ETH ignored`, [], 'Ben'],
      ['catalogue', `The PEPE contract ${PEPE} on ETH no longer ignored`, [], 'Ben'],
    ]);
  });

  test('a refused catalogue change announces nothing; /nps reads the catalogue and changes none of it', async () => {
    const heard = listen();
    await failure(svc.invoke('catalogue-token-update', { token_id: 'NOPE_TOKEN', decimal: 2 }, { actor: 'cli' }));
    await failure(svc.invoke('catalogue-chain-update', { chain_id: 'ETH', confirming_threshold: -1 }, { actor: 'ui' }));
    const res = await app.inject({ method: 'GET', url: '/nps/chains?chain_id=ETH' });
    expect(res.statusCode).toBe(200);
    expect(heard).toEqual([]);
  });
});

describe('wallets and books mappings, announced once with their actor', () => {
  test('a wallet made, renamed, an address added and removed; a mapping saved, changed and removed', async () => {
    await svc.invoke('app-user-set', { name: 'Gus' }, { actor: 'cli' });
    const heard = listen('w-2');
    const itself = listen('w-1');
    const ui = { actor: 'ui' as const, window: 'w-1' };
    const address = `0x${'34'.repeat(20)}`;
    const w = await svc.handlers['wallet-create']({ name: 'Payroll' }, ui);
    await svc.handlers['wallet-update']({ wallet_id: w.wallet_id, name: 'Payroll EU', notes: 'salaries' }, ui);
    await svc.handlers['wallet-address-add']({ wallet_id: w.wallet_id, chain_id: 'ETH', address }, ui);
    await svc.handlers['wallet-address-remove']({ wallet_id: w.wallet_id, chain_id: 'ETH', address }, ui);
    const mapping = { columns: { time: 'Date', hash: 'Hash', type: 'Kind', amount_in: 'In', amount_out: 'Out' } };
    const m = await svc.invoke(
      'books-mapping-save',
      { name: 'Payroll books', headers: ['Date', 'Hash', 'Kind', 'In', 'Out'], mapping },
      ui,
    );
    await svc.handlers['books-mapping-update']({ mapping_id: m.mapping_id, name: 'Payroll books EU' }, ui);
    await svc.handlers['books-mapping-remove']({ mapping: m.mapping_id }, ui);
    expect(heard.map((c) => [c.topic, c.what, c.ids, c.actor])).toEqual([
      ['wallets', 'Wallet "Payroll" created', [w.wallet_id], 'Gus'],
      ['wallets', 'Wallet "Payroll EU" edited (name, notes)', [w.wallet_id], 'Gus'],
      ['wallets', `Address ${address} on ETH added to wallet "Payroll EU"`, [w.wallet_id], 'Gus'],
      ['wallets', `Address ${address} on ETH removed from wallet "Payroll EU"`, [w.wallet_id], 'Gus'],
      ['mappings', 'Books mapping "Payroll books" saved', [m.mapping_id], 'Gus'],
      ['mappings', 'Books mapping "Payroll books EU" changed', [m.mapping_id], 'Gus'],
      ['mappings', 'Books mapping "Payroll books EU" removed', [m.mapping_id], 'Gus'],
    ]);
    expect(itself).toEqual([]);
  });

  test('retention that removed nothing says nothing', async () => {
    const heard = listen();
    await svc.invoke('retention-apply', {}, { actor: 'cli' });
    expect(heard).toEqual([]);
  });
});

describe('settings a window shows, announced without a secret', () => {
  /** Every word as it goes out on the store's word of a change: what another service on the store would read. */
  function rawWords() {
    const raw: string[] = [];
    for (const topic of ['settings', 'catalogue', 'checks'] as const)
      stops.push(svc.ctx.changes.on(topic, (_t, detail) => raw.push(detail ?? '')));
    return raw;
  }

  test('the user name, an API key made, changed and revoked, the retention policy', async () => {
    const heard = listen();
    const raw = rawWords();
    const cli = { actor: 'cli' as const };
    // A change of the name is made by its old one (the door, while there was none).
    const before = (await svc.invoke('app-user-get', {}, cli)).name || 'cli';
    expect(before).not.toBe('Carla');
    await svc.invoke('app-user-set', { name: 'Carla' }, cli);
    const key = await svc.invoke('keys-create', { label: 'books robot', wallets: null }, cli);
    await svc.invoke('keys-update', { api_key: key.api_key, label: 'books bot' }, cli);
    await svc.invoke('keys-revoke', { api_key: key.api_key }, cli);
    await svc.invoke('retention-set', { days: 30, runs: 10 }, cli);
    expect(heard.map((c) => [c.topic, c.what, c.ids, c.actor])).toEqual([
      ['settings', "This desktop's name set to Carla", [], before],
      ['settings', 'API key "books robot" created', [key.api_key], 'Carla'],
      ['settings', 'API key "books bot" changed', [key.api_key], 'Carla'],
      ['settings', 'API key "books bot" revoked', [key.api_key], 'Carla'],
      ['settings', 'Runs kept whole set to the last 30 days or 10 runs', [], 'Carla'],
    ]);
    expect(raw).toHaveLength(5);
    expect(raw.join('\n')).not.toContain(key.api_secret);
  });

  describe('a chain node (a real EVM node, anvil, behind a URL that carries a key)', () => {
    const KEY = 'k3y-0f-the-provider-abc123';
    let anvil: Anvil;
    let proxy: Proxy;
    beforeAll(async () => {
      anvil = await startAnvil({ chainId: 1 });
      proxy = await startProxy(anvil.url);
    }, 30_000);
    afterAll(async () => {
      await proxy?.close();
      await anvil?.stop();
    });

    test('set and cleared: said, never the URL nor its key', async () => {
      await svc.invoke('app-user-set', { name: 'Dora' }, { actor: 'ui' });
      const heard = listen('w-2');
      const raw = rawWords();
      const ui = { actor: 'ui' as const, window: 'w-1' };
      await svc.handlers['onchain-node-set']({ chain_id: 'ETH', url: `${proxy.url}/v3/${KEY}` }, ui);
      await svc.handlers['onchain-node-clear']({ chain_id: 'ETH' }, ui);
      expect(heard.map((c) => [c.topic, c.what, c.ids, c.actor])).toEqual([
        ['settings', 'The node of ETH set', ['ETH'], 'Dora'],
        ['settings', 'The node of ETH cleared', ['ETH'], 'Dora'],
      ]);
      expect(raw).toHaveLength(2);
      for (const secret of [KEY, proxy.url, new URL(proxy.url).port]) expect(raw.join('\n')).not.toContain(secret);
    }, 30_000);

    test('a check against the chain: its start and its end are announced, with who started it, to the other windows', async () => {
      await svc.invoke('onchain-node-set', { chain_id: 'ETH', url: anvil.url }, { actor: 'cli' });
      const hash = `0x${'ab'.repeat(32)}`;
      const csv = [
        'transaction_id,wallet_id,type,status,amount,to,fee,hash,chain_id,token_id,created_at',
        `bbbbbbbb-0000-4000-8000-000000000001,${W1},Withdrawal,Completed,0.5,0x${'12'.repeat(20)},,${hash},ETH,ETH,${Math.floor(T / 1000)}`,
      ].join('\n');
      await svc.invoke('ledger-import', { source: { name: 'one.csv', text: csv } }, { actor: 'cli' });
      await svc.invoke('app-user-set', { name: 'Emil' }, { actor: 'ui' });
      const other = listen('w-2');
      const itself = listen('w-1');
      const started = await svc.handlers['onchain-check-start']({ wallet_id: W1, restart: false }, { actor: 'ui', window: 'w-1' });
      await expect.poll(() => other.length, { timeout: 20_000 }).toBe(2);
      expect(other).toEqual([
        { topic: 'checks', what: 'A check against the chain of 1 record started', ids: [started.check_id], actor: 'Emil', at: clock },
        {
          topic: 'checks',
          what: 'A check against the chain of 1 record finished (0 agree, 0 differ, 1 not on the chain, 0 not final)',
          ids: [started.check_id],
          actor: 'Emil',
          at: clock,
        },
      ]);
      expect(itself).toEqual([]);
    }, 30_000);
  });
});

describe('two services on one store (team mode, their words shared as PostgreSQL shares them)', () => {
  test("the store's changes reach the other service's windows, its own desktop window among them; a data folder's own do not", async () => {
    const second = tempService({ changes: svc.ctx.changes, now: () => clock });
    try {
      const heard: StoreChange[] = [];
      // Both desktops name their window alike: the other's calls are news all the same.
      const follower = followChanges(second.ctx.changes, {
        instance: second.ctx.instance,
        window: 'desktop',
        send: (c) => (heard.push(c), true),
      });
      stops.push(() => follower.close());
      const desktop = { actor: 'ui' as const, window: 'desktop' };
      await svc.invoke('app-user-set', { name: 'Fred' }, desktop);
      await svc.handlers['catalogue-chain-update']({ chain_id: 'TRON', confirming_threshold: 25 }, desktop);
      expect(heard.map((c) => [c.topic, c.what, c.actor])).toEqual([['catalogue', 'Chain TRON edited (confirming_threshold)', 'Fred']]);
      // The second desktop's own name is its own.
      expect(await second.invoke('app-user-get', {}, desktop)).toEqual({ name: '' });
    } finally {
      second.dispose();
    }
  });
});

describe('a window that does not take its words', () => {
  const change = (n: number): StoreChange => ({ topic: 'tickets', what: `Ticket ${n} resolved`, ids: [String(n)], actor: 'Anna', at: n });
  const announce = (changes: ReturnType<typeof localStoreChanges>, c: StoreChange) =>
    changes.announce(c.topic, JSON.stringify({ change: c }));

  test('has a bounded few held, then one word to reload everything; once it takes words again, they flow', async () => {
    const changes = localStoreChanges();
    const sent: StoreChange[] = [];
    let taking = false;
    const follower = followChanges(changes, { instance: 'this', send: (c) => (sent.push(c), taking) });
    // The first is handed over (and the window says it is full); the rest are held.
    for (let n = 1; n <= 10 * MAX_QUEUED_CHANGES; n++) {
      await announce(changes, change(n));
      expect(follower.queued).toBeLessThanOrEqual(MAX_QUEUED_CHANGES);
    }
    expect(sent).toEqual([change(1)]);
    taking = true;
    follower.resume();
    expect(sent).toEqual([change(1), EVERYTHING_CHANGED]);
    await announce(changes, change(5000));
    expect(sent.at(-1)).toEqual(change(5000));
    follower.close();
  });

  test('held within the bound: every change arrives, in order', async () => {
    const changes = localStoreChanges();
    const sent: StoreChange[] = [];
    let taking = false;
    const follower = followChanges(changes, { instance: 'this', send: (c) => (sent.push(c), taking) });
    for (let n = 1; n <= 5; n++) await announce(changes, change(n));
    taking = true;
    follower.resume();
    expect(sent).toEqual([1, 2, 3, 4, 5].map(change));
    follower.close();
  });

  test('a store connection that broke (words may be lost) is one word to reload everything', async () => {
    const changes = localStoreChanges();
    const sent: StoreChange[] = [];
    const follower = followChanges(changes, { instance: 'this', send: (c) => (sent.push(c), false) });
    await announce(changes, change(1));
    await changes.announce(EVERYTHING);
    await changes.announce(EVERYTHING);
    follower.resume();
    expect(sent).toEqual([change(1), EVERYTHING_CHANGED]);
    follower.close();
  });

  test("a window taking its words hears one reload for a broken connection (which every topic's listener hears), and the next after news", async () => {
    const changes = localStoreChanges();
    const sent: StoreChange[] = [];
    const follower = followChanges(changes, { instance: 'this', send: (c) => (sent.push(c), true) });
    await changes.announce(EVERYTHING);
    await announce(changes, change(1));
    await changes.announce(EVERYTHING);
    await changes.announce(EVERYTHING);
    expect(sent).toEqual([EVERYTHING_CHANGED, change(1), EVERYTHING_CHANGED]);
    follower.close();
  });
});
