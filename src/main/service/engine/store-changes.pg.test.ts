import { describe, expect, test } from 'vitest';
import { storesOnBothEngines, type FreshStore } from '../db/engines.test-support';
import { EVERYTHING, localStoreChanges, postgresStoreChanges, type StoreChanges } from './store-changes';

/*
 * Word of a change reaches every service on the store: in the process on SQLite, through
 * LISTEN/NOTIFY on PostgreSQL, where a second service hears the first within a second, and a
 * listener whose connection broke hears EVERYTHING, then listens again.
 */

const stores = storesOnBothEngines();
const opened: StoreChanges[] = [];

async function changesOf(store: FreshStore): Promise<StoreChanges> {
  const changes = store.engine === 'sqlite' ? localStoreChanges() : await postgresStoreChanges(store.db.$client, { retryMs: 100 });
  opened.push(changes);
  return changes;
}

/** The topics `changes` hears, as they come, and a wait for the next (bounded). */
function recorder(changes: StoreChanges, topic: string) {
  const heard: string[] = [];
  const waiting: (() => void)[] = [];
  changes.on(topic, (t) => {
    heard.push(t);
    waiting.splice(0).forEach((w) => w());
  });
  const next = (count: number, withinMs = 1_000) =>
    new Promise<string[]>((resolve, reject) => {
      const done = () => heard.length >= count && (clearTimeout(timer), resolve(heard));
      const timer = setTimeout(() => reject(new Error(`heard ${JSON.stringify(heard)} within ${withinMs} ms, not ${count}`)), withinMs);
      const check = () => {
        if (!done()) waiting.push(check);
      };
      check();
    });
  return { heard, next };
}

describe.each(stores)('word of a change on %s', (_name, fresh) => {
  test('the service that announces hears its topic, and only listeners of that topic do', async () => {
    const changes = await changesOf(await fresh());
    const catalogue = recorder(changes, 'catalogue');
    const tickets = recorder(changes, 'tickets');
    await changes.announce('catalogue');
    expect(await catalogue.next(1)).toEqual(['catalogue']);
    expect(tickets.heard).toEqual([]);
    await Promise.all(opened.splice(0).map((c) => c.close()));
  });

  test('a word carries its detail, newlines and all, as announced', async () => {
    const changes = await changesOf(await fresh());
    const details: (string | undefined)[] = [];
    const heard = new Promise<void>((resolve) =>
      changes.on('tickets', (_t, detail) => {
        details.push(detail);
        if (details.length === 2) resolve();
      }),
    );
    await changes.announce('tickets', '{"what":"Ticket 01a2 resolved"}\nand a second line');
    await changes.announce('tickets');
    await heard;
    expect(details).toEqual(['{"what":"Ticket 01a2 resolved"}\nand a second line', undefined]);
    await Promise.all(opened.splice(0).map((c) => c.close()));
  });
});

describe('two services over one PostgreSQL store', () => {
  test("one's change is heard by the other within a second", async () => {
    const store = await stores[1]![1]();
    if (store.engine !== 'postgres') throw new Error('a PostgreSQL store was expected');
    const [a, b] = [await changesOf(store), await changesOf({ engine: 'postgres', db: await store.another(), another: store.another })];
    const heardByB = recorder(b, 'catalogue');
    await a.announce('catalogue');
    expect(await heardByB.next(1)).toEqual(['catalogue']);
    await Promise.all(opened.splice(0).map((c) => c.close()));
  });

  test('a listener whose connection broke hears that anything may have changed, then hears again', async () => {
    const store = await stores[1]![1]();
    if (store.engine !== 'postgres') throw new Error('a PostgreSQL store was expected');
    const other = await store.another();
    const [a, b] = [await changesOf(store), await changesOf({ engine: 'postgres', db: other, another: store.another })];
    const heardByB = recorder(b, 'catalogue');
    // What a dropped network does to b's listening session: the server ends it.
    await store.db.$client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid() AND datname = current_database()",
    );
    expect(await heardByB.next(1, 2_000)).toContain(EVERYTHING);
    // Listening again (after retryMs): announcements arrive once more.
    const deadline = Date.now() + 5_000;
    while (!heardByB.heard.includes('catalogue') && Date.now() < deadline) {
      await a.announce('catalogue');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(heardByB.heard).toContain('catalogue');
    await Promise.all(opened.splice(0).map((c) => c.close()));
  });
});
