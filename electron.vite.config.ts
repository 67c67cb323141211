import { defineConfig } from 'electron-vite';
import { cpSync } from 'node:fs';
import { resolve } from 'node:path';
import { rendererConfig } from './vite.renderer.config';

/** The built main process opens the store from out/main; its migrations travel beside it. */
const copyMigrations = () => ({
  name: 'nps-copy-migrations',
  closeBundle: () => cpSync(resolve('src/main/service/db/migrations'), resolve('out/main/migrations'), { recursive: true }),
});

export default defineConfig({
  main: {
    plugins: [copyMigrations()],
    build: {
      // Worker threads (the ledger import's writer, the verification's lookups): entries of their
      // own, found beside index.js (src/main/service/threads.ts).
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          'ledger-import-worker': resolve('src/main/service/ledger/import-worker.ts'),
          'reconcile-lookup-worker': resolve('src/main/service/reconcile/lookup-worker.ts'),
        },
        external: ['better-sqlite3'],
      },
    },
  },
  preload: {
    build: {
      rollupOptions: { input: { index: resolve('src/preload/index.ts') }, output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: rendererConfig,
});
