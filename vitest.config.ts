import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // The reliability suite (kill -9, a 1M-row import under load) runs on its own, one file at a
    // time, after this run: vitest.reliability.config.ts.
    exclude: ['src/**/*.reliability.test.ts', 'src/**/*.pg.test.ts', '**/node_modules/**'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
    // Worker threads and the CLI run from the build, as in the app: build first when a source is newer.
    globalSetup: ['./scripts/vitest-global-setup.mjs'],
  },
});
