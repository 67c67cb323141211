import type { z } from 'zod';
import { ErrorCodes, httpStatusOf, type ErrorCode } from '../../shared/errors';

/** A failure the caller can act on: a code from SPEC.md's table and a sentence naming the field or rule. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
  }
  get httpStatus(): number {
    return httpStatusOf[this.code];
  }
}

/**
 * SQLite's "database is locked" after the busy timeout: another process (a command-line import
 * beside the app, say) holds the store's write lock. Said as such, not as an unexplained internal
 * error; nothing was written.
 */
export function storeBusy(err: unknown): ServiceError | undefined {
  if ((err as { code?: unknown } | null)?.code !== 'SQLITE_BUSY') return undefined;
  return new ServiceError(
    ErrorCodes.INTERNAL,
    'the store is busy: another program is writing to it (an import from the command line?); nothing was changed, try again when it has finished',
  );
}

export const invalidParam = (field: string, reason: string) => new ServiceError(ErrorCodes.INVALID_PARAM, `${field}: ${reason}`);

/** Path of a zod issue as the caller wrote it: txs[3].amount */
export function fieldPath(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  let out = prefix;
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || '(body)';
}

function firstIssue(error: z.ZodError): { path: ReadonlyArray<PropertyKey>; message: string } {
  const issue = error.issues[0]!;
  // A union's own message ("Invalid input") says nothing; its branches do.
  if (issue.code === 'invalid_union' && issue.errors[0]?.[0]) {
    const inner = issue.errors[0][0];
    return { path: [...issue.path, ...inner.path], message: inner.message };
  }
  if (issue.code === 'unrecognized_keys') return { path: issue.path, message: `unknown field ${issue.keys.join(', ')}` };
  return { path: issue.path, message: issue.message };
}

/** Validate input against the contract; the first problem becomes a 1002 naming the field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const { path, message } = firstIssue(r.error);
  throw invalidParam(fieldPath(path, prefix), message.replace(/^Invalid input: /, ''));
}
