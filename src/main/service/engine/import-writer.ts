import type Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';
import { LedgerWriter, type ImportRecord, type WriterOptions, type WriterStats } from '../ledger/import-repository';
import type { FromWorker, ToWorker, WorkerInit } from './import-worker';
import { workerModule } from './threads';

/*
 * Where an import's rows are written. A small file: on the service's own connection, all at once
 * when the file has been read (one synchronous transaction of a few milliseconds). A large one: on
 * a worker thread with its own connection, batch by batch while the file is still being read, so
 * reading and checking on this thread overlaps with writing on the other, and the service's thread
 * is never held by the write. The rows' SQL is the ledger's (ledger/import-repository.ts); this file
 * only decides on which thread it runs.
 */

export interface RowWriter {
  /** A batch of lines (see import-repository.ts). */
  add(text: string): void;
  /** Resolves when the writer takes more (undefined: at once); rejects when the write failed. */
  wait(): Promise<void> | undefined;
  /** Every row is in: what the import did; then keep it (decide returns what to record) or roll it back (null). */
  complete(decide: (stats: WriterStats) => ImportRecord | null): Promise<WriterStats>;
  /** Leave the store as it was (the file failed); after complete, nothing is left to undo and it does nothing. */
  abort(): Promise<void>;
}

/** From this size on, a file is written on a worker thread (starting one costs tens of milliseconds). */
export const WORKER_MIN_BYTES = 1024 * 1024;

export class LocalWriter implements RowWriter {
  private batches: string[] = [];

  constructor(
    private readonly sqlite: Database.Database,
    private readonly opts: Omit<WriterOptions, 'expectedRows'>,
    /** Resolves when no import on a thread holds the write lock: this writer's transaction waits for it. */
    private readonly writable: () => Promise<void>,
  ) {}

  add(text: string): void {
    this.batches.push(text);
  }

  wait(): undefined {
    return undefined;
  }

  async complete(decide: (stats: WriterStats) => ImportRecord | null): Promise<WriterStats> {
    await this.writable();
    const texts = this.batches;
    this.batches = [];
    const expectedRows = texts.reduce((n, t) => n + countLines(t), 0);
    // Synchronous from BEGIN to COMMIT: no other call of the service runs inside the transaction.
    const writer = new LedgerWriter(this.sqlite, { ...this.opts, expectedRows });
    writer.begin();
    try {
      for (const t of texts) writer.add(t);
      const stats = writer.finish();
      const record = decide(stats);
      if (record) writer.commit(record);
      else writer.rollback();
      return stats;
    } catch (err) {
      writer.rollback();
      throw err;
    }
  }

  abort(): Promise<void> {
    this.batches = [];
    return Promise.resolve();
  }
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Batches posted to the thread in one message. A message has a cost of its own on both threads
 * beyond copying its text: a million rows posted one 60 KB batch a message (4,300 of them) took
 * 0.38 s of the reading thread's CPU, eight a message 0.08 s.
 */
const BATCHES_A_MESSAGE = 8;
/** Messages in flight before the reader waits: enough to keep the writer busy, few enough to bound memory (some 2 MB of text). */
const MAX_IN_FLIGHT = 4;

function startWorker(init: WorkerInit): Worker {
  // A small young generation: the thread's garbage is the rows of one batch at a time, and it runs
  // beside the reader's heap at its peak.
  return new Worker(workerModule('import-worker'), { workerData: init, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
}

export class WorkerWriter implements RowWriter {
  private inFlight = 0;
  /** Batches not posted yet: posted BATCHES_A_MESSAGE at a time, and the last ones when every row is in. */
  private batches: string[] = [];
  private failure: Error | undefined;
  private waiting: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private pending: { resolve: (m: FromWorker) => void; reject: (e: Error) => void } | undefined;
  private ended = false;
  /** The import committed: the thread checkpoints, then ends, and only then is the lock given back. */
  private committed = false;
  private released = false;

  /** `release`: gives back the write lock the caller took for this import; called once, when the thread ends. */
  static start(file: string, nativeBinding: string | undefined, opts: WriterOptions, release: () => void): WorkerWriter {
    return new WorkerWriter(startWorker({ file, nativeBinding, writer: opts }), release);
  }

  private constructor(
    private readonly worker: Worker,
    private readonly release: () => void,
  ) {
    this.worker.on('message', (m: FromWorker) => this.onMessage(m));
    this.worker.on('error', (err) => this.onFailure(err));
    this.worker.on('exit', () => {
      this.ended = true;
      this.onFailure(new Error('the import thread ended before the import did'));
      // After a commit, the lock is given back here: once the thread has copied the import out of
      // the write-ahead log (see complete).
      this.giveBack();
    });
  }

  private onMessage(m: FromWorker): void {
    if (m.type === 'ack') {
      this.inFlight--;
      const w = this.waiting;
      this.waiting = undefined;
      w?.resolve();
      return;
    }
    if (m.type === 'begun') return;
    if (m.type === 'error') {
      const err = Object.assign(new Error(m.message), m.code === undefined ? {} : { code: m.code });
      err.name = m.name;
      this.onFailure(err);
      void this.worker.terminate();
      return;
    }
    const p = this.pending;
    this.pending = undefined;
    p?.resolve(m);
  }

  private onFailure(err: Error): void {
    this.failure ??= err;
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(this.failure);
    const p = this.pending;
    this.pending = undefined;
    p?.reject(this.failure);
  }

  private post(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  private request(m: ToWorker): Promise<FromWorker> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.post(m);
    });
  }

  add(text: string): void {
    if (this.failure) return;
    this.batches.push(text);
    if (this.batches.length >= BATCHES_A_MESSAGE) this.postBatches();
  }

  private postBatches(): void {
    if (this.batches.length === 0) return;
    this.inFlight++;
    this.post({ type: 'rows', texts: this.batches });
    this.batches = [];
  }

  wait(): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    if (this.inFlight < MAX_IN_FLIGHT) return undefined;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  async complete(decide: (stats: WriterStats) => ImportRecord | null): Promise<WriterStats> {
    try {
      if (!this.failure) this.postBatches();
      const finished = await this.request({ type: 'finish' });
      if (finished.type !== 'finished') throw new Error(`unexpected ${finished.type} from the import thread`);
      const record = decide(finished.stats);
      await this.request(record ? { type: 'commit', record } : { type: 'rollback' });
      if (record) {
        // Committed and answered. The thread now copies the import from the write-ahead log into
        // the database and ends by itself (it must not keep the process alive); the write lock is
        // held until it has ended. Were the service's connection to write first, its commit would
        // find a log of a million rows and copy it on the service's thread (SQLite's automatic
        // checkpoint): every call stalled behind it, three seconds on CI. Signed verifications do
        // not wait meanwhile (they are deferred); the window's writes wait those seconds longer.
        this.ended = true;
        this.committed = true;
        this.worker.unref();
      }
      return finished.stats;
    } finally {
      await this.end();
    }
  }

  async abort(): Promise<void> {
    this.batches = [];
    try {
      if (!this.ended && !this.failure) await this.request({ type: 'rollback' });
    } finally {
      await this.end();
    }
  }

  /** End the thread (unless it ends by itself after a commit) and give the write lock back, once. */
  private async end(): Promise<void> {
    try {
      if (!this.ended) {
        this.ended = true;
        await this.worker.terminate();
      }
    } finally {
      if (!this.committed) this.giveBack();
    }
  }

  private giveBack(): void {
    if (this.released) return;
    this.released = true;
    this.release();
  }
}
