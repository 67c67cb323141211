import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUSY, lockHolder, tryLock } from './db/folder-lock';
import { byDoor } from './said';

/*
 * The data folder: one writer, private files, and how a running service is found.
 *
 * One writer. The desktop app, `serve` and a command that opens the store itself each take the
 * folder's lock (LOCK_FILE, db/folder-lock.ts) before anything else, and hold it until they end;
 * the system lets it go when a process dies, so a crash never leaves the folder locked. A second
 * service is refused; a command finds the running service (findService) and calls it instead.
 *
 * Finding the service. A service writes api.json (where it listens) and local.token (the key of
 * its command-line door) once it listens, and removes them when it stops, only if they are still
 * the ones it wrote. A file left by a crash is told from a live service by calling the address it
 * names with its token (GET /local/hello), never by the process id it names: ids are reused.
 *
 * Private files. Whoever can read the store can read the ledger, the tickets and the keys: the
 * folder is 0700 and every file the service writes there 0600 (the processes also run under umask
 * 077). A folder found wider is tightened (others' rights taken away, the owner's left as they are)
 * when it is the app's own (the default folder, or one holding only the service's files), and named
 * in a warning otherwise.
 */

const LOCK_FILE = 'nps.lock';
export const DISCOVERY_FILE = 'api.json';
export const LOCAL_TOKEN_FILE = 'local.token';
/** The header that carries local.token to the command line's door. */
export const LOCAL_TOKEN_HEADER = 'x-nps-local-token';

/**
 * The service's own files in the folder: the store and the small one beside it, their SQLite
 * companions, the lock, the discovery files, the named user, the chains' nodes, the logs.
 */
const OWN_FILE = /^(?:nps(?:\.deferred)?\.sqlite(?:-wal|-shm|-journal)?|nps\.lock|api\.json|local\.token|user\.json|nodes\.json|logs)$/;
const tightenable = process.platform !== 'win32';

export interface FolderLock {
  readonly dataDir: string;
  /** False when the folder cannot be locked at all (read-only): the store will say why it cannot be used. */
  readonly locked: boolean;
  /** Let the folder go (the process ending does the same). */
  release(): void;
}

/** The folder is held by another process: its id where the system tells it (Linux). */
export interface FolderBusy {
  busy: true;
  pid?: number;
}

const mode = (m: number) => (m & 0o777).toString(8).padStart(4, '0');

/**
 * Make the folder (0700) when missing; tighten the modes of one the service already used. Answers
 * warnings to show the user (a wider folder that is not only the service's, a file not its
 * owner's). `own`: the folder is the app's own (the default one), tightened whatever it holds.
 */
export function prepareDataFolder(dataDir: string, own = false): string[] {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (!tightenable) return [];
  const warnings: string[] = [];
  const names = readdirSync(dataDir);
  const folder = statSync(dataDir);
  if ((folder.mode & 0o077) !== 0) {
    const foreign = names.filter((n) => !OWN_FILE.test(n));
    if (own || foreign.length === 0) {
      try {
        // Only others' rights are taken away: a folder made read-only for its owner stays so.
        chmodSync(dataDir, folder.mode & 0o700);
      } catch (err) {
        warnings.push(
          `the data folder ${dataDir} can be read by other users (mode ${mode(folder.mode)}) and could not be made private: ${(err as Error).message}`,
        );
      }
    } else {
      warnings.push(
        `the data folder ${dataDir} can be read by other users (mode ${mode(folder.mode)}); it also holds files that are not NPS Reconcile's (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}), so it is left as it is: its store and logs are private (0600), but run chmod 700 on it, or give NPS Reconcile a folder of its own`,
      );
    }
  }
  for (const name of names) {
    if (!OWN_FILE.test(name)) continue;
    const path = join(dataDir, name);
    try {
      const st = statSync(path);
      if ((st.mode & 0o077) !== 0) chmodSync(path, st.mode & 0o700);
    } catch (err) {
      warnings.push(`${path} can be read by other users and could not be made private: ${(err as Error).message}`);
    }
  }
  return warnings;
}

/**
 * Take the data folder for this process: the one writer's lock, held until release() or the
 * process's end. Makes the folder (0700) when missing. Answers FolderBusy when another process
 * holds it (busyMessage says who, in one line). `nativeBinding`: better-sqlite3 built for Electron.
 */
export function takeDataFolder(dataDir: string, opts: { nativeBinding?: string } = {}): FolderLock | FolderBusy {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, LOCK_FILE);
  const held = tryLock(file, opts.nativeBinding);
  if (held === BUSY) return { busy: true, pid: lockHolder(file) };
  if ('cannot' in held) return { dataDir, locked: false, release: () => undefined };
  try {
    if (tightenable) chmodSync(file, 0o600);
  } catch {
    // Not the owner's: prepareDataFolder names it.
  }
  return { dataDir, locked: true, release: () => held.release() };
}

export const isBusy = (taken: FolderLock | FolderBusy): taken is FolderBusy => 'busy' in taken;

/** A service running on a data folder, as its api.json names it and its own answer confirmed. */
export interface RunningService {
  /** e.g. http://127.0.0.1:8730 */
  origin: string;
  pid: number;
  /** The command line's key to its door (local.token). */
  token: string;
  /** It serves the screens in a browser (`serve --ui`): it can give a link to open them. */
  ui: boolean;
}

/**
 * The service running on the folder: api.json's address, called with local.token, answered as
 * that folder's service. Undefined when there is none (no file, or a file a crash left: nothing
 * answers there, or something else does). `timeoutMs`: how long a busy service may take to answer.
 */
export async function findService(dataDir: string, timeoutMs = 3000): Promise<RunningService | undefined> {
  let origin: string;
  let token: string;
  try {
    const discovery = JSON.parse(readFileSync(join(dataDir, DISCOVERY_FILE), 'utf8')) as { base_url?: unknown };
    token = readFileSync(join(dataDir, LOCAL_TOKEN_FILE), 'utf8').trim();
    if (typeof discovery.base_url !== 'string' || token === '') return undefined;
    origin = new URL(discovery.base_url).origin;
  } catch {
    return undefined;
  }
  try {
    const res = await fetch(`${origin}/local/hello`, {
      headers: { [LOCAL_TOKEN_HEADER]: token },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const answer = (await res.json()) as { status?: number; data?: { pid?: unknown; ui?: unknown } };
    if (answer.status !== 0 || typeof answer.data?.pid !== 'number') return undefined;
    return { origin, pid: answer.data.pid, token, ui: answer.data.ui === true };
  } catch {
    return undefined;
  }
}

/** Another data folder, as each door gives one (said.ts). */
const ANOTHER_FOLDER = byDoor('use --data-dir for another folder', 'start the app on another data folder (NPS_DATA_DIR)');

/**
 * One line saying who holds the folder, for a second service (or the desktop app) refused: the
 * service running there and its address, or the process using it. A service that is starting
 * writes api.json within a moment: it is waited for, up to `waitMs`, to be named.
 */
export async function busyMessage(dataDir: string, holder: FolderBusy, waitMs = 5000): Promise<string> {
  const until = Date.now() + waitMs;
  for (;;) {
    const service = await findService(dataDir);
    if (service)
      return `a service already runs on ${dataDir}: ${service.origin}/nps (process ${service.pid}); stop it first, or ${ANOTHER_FOLDER}`;
    if (Date.now() >= until) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const pid = lockHolder(join(dataDir, LOCK_FILE)) ?? holder.pid;
  return `another NPS Reconcile process${pid !== undefined ? ` (process ${pid})` : ''} is using ${dataDir} (a command that is still running, or a service that has not started to listen); wait for it to end, or ${ANOTHER_FOLDER}`;
}

/** Write a file readable by this user only, whole or not at all (a reader never sees half of it). */
export function writePrivate(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  if (tightenable) chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/** Remove a file only if it still holds what this process wrote there. */
function removeIfOurs(file: string, text: string): void {
  try {
    if (readFileSync(file, 'utf8') === text) rmSync(file, { force: true });
  } catch {
    // Gone already.
  }
}

export interface Published {
  /** Remove api.json and local.token, only if they are still the ones written here. */
  remove(): void;
}

/** Say where the service listens (api.json) and give the command line its key (local.token), both 0600. */
export function publishService(dataDir: string, where: { baseUrl: string; host: string; port: number }, token: string): Published {
  const tokenText = `${token}\n`;
  const discoveryText =
    JSON.stringify(
      { base_url: where.baseUrl, host: where.host, port: where.port, pid: process.pid, started_at: new Date().toISOString() },
      null,
      2,
    ) + '\n';
  const tokenFile = join(dataDir, LOCAL_TOKEN_FILE);
  const discovery = join(dataDir, DISCOVERY_FILE);
  writePrivate(tokenFile, tokenText);
  writePrivate(discovery, discoveryText);
  return {
    remove: () => {
      removeIfOurs(discovery, discoveryText);
      removeIfOurs(tokenFile, tokenText);
    },
  };
}
