import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
import { ServiceError, storeFailure } from '../service/errors';
import { answerFor, sayFor } from '../service/said';
import { openService, type Service } from '../service/index';
import { defaultDataDir } from '../service/paths';
import { remoteInvoker, runningService, type Invoker } from './running';

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
 * is not opened a second time; otherwise the store is opened here. A store that cannot be used, at
 * open or during the command (read-only, full, locked, damaged…), comes out as a ServiceError of one
 * line naming the file (storeFailure), which describeError prints as such.
 */
export function withService<T>(dataDir: string | undefined, fn: (service: Invoker) => T | Promise<T>): Promise<T> {
  const dir = dataDir ?? defaultDataDir();
  const running = runningService(dir);
  if (running) return Promise.resolve().then(() => fn(saidOnCli(remoteInvoker(running))));
  const service: Service = openService({ dataDir: dir, onUpgrade: sayUpgrade });
  return Promise.resolve()
    .then(() => fn(service))
    .catch((err: unknown) => {
      throw storeFailure(err, service.ctx.db.$client.name) ?? err;
    })
    .finally(() => service.close());
}
