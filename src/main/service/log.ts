import pino, { type Logger } from 'pino';
import roll from 'pino-roll';
import { join } from 'node:path';

/*
 * The service's log: pino (Fastify's own logger), one JSON line per event, to a file in the data
 * folder that rolls over by size and keeps the last few. Lines name what happened and its cause,
 * never a request's body, signature or any secret.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where the log files are, inside the data folder: nps.1.log, nps.2.log, … (the highest is the newest). */
const LOG_DIR = 'logs';
const ROLL_SIZE = '10m';
/** Files kept besides the one being written. */
const KEPT_FILES = 4;

/** A log that writes nothing (tests, and callers that keep no log). */
export const silentLog: Logger = pino({ level: 'silent' });

/** Open the data folder's log at `level` (info by default). */
export async function openLog(dataDir: string, level: LogLevel = 'info'): Promise<Logger> {
  if (level === 'silent') return silentLog;
  const stream = await roll({
    file: join(dataDir, LOG_DIR, 'nps'),
    extension: '.log',
    size: ROLL_SIZE,
    limit: { count: KEPT_FILES },
    mkdir: true,
    // Lines are written 4 KB at a time rather than one write each: a line per request is then a
    // small part of a request's cost. What is buffered is written on close (flushLog), and lost
    // only if the process is killed outright.
    minLength: 4096,
  });
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, stream);
}

/** Write what the log still buffers (before the process exits). */
export function flushLog(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}

/** A failure as fields of a log line: its kind, message, code and cause, without the stack of a known refusal. */
export function failureFields(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { error: String(err) };
  const code = (err as { code?: unknown }).code;
  return {
    error: err.message,
    kind: err.name,
    ...(code !== undefined ? { code } : {}),
    ...(err.cause !== undefined ? { cause: err.cause instanceof Error ? err.cause.message : String(err.cause) } : {}),
    ...(err.name === 'ServiceError' ? {} : { stack: err.stack }),
  };
}
