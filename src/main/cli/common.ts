import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
import { ErrorCodes } from '../../shared/errors';
import { findService, isBusy, takeDataFolder, type FolderBusy, type FolderLock } from '../service/data-folder';
import { ServiceError, storeFailure } from '../service/errors';
import { answerFor, sayFor } from '../service/said';
import { openService, type Service } from '../service/index';
import { defaultDataDir } from '../service/paths';
import { UsageError } from './errors';
import { remoteInvoker, type Invoker } from './running';
import { unknownName } from './suggest';

export const dataDirOption = { 'data-dir': { type: 'string' } } as const;

/**
 * The data folder a command works on, as an absolute path: --data-dir, else NPS_DATA_DIR, else the
 * desktop app's own folder; a relative one is taken from the folder the command runs in (under
 * npm, the checkout). Absolute before anything uses it: api.json, the lock and the log name it,
 * and `npm start` hands it to Electron, which refuses a relative one.
 */
export function dataDirFrom(flag: string | undefined): string {
  if (flag !== undefined && flag.trim() === '') throw new UsageError('--data-dir: must name a folder, got an empty value');
  return resolve(flag ?? defaultDataDir());
}

/**
 * Parse a command's flags strictly. A flag the command lacks is named with the closest one it has
 * (exit 2), and a flag without its value says how to give one: one line each, in the CLI's words
 * rather than the parser's.
 */
export function parseFlags<T extends Options>(
  args: string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const message = (err as Error).message;
    const flag = /^(?:Unknown option|Option) '(-[^' ]+)/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) {
      // `-abc` is read as -a, -b, -c: name what was typed, not the parser's first letter.
      const typed = args.find((a) => a === flag || a.startsWith(`${flag}=`) || (!a.startsWith('--') && a.startsWith(flag))) ?? flag;
      const given = typed.split('=')[0]!;
      const known = Object.keys(options).map((o) => `--${o}`);
      throw unknownName('option', given, known, ' (add --help to see the options)');
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag !== undefined) {
      if (message.includes('does not take an argument')) throw new UsageError(`${flag}: takes no value (give ${flag} alone)`);
      if (message.includes('ambiguous'))
        throw new UsageError(`${flag}: needs a value; for a value that starts with "-", write ${flag}=VALUE (e.g. ${flag}=-5)`);
      throw new UsageError(`${flag}: needs a value (${flag} VALUE)`);
    }
    throw err;
  }
}

/** Said on stderr before a store made by an earlier version is brought up to date (once; seconds for a large ledger). */
export const sayUpgrade = (pending: string[]): void => {
  process.stderr.write(`Bringing the data store up to date (${pending.join(', ')}): once, and a few seconds a million ledger records…\n`);
};

/**
 * A running service's answers and refusals as the command line says them (service/said.ts): its
 * door answers the handlers' own words; a store opened here says the command line's already.
 */
function saidOnCli(service: Invoker): Invoker {
  return {
    invoke: async (name, input, meta) => {
      try {
        return answerFor(await service.invoke(name, input, meta), 'cli');
      } catch (err) {
        throw err instanceof ServiceError ? new ServiceError(err.code, sayFor(err.message, 'cli')) : err;
      }
    },
  };
}

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
  const dir = dataDirFrom(dataDir);
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
    if (running) return fn(saidOnCli(remoteInvoker(running)));
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
