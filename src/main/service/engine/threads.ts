import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/*
 * Where a worker thread's module is. Each worker is an entry of the build (electron.vite.config.ts)
 * written beside the main process's own files in out/main, and the Electron app and the compiled
 * CLI start it from there. Code run from source (vitest, the benches) starts the same built files
 * from the checkout's out/main: the test and bench commands build first when the sources are newer
 * (scripts/build.mjs). Nothing is bundled while the service runs.
 */

export type WorkerName = 'import-worker' | 'lookup-worker' | 'deferred-worker' | 'chain-worker';

// Kept in a variable: a literal `new URL(..., import.meta.url)` is taken by the build for an asset.
const here = import.meta.url;
const fromSource = here.endsWith('.ts');

/** The built module of a worker thread. */
export function workerModule(name: WorkerName): URL {
  if (!fromSource) return new URL(`${name}.js`, here);
  const built = new URL(`../../../../out/main/${name}.js`, here);
  if (!existsSync(built)) throw new Error(`the ${name} thread is not built (${fileURLToPath(built)} is missing): run npm run build`);
  return built;
}
