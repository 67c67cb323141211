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
/** Lines are gathered up to this many characters, or this long, before they go to the file's stream. */
const BATCH_CHARS = 16 * 1024;
const BATCH_MS = 250;

interface FileStream {
  write(chunk: string): unknown;
  /** sonic-boom has it (pino-roll's types do not say so). */
  flush?(cb: (err?: Error | null) => void): void;
}

/**
 * The log's lines gathered in memory and handed to the file's stream (pino-roll's sonic-boom) a
 * batch at a time. sonic-boom's own write costs about 3 µs a line on the development machine,
 * whatever its minLength, against about 50 µs for a whole catalogue answer: a line per request
 * made the catalogue's path 20-40% dearer in CPU (bench:catalogue -- --log-level silent,info).
 * Gathered, that cost is paid once per batch. A line at level error or above is passed on at
 * once with what is gathered before it; the rest waits at most BATCH_MS, and is lost only if the
 * process is killed outright within that time.
 */
class BatchedLines {
  private parts: string[] = [];
  private chars = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly file: FileStream) {
    this.timer = setInterval(() => this.pass(), BATCH_MS);
    this.timer.unref();
  }

  write(line: string): boolean {
    this.parts.push(line);
    this.chars += line.length;
    if (this.chars >= BATCH_CHARS || isErrorLine(line)) this.pass();
    return true;
  }

  /** pino's logger.flush(cb) lands here: what is gathered goes to the file, then the file's stream is flushed. */
  flush(cb: (err?: Error | null) => void): void {
    this.pass();
    if (this.file.flush) this.file.flush(cb);
    else cb();
  }

  private pass(): void {
    if (this.parts.length === 0) return;
    const batch = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    this.parts = [];
    this.chars = 0;
    this.file.write(batch);
  }
}

/** pino's lines start with {"level":N: error is 50, fatal 60. */
const isErrorLine = (line: string): boolean => line.startsWith('{"level":') && line.charCodeAt(9) >= 53; /* '5' */

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
    // Each batch is written at once (BatchedLines gathers them); with no minLength at all, sonic-boom's
    // flush would not wait for a write in progress.
    minLength: 1,
  });
  // What is gathered is written on close (flushLog), and lost only if the process is killed outright.
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, new BatchedLines(stream));
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
