import { describe, expect, test } from 'vitest';
import { storesOnBothEngines, type FreshStore } from '../db/engines.test-support';
import type { NewTicket } from './repository';
import { postgresTicketStore, sqliteTicketStore, type TicketStore } from './store-repository';

/*
 * The ticket store's behaviour, the same on both engines: a ticket opened reads back with its
 * first event; a change of status applies when the ticket is as it was read, and is refused,
 * writing nothing, when it changed since; a change of many is all or nothing. Then what only
 * PostgreSQL offers: two services (two stores, each its own pool) over one database, where of two
 * people resolving one ticket at the same moment exactly one wins and the other is told who did.
 */

const stores = storesOnBothEngines();

async function open(fresh: () => Promise<FreshStore>): Promise<{ store: TicketStore; second: () => Promise<TicketStore> }> {
  const store = await fresh();
  if (store.engine === 'sqlite') {
    return { store: sqliteTicketStore(store.db), second: async () => sqliteTicketStore(await store.another()) };
  }
  return { store: postgresTicketStore(store.db), second: async () => postgresTicketStore(await store.another()) };
}

let serial = 0;
/** A Pending mismatch ticket as a verification opens it, with an amount no float keeps. */
function ticket(over: Partial<NewTicket> = {}): NewTicket {
  const n = ++serial;
  return {
    ticket_id: `0190aaaa-0000-7000-8000-${String(n).padStart(12, '0')}`,
    wallet_id: '3b7cf3c2-5632-4b92-909d-3fb64afebede',
    transaction_id: `a05ad1d2-066a-4953-8cc6-${String(n).padStart(12, '0')}`,
    chain_id: 'BSC_BNB',
    token_id: 'BSC_USDT',
    amount: '123456789012345678.123456789012345678',
    abnormals: 'amount',
    desc: 'amount: claimed 556.45709, ledger 556.4571',
    claimed: '{"amount":"556.45709"}',
    run_id: null,
    actor: 'api:key1',
    at: 1_700_000_000_000,
    ...over,
  };
}

describe.each(stores)('the ticket store on %s', (_name, fresh) => {
  test('a ticket opened reads back whole, with its first event; unknown ids read as nothing', async () => {
    const { store } = await open(fresh);
    const t = ticket();
    await store.open([t]);
    const row = await store.get(t.ticket_id);
    expect(row).toMatchObject({
      ticket_id: t.ticket_id,
      kind: 'mismatch',
      status: 'Pending',
      version: 0,
      amount: '123456789012345678.123456789012345678',
      claimed: t.claimed,
      created_at: t.at,
      updated_at: t.at,
    });
    expect(await store.events(t.ticket_id)).toEqual([
      { kind: 'opened', from_status: null, to_status: 'Pending', note: t.desc, actor: 'api:key1', at: t.at },
    ]);
    expect(await store.get('no-such-ticket')).toBeUndefined();
    const now = await store.now([t.ticket_id, 'no-such-ticket']);
    expect([...now.keys()]).toEqual([t.ticket_id]);
    expect(now.get(t.ticket_id)).toEqual({
      ticket_id: t.ticket_id,
      status: 'Pending',
      version: 0,
      last: { kind: 'opened', to: 'Pending', actor: 'api:key1', at: t.at },
    });
  });

  test('a change applies to the ticket as it was read, and is refused, writing nothing, once it changed', async () => {
    const { store } = await open(fresh);
    const t = ticket();
    await store.open([t]);
    expect(await store.setStatus([{ ticket_id: t.ticket_id, from: 'Pending', version: 0 }], 'Resolved', 'paid', 'Anna', 2_000)).toEqual([]);
    expect(await store.get(t.ticket_id)).toMatchObject({ status: 'Resolved', version: 1, updated_at: 2_000 });
    // Bob acts on what he saw before Anna's change: the same status and version no longer hold.
    expect(await store.setStatus([{ ticket_id: t.ticket_id, from: 'Pending', version: 0 }], 'Dismissed', 'spam', 'Bob', 3_000)).toEqual([
      t.ticket_id,
    ]);
    expect(await store.setStatus([{ ticket_id: t.ticket_id, from: 'Resolved', version: 0 }], 'Pending', '', 'Bob', 3_000)).toEqual([
      t.ticket_id,
    ]);
    expect(await store.get(t.ticket_id)).toMatchObject({ status: 'Resolved', version: 1, updated_at: 2_000 });
    const events = await store.events(t.ticket_id);
    expect(events.map((e) => [e.kind, e.to_status, e.actor, e.note])).toEqual([
      ['opened', 'Pending', 'api:key1', t.desc],
      ['status', 'Resolved', 'Anna', 'paid'],
    ]);
    expect((await store.now([t.ticket_id])).get(t.ticket_id)!.last).toEqual({ kind: 'status', to: 'Resolved', actor: 'Anna', at: 2_000 });
  });

  test('a change of many tickets is all or nothing: one that moved leaves every other as it was', async () => {
    const { store } = await open(fresh);
    const [a, b, c] = [ticket(), ticket(), ticket()];
    await store.open([a, b, c]);
    await store.setStatus([{ ticket_id: b.ticket_id, from: 'Pending' }], 'Dismissed', '', 'Anna', 2_000);
    const changes = [a, b, c].map((t) => ({ ticket_id: t.ticket_id, from: 'Pending' as const, version: 0 }));
    expect(await store.setStatus(changes, 'Resolved', 'month closed', 'Bob', 3_000)).toEqual([b.ticket_id]);
    const now = await store.now([a, b, c].map((t) => t.ticket_id));
    expect([a, b, c].map((t) => [now.get(t.ticket_id)!.status, now.get(t.ticket_id)!.version])).toEqual([
      ['Pending', 0],
      ['Dismissed', 1],
      ['Pending', 0],
    ]);
    expect((await store.events(a.ticket_id)).length).toBe(1);
    expect(await store.setStatus([changes[0]!, changes[2]!], 'Resolved', 'month closed', 'Bob', 4_000)).toEqual([]);
    expect((await store.now([a.ticket_id])).get(a.ticket_id)).toMatchObject({ status: 'Resolved', version: 1 });
  });

  test('a ticket opened through one service reads the same through another', async () => {
    const { store, second } = await open(fresh);
    const t = ticket();
    await store.open([t]);
    const other = await second();
    expect(await other.get(t.ticket_id)).toEqual(await store.get(t.ticket_id));
    await other.setStatus([{ ticket_id: t.ticket_id, from: 'Pending', version: 0 }], 'Resolved', '', 'Bob', 2_000);
    expect(await store.get(t.ticket_id)).toMatchObject({ status: 'Resolved', version: 1 });
  });
});

describe('two services over one PostgreSQL store', () => {
  const postgres = stores.find(([name]) => name === 'PostgreSQL')![1];

  test('of two people resolving and dismissing one ticket at the same moment, one wins and the other is told who (20 rounds)', async () => {
    const { store, second } = await open(postgres);
    const other = await second();
    for (let round = 0; round < 20; round++) {
      const t = ticket();
      await store.open([t]);
      const seen = { ticket_id: t.ticket_id, from: 'Pending' as const, version: 0 };
      const [anna, bob] = await Promise.all([
        store.setStatus([seen], 'Resolved', 'paid', 'Anna', 2_000 + round),
        other.setStatus([seen], 'Dismissed', 'duplicate', 'Bob', 2_000 + round),
      ]);
      // Exactly one change applied: the other was refused and wrote nothing.
      expect([anna, bob].filter((stale) => stale.length === 0)).toHaveLength(1);
      const winner = anna.length === 0 ? { who: 'Anna', to: 'Resolved' } : { who: 'Bob', to: 'Dismissed' };
      const now = (await other.now([t.ticket_id])).get(t.ticket_id)!;
      expect(now).toMatchObject({ status: winner.to, version: 1, last: { kind: 'status', to: winner.to, actor: winner.who } });
      expect((await store.events(t.ticket_id)).map((e) => e.actor)).toEqual(['api:key1', winner.who]);
    }
  }, 60_000);

  test('ten services resolving many overlapping tickets at once: every ticket changed once, no event without its change', async () => {
    const { store, second } = await open(postgres);
    const services = [store, ...(await Promise.all(Array.from({ length: 9 }, () => second())))];
    const list = Array.from({ length: 12 }, () => ticket());
    await store.open(list);
    // Each service takes an overlapping run of four tickets: neighbours race on three of them.
    const answers = await Promise.all(
      services.map((s, i) =>
        s.setStatus(
          [0, 1, 2, 3].map((k) => ({ ticket_id: list[(i + k) % list.length]!.ticket_id, from: 'Pending' as const, version: 0 })),
          'Resolved',
          '',
          `user${i}`,
          5_000,
        ),
      ),
    );
    const now = await store.now(list.map((t) => t.ticket_id));
    for (const t of list) {
      const events = await store.events(t.ticket_id);
      const changed = events.filter((e) => e.kind === 'status');
      expect(changed.length).toBeLessThanOrEqual(1);
      expect(now.get(t.ticket_id)!.version).toBe(changed.length);
      // The service that changed it is one whose whole batch applied.
      if (changed.length === 1) expect(answers[Number(changed[0]!.actor.slice(4))]).toEqual([]);
    }
    // Every batch that applied changed all four of its tickets.
    for (const [i, stale] of answers.entries()) {
      if (stale.length > 0) continue;
      for (const k of [0, 1, 2, 3]) expect(now.get(list[(i + k) % list.length]!.ticket_id)!.status).toBe('Resolved');
    }
    expect(answers.some((stale) => stale.length === 0)).toBe(true);
  }, 60_000);
});
