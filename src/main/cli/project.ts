import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from './errors';

/** The checkout this CLI runs from: the nearest folder above it with package.json (from src/main/cli or out/main alike). */
export const projectRoot = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
})();

/** The built screens of browser mode: written by the one build (scripts/build.mjs), which `npm run nps` runs when stale. */
export function rendererOutDir(): string {
  const dir = join(projectRoot, 'out', 'renderer');
  if (!existsSync(join(dir, 'index.html'))) throw new UsageError(`the screens are not built (${dir} is empty): run npm run build`);
  return dir;
}

export function projectVersion(): string {
  return (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
