import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { LedgerRecord } from '../../../shared/ledger';
import type { Db } from '../db/open';
import { nativeBindingOf } from '../db/open';
import { ledgerNames, recordOfStoredRow, storedKeys, type LookupColumn } from '../db/record-sql';
import { recordsWhereIn } from '../reconcile/repository';
import type { CloseRequest, LookupInit, LookupReply, LookupRequest } from './lookup-worker';
import { workerModule } from './threads';

/*
 * Record lookups of a verification batch, and the lookup thread (lookup-worker.ts, its own
 * connection) beside the service's thread. A batch is looked up on the service's thread: that
 * costs the least CPU time. While other verifications wait for the service's thread (under a
 * burst), a large batch is shared: the service's thread looks up the first part of each
 * identifier list while the lookup thread looks up the rest, so the service's thread is free for
 * the waiting ones sooner, on a second core, for about a tenth more CPU time in all (the thread
 * writes its records as JSON and the service's thread reads them back). The parts are sized so
 * both threads finish together: each side's time per value is measured batch by batch (the
 * thread's, from posting its part to its answer, is higher). The thread starts when the API starts
 * listening or with the first large batch, and lives as long as the service; until it is up, or
 * if it ever fails, every lookup runs on the service's thread, with the same results.
 *
 * While it is up, the thread also copies the write-ahead log into the database (a checkpoint: two
 * fsyncs), so that the service's thread never waits on one. The log starts over from its beginning
 * only at a write that finds it all copied; a checkpoint beside a steady stream of verifications
 * never caught up with it, the log grew past RELIEVED_AUTOCHECKPOINT, and from then on SQLite's
 * automatic checkpoint ran on the service's thread after every commit, fsyncs and all (2,600 waits
 * on the disk in 8 s of bench:verify, 20-120 ms of its slowest requests). So: the thread
 * checkpoints once the log holds CHECKPOINT_BUSY_PAGES frames with some not yet copied, and catches
 * up with what was committed meanwhile (lookup-worker.ts) so that the next write starts the log
 * over; and once the service has written nothing for CHECKPOINT_IDLE_MS. SQLite's automatic
 * checkpoint stays behind as a bound. A checkpoint moves committed pages from one file to the
 * other: what a write answered as stored is in the log from its commit on, whenever it comes.
 */

/** Below this many values in a batch, the thread's round trip costs more than it saves. */
export const SPLIT_MIN_VALUES = 64;

/** A checkpoint on the thread once the service has written nothing for this long. */
export const CHECKPOINT_IDLE_MS = 250;
/**
 * Frames (pages) in the log at which the thread checkpoints while writes go on (64 MB of 4 KiB
 * pages; a verification of 1,000 claims adds about 300, so one in some fifty under a steady
 * stream). At 4,096 frames it checkpointed four times as often, a page written again in between
 * copied each time: the service's CPU a request 0.03-0.05 more of the floor's (bench:verify).
 */
const CHECKPOINT_BUSY_PAGES = 16_384;
/** Where the log's size cannot be read (walIndex): within a stream of writes, a checkpoint every this often. */
export const CHECKPOINT_EVERY_MS = 1000;
/** The service's own automatic checkpoint, in pages of log, while the thread does them; SQLite's default is 1000. */
const RELIEVED_AUTOCHECKPOINT = 40_000;
const DEFAULT_AUTOCHECKPOINT = 1000;
/** How long closing the service waits for the thread to close its connection. */
const CLOSE_WAIT_MS = 2000;

/** A wait for the thread's answer longer than a turn of the event loop: the thread was the slower side. */
const WAIT_NOTICED_MS = 0.3;
/** Weight of the latest batch in the running estimates of each side's time per value. */
const RATE_WEIGHT = 0.2;

export type Wanted = Record<LookupColumn, readonly string[]>;
export type Found = Record<LookupColumn, LedgerRecord[]>;
type ThreadAnswer = Omit<Extract<LookupReply, { rows: string[] }>, 'id'>;

export class RecordLookups {
  private worker: Worker | undefined;
  /** The thread from its creation on (ready or not), with the flag it sets once its connection is closed. */
  private spawned: { worker: Worker; closed: Int32Array } | undefined;
  private starting: Promise<void> | undefined;
  private failed = false;
  private closed = false;
  private nextId = 1;
  private checkpointing = false;
  private lastCheckpoint = -Infinity;
  private lastWrite = -Infinity;
  private idleTimer: NodeJS.Timeout | undefined;
  /** The store's shared-memory file (the log's index), read for the log's size; opened with the thread. */
  private shm: number | undefined;
  private readonly pending = new Map<number, { resolve: (reply: ThreadAnswer) => void; reject: (err: Error) => void }>();
  /** Running estimates of milliseconds a value: here (query and values), on the thread (query and JSON). */
  private readonly msPerValue = { here: 0.006, thread: 0.008 };

  /**
   * The part of a batch's values the thread takes, so that both sides finish together (reading
   * the thread's JSON afterwards costs this thread less than a fifth of looking the values up).
   */
  get threadShare(): number {
    const { here, thread } = this.msPerValue;
    return Math.min(0.9, Math.max(0.1, here / (here + thread)));
  }

  /**
   * `db`: the service's connection; a store in memory cannot be shared, so it never splits.
   * `busyPages`: CHECKPOINT_BUSY_PAGES unless a test wants a smaller log.
   */
  constructor(
    private readonly db: Db,
    private readonly busyPages = CHECKPOINT_BUSY_PAGES,
  ) {}

  /**
   * Records of each column holding one of its values (each list's values distinct). `contended`:
   * other verifications wait for this thread; only then does a large batch share its lookups with
   * the lookup thread. The hand-off costs CPU time (the thread writes its records as JSON, this
   * thread reads them back: a tenth more in all), spent to let this thread go on to the waiting
   * work sooner; with nothing waiting, the lookups cost least here.
   */
  async find(wanted: Wanted, contended = false): Promise<Found> {
    const total = wanted.transaction_id.length + wanted.hash.length + wanted.request_id.length;
    const worker = total >= SPLIT_MIN_VALUES ? this.thread() : undefined;
    // A thread busy with a checkpoint (waiting on the disk) would answer late: look up here.
    if (!worker || !contended || this.checkpointing) return this.local(wanted);
    const mine: Record<LookupColumn, readonly string[]> = { transaction_id: [], hash: [], request_id: [] };
    const theirs: [LookupColumn, string, string][] = [];
    const share = this.threadShare;
    let theirCount = 0;
    for (const column of COLUMNS) {
      const values = wanted[column];
      const cut = Math.round(values.length * (1 - share));
      mine[column] = values.slice(0, cut);
      if (cut < values.length) {
        theirs.push([column, ...storedKeys(column, values.slice(cut))]);
        theirCount += values.length - cut;
      }
    }
    const remote = this.ask(worker, theirs);
    // Handled below; until then, a failure must not count as unhandled.
    remote.catch(() => undefined);
    const start = performance.now();
    const found = this.local(mine);
    const here = performance.now() - start;
    this.learn('here', here, total - theirCount);
    let reply: ThreadAnswer;
    try {
      reply = await remote;
    } catch {
      // The thread failed: look up its part here, as if it had never started.
      const rest = this.local(Object.fromEntries(COLUMNS.map((c) => [c, wanted[c].slice(mine[c].length)])) as Partial<Wanted>);
      for (const column of COLUMNS) found[column].push(...rest[column]);
      return found;
    }
    const waited = performance.now() - start - here;
    this.split = theirCount;
    const name = ledgerNames(this.db.$client);
    theirs.forEach(([column], i) => {
      for (const row of JSON.parse(reply.rows[i]!) as unknown[][]) found[column].push(recordOfStoredRow(row, name));
    });
    // When this thread had to wait, the thread's whole round trip (posting, waking, its JSON) is
    // known: learn that; else at least its queries' time. The share settles where neither waits.
    this.learn('thread', waited > WAIT_NOTICED_MS ? here + waited : reply.ms, theirCount);
    return found;
  }

  /** Values the lookup thread took of the last batch it shared (tests and diagnostics). */
  split = 0;

  private learn(side: keyof RecordLookups['msPerValue'], ms: number, values: number): void {
    if (values > 0) this.msPerValue[side] += RATE_WEIGHT * (ms / values - this.msPerValue[side]);
  }

  /**
   * After a write of the service: a checkpoint on the thread at once if the log has grown past
   * the busy bound, else once the service has been idle for CHECKPOINT_IDLE_MS.
   */
  afterWrite(): void {
    this.lastWrite = performance.now();
    if (!this.worker) return;
    if (!this.checkpointing) {
      const log = walIndex(this.shm);
      const due =
        log === undefined ? this.lastWrite - this.lastCheckpoint >= CHECKPOINT_EVERY_MS : log.frames >= this.busyPages && log.pending > 0;
      if (due) return this.checkpoint();
    }
    // One timer for all writes, pushed back by each: no allocation a write.
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => this.whenIdle(), CHECKPOINT_IDLE_MS);
      this.idleTimer.unref();
    }
  }

  /** No write for CHECKPOINT_IDLE_MS: checkpoint if the log holds pages not yet in the database. */
  private whenIdle(): void {
    if (!this.worker || this.checkpointing) return;
    if (walIndex(this.shm)?.pending === 0) return;
    this.checkpoint();
  }

  private checkpoint(): void {
    const worker = this.worker;
    if (!worker) return;
    this.checkpointing = true;
    const started = performance.now();
    this.ask(worker, [], true)
      .catch(() => undefined)
      .finally(() => {
        this.checkpointing = false;
        this.lastCheckpoint = performance.now();
        this.checkpoints++;
        // Writes during the checkpoint may not all be in it: once idle, another.
        if (this.lastWrite > started) this.idleTimer?.refresh();
      });
  }

  /** Checkpoints the thread has run (tests and diagnostics). */
  checkpoints = 0;

  /**
   * Start the thread now rather than with the first large batch (the API does, when it starts
   * listening). Resolves true once it answers, false when lookups stay on this thread.
   */
  async ready(): Promise<boolean> {
    this.thread();
    await this.starting;
    return this.worker !== undefined;
  }

  /**
   * End the thread (the service is closing). Waits, at most CLOSE_WAIT_MS, until the thread's
   * connection is closed, so that the service's own connection closes last, as the only one
   * left (it then folds the log into the database and removes it, as SQLite does).
   */
  close(): void {
    this.closed = true;
    this.lost();
    this.releaseShm();
    this.rejectAll(new Error('the service closed'));
    const spawned = this.spawned;
    this.spawned = undefined;
    if (!spawned) return;
    spawned.worker.postMessage({ close: true } satisfies CloseRequest);
    let outcome: string;
    try {
      outcome = Atomics.wait(spawned.closed, 0, 0, CLOSE_WAIT_MS);
    } catch {
      // A thread that may not block (a browser-like main thread): the lookup thread closes its
      // connection and ends on its own, a moment later.
      return;
    }
    // Closed, the thread ends on its own; stuck (a query past the wait), it is stopped.
    if (outcome === 'timed-out') void spawned.worker.terminate();
  }

  private local(wanted: Partial<Wanted>): Found {
    return {
      transaction_id: recordsWhereIn(this.db, 'transaction_id', wanted.transaction_id ?? []),
      hash: recordsWhereIn(this.db, 'hash', wanted.hash ?? []),
      request_id: recordsWhereIn(this.db, 'request_id', wanted.request_id ?? []),
    };
  }

  private ask(worker: Worker, queries: [LookupColumn, string, string][], checkpoint = false): Promise<ThreadAnswer> {
    if (queries.length === 0 && !checkpoint) return Promise.resolve({ rows: [], ms: 0 });
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.track(worker, id, resolve, reject);
      worker.postMessage({ id, queries, checkpoint } satisfies LookupRequest);
    });
  }

  /** While an answer is awaited, the thread keeps the process alive (a CLI run awaiting it must not exit). */
  private track(worker: Worker, id: number, resolve: (reply: ThreadAnswer) => void, reject: (err: Error) => void): void {
    if (this.pending.size === 0) worker.ref();
    const settle = () => {
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
    };
    this.pending.set(id, {
      resolve: (reply) => {
        settle();
        resolve(reply);
      },
      reject: (err) => {
        settle();
        reject(err);
      },
    });
  }

  /** The thread when it is up; otherwise start it (once) and answer undefined meanwhile. */
  private thread(): Worker | undefined {
    if (this.worker || this.failed || this.closed || this.starting) return this.worker;
    const file = this.db.$client.name;
    if (this.db.$client.memory || file === '') {
      this.failed = true;
      return undefined;
    }
    const closed = new SharedArrayBuffer(4);
    this.starting = this.start({ file, nativeBinding: nativeBindingOf(this.db.$client), closed }).finally(
      () => (this.starting = undefined),
    );
    return undefined;
  }

  private async start(init: LookupInit): Promise<void> {
    try {
      const worker = new Worker(workerModule('lookup-worker'), { workerData: init, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
      this.spawned = { worker, closed: new Int32Array(init.closed) };
      // An idle lookup thread never keeps the process alive.
      worker.unref();
      worker.on('message', (m: LookupReply) => {
        const p = this.pending.get(m.id);
        if ('error' in m) p?.reject(new Error(m.error));
        else p?.resolve(m);
      });
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', () => this.fail(new Error('the lookup thread ended')));
      // Ready when it answers: until then the service's thread does every lookup.
      await new Promise<void>((resolve, reject) => {
        const id = this.nextId++;
        this.track(worker, id, () => resolve(), reject);
        worker.postMessage({ id, queries: [] } satisfies LookupRequest);
      });
      if (!this.closed) {
        this.worker = worker;
        // Kept until the service closes, even if the thread is lost (releaseShm says why).
        this.shm ??= openShm(init.file);
        this.db.$client.pragma(`wal_autocheckpoint = ${RELIEVED_AUTOCHECKPOINT}`);
      }
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private fail(err: Error): void {
    this.failed = true;
    this.lost();
    this.rejectAll(err);
  }

  /** The thread is gone: the service's thread checkpoints by itself again. */
  private lost(): void {
    if (this.worker && this.db.$client.open) this.db.$client.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
    this.worker = undefined;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /**
   * Let the log's index file go, only once the service's connection has closed (openService closes
   * it right after the engine): a POSIX lock belongs to the process, and closing any descriptor of
   * a file drops every lock the process holds on it, SQLite's own on the index included; another
   * process opening the store would then take the index for unused and rebuild it under this one.
   * A connection still open (a test's lookups closed beside its service) keeps the descriptor.
   */
  private releaseShm(): void {
    const fd = this.shm;
    this.shm = undefined;
    if (fd === undefined) return;
    setImmediate(() => {
      if (!this.db.$client.open) closeSync(fd);
    });
  }

  private rejectAll(err: Error): void {
    for (const p of [...this.pending.values()]) p.reject(err);
  }
}

const COLUMNS: readonly LookupColumn[] = ['transaction_id', 'hash', 'request_id'];

function openShm(file: string): number | undefined {
  try {
    return openSync(`${file}-shm`, 'r');
  } catch {
    return undefined;
  }
}

/** SQLite's version number of the WAL-index format, the first field of its header. */
const WAL_INDEX_VERSION = 3007000;
const header = Buffer.alloc(100);
const littleEndian = endianness() === 'LE';

/**
 * The log's committed frames (pages), and of them those not yet copied into the database, from
 * the WAL-index header at the start of the store's -shm file (SQLite's documented format,
 * sqlite.org/walformat.html, in the host's byte order): mxFrame (offset 16), the log's last
 * committed frame, and nBackfill (offset 96), the frames checkpoints have copied. Reading it takes
 * no lock and touches no disk (the file is in the page cache, mapped by every connection); a value
 * read while a writer changes it is off by one transaction at most, which only moves a checkpoint
 * by one write. Undefined when the file cannot be read or is not of that format.
 */
function walIndex(fd: number | undefined): { frames: number; pending: number } | undefined {
  if (fd === undefined) return undefined;
  try {
    if (readSync(fd, header, 0, 100, 0) < 100) return undefined;
  } catch {
    return undefined;
  }
  const u32 = (at: number) => (littleEndian ? header.readUInt32LE(at) : header.readUInt32BE(at));
  if (u32(0) !== WAL_INDEX_VERSION) return undefined;
  const frames = u32(16);
  return { frames, pending: Math.max(0, frames - u32(96)) };
}
