import pino, { type Logger } from 'pino';
import { join } from 'node:path';
import { RollingFile } from './log-file';

/*
 * The service's log: pino (Fastify's own logger), one JSON line per event, to a file in the data
 * folder that rolls over by size and keeps the last few. Lines name what happened and its cause,
 * never a request's body, signature or any secret.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where the log files are, inside the data folder: nps.1.log, nps.2.log, … (the highest is the newest). */
const LOG_DIR = 'logs';
/** A file's size at most: 10 MiB. */
export const LOG_FILE_BYTES = 10 * 1024 * 1024;
/** Files kept besides the one being written. */
const KEPT_FILES = 4;
/**
 * Lines waiting for the disk at most: past it they are dropped and counted. Room for a burst while
 * the system holds writes back (it throttles a process writing while much is waiting to reach the
 * disk), not for a disk that takes nothing: memory stays within this whatever comes.
 */
const PENDING_BYTES = 16 * 1024 * 1024;

/** Where the data folder's log is, as a message that sends the user there says it: "the log in <folder>". */
export const logPlaceIn = (dataDir: string): string => `the log in ${join(dataDir, LOG_DIR)}`;

/** A log that writes nothing (tests, and callers that keep no log). */
export const silentLog: Logger = pino({ level: 'silent' });

/** Open the data folder's log at `level` (info by default). */
export async function openLog(dataDir: string, level: LogLevel = 'info'): Promise<Logger> {
  if (level === 'silent') return silentLog;
  // A folder the log cannot be made in is this call's error (the caller says so and runs without
  // a log). A write that fails later (a full disk, the folder removed) must not end the service:
  // it is said once on stderr, and the lines are dropped and counted until writing works again.
  const file = new RollingFile({
    dir: join(dataDir, LOG_DIR),
    limitBytes: LOG_FILE_BYTES,
    keep: KEPT_FILES,
    maxPendingBytes: PENDING_BYTES,
    onFirstFailure: (err, path) =>
      process.stderr.write(
        `log: cannot write ${path}: ${err.message}; the service goes on, dropping log lines and counting them until it can\n`,
      ),
  });
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, new LineBatch(file));
}

/** How long a line may wait in memory before it is written, and how much may wait. */
const BATCH_MS = 200;
const BATCH_CHARS = 64 * 1024;
/** A line at error or above is written at once, with what waits before it. */
const ERROR_LEVEL = pino.levels.values.error!;

/**
 * The log's lines gathered in memory and handed to the file (log-file.ts) together: every 200 ms,
 * or when 64 KiB wait, or at once for an error. A line per request is then an array push, and the
 * file gets one write for hundreds of lines (bench/log-lines.ts measures the cost of a line).
 * Lines keep their order: pino's own lines come through here too. What waits is written by
 * flushLog (serve and the app call it when they stop); a process killed outright loses at most
 * the last 200 ms.
 */
class LineBatch {
  /** Set by pino before each of its own lines (the metadata it gives streams that ask for it). */
  lastLevel = 0;
  private pending: string[] = [];
  private chars = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly file: RollingFile) {
    (this as unknown as Record<symbol, boolean>)[pino.symbols.needsMetadataGsym] = true;
  }

  /** A line from pino (its level in lastLevel). */
  write(line: string): boolean {
    this.append(line);
    if (this.lastLevel >= ERROR_LEVEL) this.drain();
    return true;
  }

  /** A line that is not an error (the request line), without pino. */
  append(line: string): void {
    this.pending.push(line);
    this.chars += line.length;
    if (this.chars >= BATCH_CHARS) this.drain();
    else if (this.timer === undefined) {
      this.timer = setTimeout(this.drain, BATCH_MS);
      this.timer.unref();
    }
  }

  /** Hand what waits to the file's stream. */
  readonly drain = (): void => {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.chars = 0;
    this.file.write(text);
  };

  flush(cb: (err?: Error | null) => void): void {
    this.drain();
    this.file.flush(() => cb());
  }

  end(): void {
    this.drain();
    this.file.end();
  }
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
  // The data folder's log takes the line without pino's metadata (it is never an error).
  const write = stream instanceof LineBatch ? (line: string) => stream.append(line) : (line: string) => stream.write(line);
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
    write(`${head}${time}${pid}${f.method}","path":${JSON.stringify(f.path)},"status":${f.status},"ms":${f.ms}${key}}\n`);
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
