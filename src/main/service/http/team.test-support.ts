import { afterAll, beforeAll } from 'vitest';
import { openPostgres, type PgDb } from '../db/postgres';
import { startPostgres, type TestPostgres } from '../db/postgres.test-support';
import type { ServiceOptions } from '../index';
import { tempService } from '../test-support';
import { strictAnswers } from './answers.test-support';
import { buildServer } from './server';

/*
 * Two services, each with its own data folder, over one PostgreSQL store (a real server, started
 * for the file and thrown away after it), each with its /nps door: what team mode's tests of the
 * API across instances start from. `storesOf` says which parts of the store each service takes
 * from PostgreSQL, its pool given (async where a part needs it: the word of a change listens on a
 * connection of its own); the rest stays in its own data folder. Each has started (`ready`) before the tests. Call at the top of a
 * `*.pg.test.ts` file; the lists fill in its beforeAll.
 */
export function twoServicesOverPostgres(
  storesOf: (pool: PgDb) => Partial<ServiceOptions> | Promise<Partial<ServiceOptions>>,
  now: () => number,
) {
  let server: TestPostgres | undefined;
  const pools: PgDb[] = [];
  const services: ReturnType<typeof tempService>[] = [];
  const apps: ReturnType<typeof buildServer>[] = [];
  beforeAll(async () => {
    server = await startPostgres();
    const url = await server.createDatabase('team');
    for (let i = 0; i < 2; i++) {
      const pool = await openPostgres(url);
      pools.push(pool);
      const svc = tempService({ now, ...(await storesOf(pool)) });
      services.push(svc);
      await svc.ready;
      const app = buildServer(svc, { log: () => {} });
      strictAnswers(app);
      await app.ready();
      apps.push(app);
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const svc of services) svc.dispose();
    for (const pool of pools) await pool.$client.end();
    await server?.stop();
  });
  /** Another database on the same server, empty: for services that must start together on a fresh store. */
  const createDatabase = (name: string) => server!.createDatabase(name);
  return { pools, services, apps, createDatabase };
}
