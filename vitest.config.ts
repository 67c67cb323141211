import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
    // Worker threads and the CLI run from the build, as in the app: build first when a source is newer.
    globalSetup: ['./scripts/vitest-global-setup.mjs'],
  },
});
