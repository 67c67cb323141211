import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
import { ErrorCodes } from '../../shared/errors';
import { findService, isBusy, takeDataFolder, type FolderBusy, type FolderLock } from '../service/data-folder';
import { ServiceError, storeFailure } from '../service/errors';
import { openService, type Service } from '../service/index';
import { defaultDataDir } from '../service/paths';
import { remoteInvoker, type Invoker } from './running';

export const dataDirOption = { 'data-dir': { type: 'string' } } as const;

/** Parse a command's flags strictly: an unknown flag is an error naming it. */
export function parseFlags<T extends Options>(
  args: string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  return parseArgs({ args, options, allowPositionals: true, strict: true });
}

/** Said on stderr before a store made by an earlier version is brought up to date (once; seconds for a large ledger). */
export const sayUpgrade = (pending: string[]): void => {
  process.stderr.write(`Bringing the data store up to date (${pending.join(', ')}): once, and a few seconds a million ledger records…\n`);
};

/**
 * Run fn with the data directory's service. One data folder has one writer: when a service already
 * runs on the folder (the desktop app, or `serve`), fn's calls go to it (running.ts) and the store
 * is not opened a second time; otherwise the store is opened here, holding the folder's lock
 * (data-folder.ts) for the command's length. Another command holding it is waited for, saying so
 * once. A store that cannot be used, at open or during the command (read-only, full, locked,
 * damaged…), comes out as a ServiceError of one line naming the file (storeFailure), which
 * describeError prints as such.
 */
export async function withService<T>(dataDir: string | undefined, fn: (service: Invoker) => T | Promise<T>): Promise<T> {
  const dir = dataDir ?? defaultDataDir();
  let waiting = false;
  for (;;) {
    let taken: FolderLock | FolderBusy;
    try {
      taken = takeDataFolder(dir);
    } catch (err) {
      throw new ServiceError(
        ErrorCodes.STORE_UNAVAILABLE,
        `the data folder ${dir} cannot be created (${(err as Error).message}); point --data-dir elsewhere`,
      );
    }
    if (!isBusy(taken)) {
      const lock = taken;
      try {
        const service: Service = openService({ dataDir: dir, onUpgrade: sayUpgrade, own: dir === defaultDataDir(), onWarning: sayWarning });
        return await Promise.resolve()
          .then(() => fn(service))
          .catch((err: unknown) => {
            throw storeFailure(err, service.ctx.db.$client.name) ?? err;
          })
          .finally(() => service.close());
      } finally {
        lock.release();
      }
    }
    const running = await findService(dir);
    if (running) return fn(remoteInvoker(running));
    if (!waiting) {
      waiting = true;
      process.stderr.write(
        `waiting: another NPS Reconcile process${taken.pid !== undefined ? ` (process ${taken.pid})` : ''} is using ${dir} (a command still running, or a service starting)…\n`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Said on stderr: a data folder other users can read, that could not be made private. */
export const sayWarning = (line: string): void => {
  process.stderr.write(`warning: ${line}\n`);
};
