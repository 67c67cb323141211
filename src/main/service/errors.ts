import type { z } from 'zod';
import { ErrorCodes, httpStatusOf, type ErrorCode } from '../../shared/errors';
import { byDoor } from './said';

/** A failure the caller can act on: a code from the error table of docs/api.md and a sentence naming the field or rule. */
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
 * The store files this process has open (openService adds its own, close takes it away), so that a
 * failure SQLite reports without saying where (a nonce written by the /nps door, say) names the
 * file. The desktop app and every CLI command have one; with several open, the message says "the
 * store".
 */
const openStores: string[] = [];

export function rememberStore(file: string): () => void {
  openStores.push(file);
  return () => {
    const at = openStores.indexOf(file);
    if (at >= 0) openStores.splice(at, 1);
  };
}

const theOpenStore = (): string | undefined => (new Set(openStores).size === 1 ? openStores[0] : undefined);

/**
 * What the user reads when SQLite cannot use the store, by the code of better-sqlite3's SqliteError
 * (extended codes such as SQLITE_READONLY_CANTINIT or SQLITE_IOERR_WRITE by their prefix): the
 * file, the cause in SQLite's words, and what to do. One line, never a stack.
 */
/** Another data folder, as each door gives one (service/said.ts). */
const ELSEWHERE = byDoor('point --data-dir elsewhere', 'start the app on another data folder (NPS_DATA_DIR)');

const storeProblems: [prefix: string, say: (file: string, sqlite: string) => string][] = [
  [
    'SQLITE_BUSY',
    (file) =>
      `${file} is busy: another program is writing to it (one that opened the store itself rather than through this service); nothing was changed, try again when it has finished`,
  ],
  [
    'SQLITE_READONLY',
    (file, sqlite) => `${file} is read-only (SQLite says: ${sqlite}); make the file and its folder writable by this user, or ${ELSEWHERE}`,
  ],
  [
    'SQLITE_FULL',
    (file, sqlite) =>
      `${file} cannot grow: the disk (or the store's size limit) is full (SQLite says: ${sqlite}); free some space, then try again`,
  ],
  [
    'SQLITE_CORRUPT',
    (file, sqlite) =>
      `${file} is damaged (SQLite says: ${sqlite}); restore it from a backup, or move it away to start an empty store (this version will not repair or replace it)`,
  ],
  ['SQLITE_NOTADB', (file, sqlite) => `${file} is not an NPS Reconcile store (SQLite says: ${sqlite}); move it away or ${ELSEWHERE}`],
  [
    'SQLITE_CANTOPEN',
    (file, sqlite) =>
      `${file} cannot be opened (SQLite says: ${sqlite}); check that its folder exists and this user may write in it, or ${ELSEWHERE}`,
  ],
  [
    'SQLITE_IOERR',
    (file, sqlite) =>
      `${file} could not be read or written: the disk reported an error (SQLite says: ${sqlite}); check the disk and the file, then try again`,
  ],
];

/**
 * A failure of the store itself (5001 in docs/api.md: locked by another writer, read-only, full, damaged,
 * not a store), said as such, naming the file when it is known; undefined for anything else (a
 * constraint, a bug: those stay internal errors).
 */
export function storeFailure(err: unknown, file = theOpenStore()): ServiceError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const problem = storeProblems.find(([prefix]) => code === prefix || code.startsWith(prefix + '_'));
  if (!problem) return undefined;
  const sqlite = err instanceof Error ? err.message : code;
  return new ServiceError(ErrorCodes.STORE_UNAVAILABLE, problem[1](file ?? 'the store', sqlite));
}

/**
 * The store could not be used (storeFailure, naming the store this process has open), for the doors
 * that catch what a handler threw: the window's (app/call.ts) and the /nps server's. Its name is
 * older than the causes other than a lock.
 */
export function storeBusy(err: unknown): ServiceError | undefined {
  return storeFailure(err);
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
