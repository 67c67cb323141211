import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';

/*
 * Where a worker thread's module is. In the build, electron-vite bundles each worker as an entry of
 * its own beside index.js (electron.vite.config.ts). Run from source (tsx, vitest), the worker is
 * bundled once with esbuild into node_modules/.cache/nps: a worker that loaded the TypeScript
 * through tsx would carry tsx's loader and its hooks thread (about 40 MB more while it runs).
 */

const here = import.meta.url;
const fromSource = here.endsWith('.ts');
const built = new Map<string, Promise<URL>>();

/**
 * The module of a worker thread. `source`: its TypeScript file relative to `base` (the caller's
 * import.meta.url; two arguments, not a `new URL(..., import.meta.url)` that the build would take
 * for an asset); `name`: its entry name in electron.vite.config.ts (the build's `${name}.js`).
 */
export function workerModule(source: string, base: string, name: string): Promise<URL> {
  if (!fromSource) return Promise.resolve(new URL(`${name}.js`, here));
  let file = built.get(name);
  if (!file) {
    file = bundleFromSource(new URL(source, base), name);
    file.catch(() => built.delete(name));
    built.set(name, file);
  }
  return file;
}

async function bundleFromSource(entry: URL, name: string): Promise<URL> {
  // Named through a variable: the build must not bundle esbuild, which only runs from source.
  const esbuildName = 'esbuild';
  const esbuild = (await import(esbuildName)) as typeof import('esbuild');
  const out = await esbuild.build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]!.contents;
  const dir = join(dirname(createRequire(here).resolve('better-sqlite3/package.json')), '..', '.cache', 'nps');
  const file = join(dir, `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.${threadId}`;
    writeFileSync(tmp, code);
    renameSync(tmp, file);
  }
  return pathToFileURL(file);
}
