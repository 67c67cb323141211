import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { binaryArch, bindingDirIn, neededIn, SQLITE_NODE_FILE, type BindingNeeds } from '../native-binding';
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
export const electronSqliteNeeds = (target = electronTarget()): BindingNeeds => neededIn(projectRoot, target);

/** The first line of a file, or undefined when it cannot be read. */
function firstLine(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Whether an Electron at `electronPath` can run with its sandbox on this machine, or why not. On
 * Linux the sandbox needs unprivileged user namespaces or a setuid-root chrome-sandbox beside the
 * binary; Ubuntu 23.10 and later refuse the namespaces to binaries AppArmor has no profile for
 * (kernel.apparmor_restrict_unprivileged_userns = 1), which an installed .deb brings and an
 * unpacked Electron lacks. A profile cannot be seen from here: where one is installed, set
 * E2E_ELECTRON_SANDBOX=1 to say so.
 */
export function electronSandbox(electronPath: string, procSys = '/proc/sys/kernel'): { ok: true } | { ok: false; reason: string } {
  if (process.platform !== 'linux') return { ok: true };
  const helper = statSync(join(dirname(electronPath), 'chrome-sandbox'), { throwIfNoEntry: false });
  if (helper && helper.uid === 0 && (helper.mode & 0o4000) !== 0) return { ok: true };
  if (firstLine(join(procSys, 'apparmor_restrict_unprivileged_userns')) === '1')
    return {
      ok: false,
      reason:
        'AppArmor refuses user namespaces to an unpacked Electron here (kernel.apparmor_restrict_unprivileged_userns = 1; see docs/desktop.md, "Ubuntu 23.10 and later")',
    };
  if (firstLine(join(procSys, 'unprivileged_userns_clone')) === '0')
    return { ok: false, reason: 'unprivileged user namespaces are off here (kernel.unprivileged_userns_clone = 0)' };
  return { ok: true };
}

/**
 * Whether the Electron journeys launch Electron with its sandbox, as users run it: wherever the
 * platform allows (electronSandbox), unless E2E_ELECTRON_SANDBOX says otherwise (1: an AppArmor
 * profile lets it here; 0: run without). Playwright's own default on Linux is --no-sandbox, which
 * would hide the very failure users on Ubuntu 24.04 meet.
 */
export function sandboxForJourneys(electronPath: string): boolean {
  const asked = process.env.E2E_ELECTRON_SANDBOX;
  if (asked === '1' || asked === '0') return asked === '1';
  const sandbox = electronSandbox(electronPath);
  if (!sandbox.ok) process.stderr.write(`Electron runs without its sandbox in these journeys: ${sandbox.reason}\n`);
  return sandbox.ok;
}
