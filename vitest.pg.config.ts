import { defineConfig } from 'vitest/config';

/*
 * The team store's tests against a real PostgreSQL server (files `*.pg.test.ts`): each file starts
 * its own server (db/postgres.test-support.ts), so they need PostgreSQL 15 installed and run apart
 * from the unit run, one file at a time.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.pg.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
