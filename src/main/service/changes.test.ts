import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { EVERYTHING_CHANGED, type StoreChange } from '../../shared/changes';
import { followChanges, MAX_QUEUED_CHANGES } from './changes';
import { EVERYTHING, localStoreChanges } from './engine/index';
import { buildServer } from './http/server';
import { signedInject } from './http/signed.test-support';
import { defaultResourcesDir } from './paths';
import { insertRecords } from './reconcile/fixtures.test-support';
import { openClaimTicket } from './tickets/fixtures.test-support';
import { failure, tempService } from './test-support';

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
  const follower = followChanges(svc.ctx.changes, { window, send: (c) => (heard.push(c), true) });
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

describe('a window that does not take its words', () => {
  const change = (n: number): StoreChange => ({ topic: 'tickets', what: `Ticket ${n} resolved`, ids: [String(n)], actor: 'Anna', at: n });
  const announce = (changes: ReturnType<typeof localStoreChanges>, c: StoreChange) =>
    changes.announce(c.topic, JSON.stringify({ change: c }));

  test('has a bounded few held, then one word to reload everything; once it takes words again, they flow', async () => {
    const changes = localStoreChanges();
    const sent: StoreChange[] = [];
    let taking = false;
    const follower = followChanges(changes, { send: (c) => (sent.push(c), taking) });
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
    const follower = followChanges(changes, { send: (c) => (sent.push(c), taking) });
    for (let n = 1; n <= 5; n++) await announce(changes, change(n));
    taking = true;
    follower.resume();
    expect(sent).toEqual([1, 2, 3, 4, 5].map(change));
    follower.close();
  });

  test('a store connection that broke (words may be lost) is one word to reload everything', async () => {
    const changes = localStoreChanges();
    const sent: StoreChange[] = [];
    const follower = followChanges(changes, { send: (c) => (sent.push(c), false) });
    await announce(changes, change(1));
    await changes.announce(EVERYTHING);
    await changes.announce(EVERYTHING);
    follower.resume();
    expect(sent).toEqual([change(1), EVERYTHING_CHANGED]);
    follower.close();
  });
});
