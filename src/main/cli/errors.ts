import { ServiceError, storeFailure } from '../service/errors';
import { sayFor } from '../service/said';

/** A failure the user caused: print it in one line and exit non-zero; no stack trace. */
export class UsageError extends Error {}

/** What the CLI prints on stderr before it exits 1: one line for every failure the user can act on, a stack only for a bug. */
export function describeError(err: unknown): string {
  if (err instanceof ServiceError) return `error ${err.code}: ${sayFor(err.message, 'cli')}`;
  const store = storeFailure(err);
  if (store) return `error ${store.code}: ${sayFor(store.message, 'cli')}`;
  if (err instanceof UsageError) return err.message;
  if (err instanceof Error && 'code' in err && String((err as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) return err.message;
  // A file the command could not write or read (a full disk, no such folder, not allowed): the system's own sentence names it.
  const sys = err as NodeJS.ErrnoException;
  if (err instanceof Error && typeof sys.code === 'string' && /^E[A-Z0-9]+$/.test(sys.code) && sys.syscall !== undefined)
    return `error: ${err.message}`;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
