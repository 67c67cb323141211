import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
import { openService, type Service } from '../service/index';
import { defaultDataDir } from '../service/paths';
import { ServiceError } from '../service/errors';

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

export function withService<T>(dataDir: string | undefined, fn: (service: Service) => T | Promise<T>): Promise<T> {
  const service = openService({ dataDir: dataDir ?? defaultDataDir(), onUpgrade: sayUpgrade });
  return Promise.resolve()
    .then(() => fn(service))
    .finally(() => service.close());
}

/** A failure the user caused: print it in one line and exit non-zero; no stack trace. */
export class UsageError extends Error {}

export function describeError(err: unknown): string {
  if (err instanceof ServiceError) return `error ${err.code}: ${err.message}`;
  if (err instanceof UsageError) return err.message;
  if (err instanceof Error && 'code' in err && String((err as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) return err.message;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
