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
      // The Electron main process, the CLI (plain Node) and the worker threads of the engine room
      // (src/main/service/engine/threads.ts finds them by these names, beside its own file): one
      // folder, sharing chunks, so the app and the CLI run the same files.
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          cli: resolve('src/main/cli.ts'),
          'import-worker': resolve('src/main/service/engine/import-worker.ts'),
          'lookup-worker': resolve('src/main/service/engine/lookup-worker.ts'),
          'deferred-worker': resolve('src/main/service/engine/deferred-worker.ts'),
          'chain-worker': resolve('src/main/service/engine/chain-worker.ts'),
        },
        output: { chunkFileNames: '[name]-[hash].js' },
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
