import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openDb, type Db } from './open';
import { openPostgres, type PgDb } from './postgres';
import { startPostgres, type TestPostgres } from './postgres.test-support';

/*
 * One test suite, both engines: a fresh store of each, migrated as the service migrates it, for the
 * same tests to run against the SQLite and the PostgreSQL implementation of a store interface
 * (docs/team.md). `another()` opens a second connection (a second pool) over the same data: what a
 * second service would see. Call at the top of a `*.pg.test.ts` file; it starts one PostgreSQL
 * server for the file and throws everything away after it.
 *
 *   const engines = storesOnBothEngines();
 *   describe.each(engines)('on %s', (_name, open) => { test('…', async () => { const store = await open(); … }) });
 */

export type FreshStore = { engine: 'sqlite'; db: Db; another(): Promise<Db> } | { engine: 'postgres'; db: PgDb; another(): Promise<PgDb> };

export function storesOnBothEngines(): [string, () => Promise<FreshStore>][] {
  let server: TestPostgres | undefined;
  let databases = 0;
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await server?.stop();
  });

  const sqlite = async (): Promise<FreshStore> => {
    const folder = mkdtempSync(join(tmpdir(), 'nps-engines-'));
    const file = join(folder, 'nps.sqlite');
    const opened: Db[] = [];
    const open = () => {
      const db = openDb({ file });
      opened.push(db);
      return db;
    };
    cleanups.push(() => {
      for (const db of opened) db.$client.close();
      rmSync(folder, { recursive: true, force: true });
    });
    return { engine: 'sqlite', db: open(), another: async () => open() };
  };

  const postgres = async (): Promise<FreshStore> => {
    const url = await server!.createDatabase(`store_${++databases}`);
    const opened: PgDb[] = [];
    const open = async () => {
      const db = await openPostgres(url);
      opened.push(db);
      return db;
    };
    cleanups.push(async () => {
      for (const db of opened) await db.$client.end();
    });
    return { engine: 'postgres', db: await open(), another: open };
  };

  return [
    ['SQLite', sqlite],
    ['PostgreSQL', postgres],
  ];
}
