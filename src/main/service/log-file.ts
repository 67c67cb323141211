import * as nodeFs from 'node:fs';
import { join } from 'node:path';

/*
 * The log's files: nps.1.log, nps.2.log, … in the data folder's logs/, the highest the newest. A
 * file is never written past its limit: a batch that would cross it goes to the next file, and the
 * oldest beyond the kept count is removed then. One write is in flight at a time; what comes
 * meanwhile waits in memory up to a bound, and past it, or while writes fail (a full disk, the
 * folder gone), lines are dropped and counted, never piled up. The first write that succeeds again
 * begins with one line saying how many were lost and why.
 *
 * Hand-written rather than pino-roll: its roll waits for its stream to drain, which a steady flood
 * of requests never lets happen, and one file grew to 131 MB; on a full disk its stream kept every
 * line in memory (125 MB per 100,000 requests) and wrote them all once space came back.
 */

/** The file-system calls the writer makes (node:fs; a test gives a disk that fills). */
export interface LogFs {
  openSync: typeof nodeFs.openSync;
  closeSync: typeof nodeFs.closeSync;
  fstatSync: typeof nodeFs.fstatSync;
  fchmodSync: typeof nodeFs.fchmodSync;
  readdirSync: (dir: string) => string[];
  unlinkSync: typeof nodeFs.unlinkSync;
  mkdirSync: typeof nodeFs.mkdirSync;
  write: (
    fd: number,
    buffer: Buffer,
    offset: number,
    length: number,
    cb: (err: NodeJS.ErrnoException | null, written: number) => void,
  ) => void;
}

const realFs: LogFs = {
  openSync: nodeFs.openSync,
  closeSync: nodeFs.closeSync,
  fstatSync: nodeFs.fstatSync,
  fchmodSync: nodeFs.fchmodSync,
  readdirSync: (dir) => nodeFs.readdirSync(dir),
  unlinkSync: nodeFs.unlinkSync,
  mkdirSync: nodeFs.mkdirSync,
  write: (fd, buffer, offset, length, cb) => nodeFs.write(fd, buffer, offset, length, null, cb),
};

export interface RollingFileOptions {
  /** The folder of the files (made, 0700, when missing). */
  dir: string;
  /** Bytes a file holds at most. */
  limitBytes: number;
  /** Files kept besides the one being written. */
  keep: number;
  /** Bytes waiting for the disk at most; past it, lines are dropped and counted. */
  maxPendingBytes: number;
  /** After a failed write, lines are dropped without trying the disk for this long. */
  retryMs?: number;
  fs?: LogFs;
  /** Told once, at the first failed write of the process (the service says it on stderr). */
  onFirstFailure?: (err: Error, file: string) => void;
}

const FILE_RE = /^nps\.(\d+)\.log$/;
const PRIVATE = 0o600;

const linesIn = (text: string): number => {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

export class RollingFile {
  private readonly fs: LogFs;
  private readonly retryMs: number;
  private fd: number | undefined;
  private number: number;
  private size = 0;
  private queue: string[] = [];
  private queued = 0;
  private writing = false;
  private waiters: (() => void)[] = [];
  /** Lines dropped since the last successful write, and why. */
  private lost = 0;
  private lostCause = '';
  /** Lines dropped over the writer's life. */
  private lostTotal = 0;
  private failedAt = -Infinity;
  /** The file ends inside a line (a write failed part-way): the next write starts a new one. */
  private midLine = false;
  private saidFailure = false;
  private closed = false;

  constructor(private readonly opts: RollingFileOptions) {
    this.fs = opts.fs ?? realFs;
    this.retryMs = opts.retryMs ?? 1000;
    this.fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    this.number = Math.max(1, ...this.numbers());
    this.open();
  }

  /** The file being written. */
  get file(): string {
    return join(this.opts.dir, `nps.${this.number}.log`);
  }

  /** Lines dropped over the writer's life (a full disk, or more waiting than the bound). */
  get droppedLines(): number {
    return this.lostTotal;
  }

  /** Bytes waiting for the disk. */
  get pendingBytes(): number {
    return this.queued;
  }

  /** Hand lines (each ending in a newline) to the file. */
  write(text: string): void {
    if (this.closed) return;
    if (this.queued + text.length > this.opts.maxPendingBytes || (!this.writing && this.resting())) {
      this.drop(text, this.writing ? `more than ${this.opts.maxPendingBytes} bytes of lines waited for the disk` : this.lostCause);
      return;
    }
    this.queue.push(text);
    this.queued += text.length;
    if (!this.writing) this.next();
  }

  /** Call back once everything handed over so far has been written (or dropped). */
  flush(cb: () => void): void {
    if (!this.writing && this.queue.length === 0) queueMicrotask(cb);
    else this.waiters.push(cb);
  }

  /** Write what waits, then close the file. */
  end(cb?: () => void): void {
    this.flush(() => {
      this.closed = true;
      this.closeFd();
      cb?.();
    });
  }

  private numbers(): number[] {
    try {
      return this.fs.readdirSync(this.opts.dir).flatMap((f) => {
        const m = FILE_RE.exec(f);
        return m ? [Number(m[1])] : [];
      });
    } catch {
      return [];
    }
  }

  /** Open the current number's file to append (0600, tightened if it was wider), removing files beyond the kept count. */
  private open(): void {
    const fd = this.fs.openSync(this.file, 'a', PRIVATE);
    try {
      const stat = this.fs.fstatSync(fd);
      if ((stat.mode & 0o077) !== 0) this.fs.fchmodSync(fd, PRIVATE);
      this.size = stat.size;
    } catch (err) {
      this.fs.closeSync(fd);
      throw err;
    }
    this.fd = fd;
    for (const n of this.numbers())
      if (n < this.number - this.opts.keep) {
        try {
          this.fs.unlinkSync(join(this.opts.dir, `nps.${n}.log`));
        } catch {
          // Gone already, or not ours to remove: the next roll tries again.
        }
      }
  }

  private closeFd(): void {
    if (this.fd === undefined) return;
    try {
      this.fs.closeSync(this.fd);
    } catch {
      // Nothing to keep: the lines it held were written or counted.
    }
    this.fd = undefined;
  }

  /** A write failed a moment ago: lines are dropped, not tried, until retryMs has passed. */
  private resting(): boolean {
    return performance.now() - this.failedAt < this.retryMs;
  }

  private drop(text: string, cause: string): void {
    const n = linesIn(text);
    this.lost += n;
    this.lostTotal += n;
    this.lostCause = cause;
  }

  /** The line that says what was lost, written first once writing works again. */
  private lostLine(): string {
    const time = new Date().toISOString();
    const msg = `${this.lost} log line${this.lost === 1 ? ' was' : 's were'} not written (${this.lostCause}); the log goes on from here`;
    return `${JSON.stringify({ level: 40, time, pid: process.pid, event: 'log-lines-lost', lines: this.lost, cause: this.lostCause, msg })}\n`;
  }

  private next(): void {
    if (this.queue.length === 0) {
      this.writing = false;
      for (const cb of this.waiters.splice(0)) cb();
      return;
    }
    this.writing = true;
    // At most a file's worth at once (the head line aside), so that no write crosses the limit.
    let take = 1;
    for (
      let bytes = this.queue[0]!.length;
      take < this.queue.length && bytes + this.queue[take]!.length <= this.opts.limitBytes / 2;
      take++
    )
      bytes += this.queue[take]!.length;
    const lines = take === 1 ? this.queue[0]! : this.queue.slice(0, take).join('');
    this.queue = take === this.queue.length ? [] : this.queue.slice(take);
    this.queued -= lines.length;
    const reported = this.lost;
    const head = Buffer.from((this.midLine ? '\n' : '') + (reported > 0 ? this.lostLine() : ''), 'utf8');
    const buffer = head.length ? Buffer.concat([head, Buffer.from(lines, 'utf8')]) : Buffer.from(lines, 'utf8');
    try {
      // Never past the limit: the batch goes to a new file (a batch larger than a file on its own is written whole).
      if (this.fd === undefined || (this.size > 0 && this.size + buffer.length > this.opts.limitBytes)) this.roll();
    } catch (err) {
      this.failed(err as Error, linesIn(lines));
      return;
    }
    this.writeAll(buffer, 0, head.length, reported);
  }

  private roll(): void {
    if (this.fd !== undefined) {
      this.closeFd();
      this.number++;
    }
    this.open();
  }

  /** Write buffer from offset on; its first headBytes are the line about lost lines (and a line end). */
  private writeAll(buffer: Buffer, offset: number, headBytes: number, reported: number): void {
    this.fs.write(this.fd!, buffer, offset, buffer.length - offset, (err, written) => {
      if (!err) {
        this.size += written;
        if (offset + written < buffer.length) return this.writeAll(buffer, offset + written, headBytes, reported);
        this.midLine = false;
        this.lost -= reported;
        return this.next();
      }
      // Part of the batch may be in the file: the lines not wholly written are the ones lost.
      if (offset > 0) this.midLine = buffer[offset - 1] !== 0x0a;
      const headWritten = offset >= headBytes;
      if (headWritten) this.lost -= reported;
      const unwritten = buffer.subarray(Math.max(offset, headBytes)).toString('utf8');
      this.failed(err, linesIn(unwritten));
    });
  }

  private failed(err: Error, lines: number): void {
    this.failedAt = performance.now();
    if (!this.saidFailure) {
      this.saidFailure = true;
      this.opts.onFirstFailure?.(err, this.file);
    }
    this.lost += lines;
    this.lostTotal += lines;
    this.lostCause = err.message;
    // What waited meanwhile is dropped too: the disk is not tried again until retryMs has passed.
    for (const text of this.queue.splice(0)) this.drop(text, err.message);
    this.queued = 0;
    this.next();
  }
}
