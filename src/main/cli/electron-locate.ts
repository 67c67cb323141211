import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ELECTRON_NATIVE_DIR, SQLITE_NODE_FILE } from '../native-binding';
import { projectRoot } from './project';

// Free of the service, so test runners can load it cheaply.
export const requireHere = createRequire(join(projectRoot, 'package.json'));

/** The Electron binary if it is already on disk (never downloads): its path, or undefined. */
export function locateElectron(): { path?: string; pkgDir?: string } {
  let pkgDir: string;
  try {
    pkgDir = dirname(requireHere.resolve('electron/package.json'));
  } catch {
    return {};
  }
  const pathFile = join(pkgDir, 'path.txt');
  if (!existsSync(pathFile)) return { pkgDir };
  const rel = readFileSync(pathFile, 'utf8').trim();
  const full = process.env.ELECTRON_OVERRIDE_DIST_PATH ? join(process.env.ELECTRON_OVERRIDE_DIST_PATH, rel) : join(pkgDir, 'dist', rel);
  return existsSync(full) ? { path: full, pkgDir } : { pkgDir };
}

/** better-sqlite3 built for Electron by `npm run electron:rebuild`, when present. */
export const electronSqliteBinding = (): string => join(projectRoot, ELECTRON_NATIVE_DIR, SQLITE_NODE_FILE);
