import { defineConfig } from 'vitest/config';

/*
 * The reliability suite: the service in its own process, killed with -9 mid-import and
 * mid-verification, and a 1M-row import under 20 clients, whose answers must each come within a
 * second. One file at a time and after the other tests, so that what is measured is the service,
 * not the other test files sharing the host's cores.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.reliability.test.ts'],
    environment: 'node',
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
    globalSetup: ['./scripts/vitest-global-setup.mjs'],
  },
});
