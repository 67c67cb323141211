import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { binaryArch, bindingDirIn, neededIn, SQLITE_NODE_FILE, type BindingStamp } from '../native-binding';
import { projectRoot } from './project';

// Free of the service, so test runners can load it cheaply.
export const requireHere = createRequire(join(projectRoot, 'package.json'));

/**
 * The Electron binary if it is already on disk (never downloads): its path, or undefined. Found as
 * the electron package finds it, ELECTRON_OVERRIDE_DIST_PATH (a folder holding an Electron) included.
 */
export function locateElectron(): { path?: string; pkgDir?: string } {
  let pkgDir: string;
  try {
    pkgDir = dirname(requireHere.resolve('electron/package.json'));
  } catch {
    return {};
  }
  const pathFile = join(pkgDir, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (!rel && !override) return { pkgDir };
  const full = override ? join(override, rel ?? 'electron') : join(pkgDir, 'dist', rel!);
  return existsSync(full) ? { path: full, pkgDir } : { pkgDir };
}

/**
 * The platform and architecture the checkout's Electron runs as: its binary's own (an arm64
 * Electron under an x64 Node in Rosetta is arm64), else this process's.
 */
export function electronTarget(electronPath = locateElectron().path): { platform: string; arch: string } {
  const arch = electronPath ? binaryArch(electronPath) : undefined;
  return { platform: process.platform, arch: arch && arch !== 'universal' ? arch : process.arch };
}

/** better-sqlite3 built for this checkout's Electron (`npm run electron:rebuild`): electron-native/<os>-<arch>/better_sqlite3.node. */
export const electronSqliteBinding = (target = electronTarget()): string => join(bindingDirIn(projectRoot, target), SQLITE_NODE_FILE);

/** What that binding must have been built for. */
export const electronSqliteNeeds = (target = electronTarget()): BindingStamp => neededIn(projectRoot, target);
