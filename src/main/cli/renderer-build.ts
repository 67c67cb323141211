import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './common';

/** The checkout this CLI runs from (src/main/cli -> root). */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const rendererOutDir = join(projectRoot, 'out', 'renderer');

const RENDERER_INPUTS = ['src/renderer', 'src/shared', 'vite.renderer.config.ts', 'package-lock.json'];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Missing, or older than any of the sources it is built from. */
export function rendererIsStale(root = projectRoot): boolean {
  const index = join(root, 'out', 'renderer', 'index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  return RENDERER_INPUTS.some((p) => newestMtime(join(root, p)) > built);
}

/** Build the renderer only (vite), for browser mode; the Electron build (electron-vite) builds all three parts. */
export function buildRenderer(log: (line: string) => void = (l) => process.stderr.write(l + '\n')): void {
  const vite = join(dirname(createRequire(join(projectRoot, 'package.json')).resolve('vite/package.json')), 'bin', 'vite.js');
  log('building the renderer (vite)...');
  const r = spawnSync(process.execPath, [vite, 'build', '--config', 'vite.renderer.config.ts', '--logLevel', 'warn'], {
    cwd: projectRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) throw new UsageError(`the renderer build failed (vite exited with ${r.status ?? r.signal}); see the output above`);
}

export function ensureRendererBuilt(log?: (line: string) => void): string {
  if (rendererIsStale()) buildRenderer(log);
  return rendererOutDir;
}

export function projectVersion(): string {
  return (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
