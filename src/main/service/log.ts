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

/** What one request's line says. */
export interface RequestFields {
  method: string;
  path: string;
  status: number;
  ms: number;
  key?: string;
}

/**
 * The writer of the per-request line, or undefined when the log keeps no info lines. Every
 * request passes here (a catalogue answer takes tens of microseconds), so the line is built as
 * text in the shape pino gives its own lines (level, time, pid, then the fields) and handed to the
 * log's stream as it is, without pino's serializing of an object per call; the time's text is
 * made once per millisecond.
 */
export function requestLogger(logger: Logger): ((f: RequestFields) => void) | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  const stream = (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym]!;
  const head = `{"level":${logger.levels.values.info},"time":"`;
  const pid = `","pid":${process.pid},"method":"`;
  let lastMs = -1;
  let time = '';
  return (f) => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      time = new Date(now).toISOString();
    }
    // The method is one of the HTTP parser's known tokens; the path and the key's label are escaped.
    const key = f.key === undefined ? '' : `,"key":${JSON.stringify(f.key)}`;
    stream.write(`${head}${time}${pid}${f.method}","path":${JSON.stringify(f.path)},"status":${f.status},"ms":${f.ms}${key}}\n`);
  };
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
