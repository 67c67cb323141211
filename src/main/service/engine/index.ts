import type { Db } from '../db/open';
import { nativeBindingOf } from '../db/open';
import type { WriterOptions } from '../ledger/import-repository';
import { LocalWriter, WORKER_MIN_BYTES, WorkerWriter, type RowWriter } from './import-writer';
import { RecordLookups, type Found, type Wanted } from './lookups';
import { WriteGate } from './write-gate';

export type { RowWriter } from './import-writer';
export type { Found, Wanted } from './lookups';

/*
 * The engine room: the one place that knows about threads, second connections and the write
 * lock. The domains (catalogue, ledger, reconcile, tickets, keys) call the small interface below
 * and never see a Worker or a gate; README.md beside this file says what runs where, and why.
 */

export interface ImportWriterOptions extends WriterOptions {
  /** The file's size: from `threadMinBytes` on, its rows are written on a thread of their own. */
  bytes: number;
  threadMinBytes?: number;
  /** Rows the file is expected to bring (decides whether indexes are rebuilt rather than kept up to date). */
  expectedRows: number;
}

export class Engine {
  private readonly gate = new WriteGate();
  private readonly lookups: RecordLookups;

  constructor(private readonly db: Db) {
    this.lookups = new RecordLookups(db);
  }

  /**
   * Run a call that may write on the service's connection: once no import holds the write lock
   * (without blocking the thread meanwhile), then let the engine tidy up after it.
   */
  async write<T>(call: () => T | Promise<T>): Promise<T> {
    await this.gate.idle();
    try {
      return await call();
    } finally {
      this.lookups.afterWrite();
    }
  }

  /** Resolves when the service may write on its own connection: no import holds the write lock. */
  writable(): Promise<void> {
    return this.gate.idle();
  }

  /**
   * A read the caller then writes upon, in one step (a verification reads the records, then
   * stores results and tickets): run when no import holds the write lock and, if one took it while
   * the read ran, run again after it, since the import may have changed what was read.
   */
  async settledRead<T>(read: () => Promise<T>): Promise<T> {
    for (;;) {
      await this.gate.idle();
      const result = await read();
      if (!this.gate.busy) return result;
    }
  }

  /** Records of each identifier column holding one of its values; a large batch is read on two threads. */
  findRecords(wanted: Wanted): Promise<Found> {
    return this.lookups.find(wanted);
  }

  /**
   * Where an import's rows go. A large file: a thread with its own connection, which holds the
   * write lock from now until the writer completes or aborts (the service's other writes wait, see
   * `write`). A small one: this thread, in one synchronous transaction at the end.
   */
  async importWriter({ bytes, threadMinBytes = WORKER_MIN_BYTES, ...opts }: ImportWriterOptions): Promise<RowWriter> {
    if (bytes < threadMinBytes) return new LocalWriter(this.db.$client, opts, () => this.gate.idle());
    const release = await this.gate.acquire();
    try {
      return WorkerWriter.start(this.db.$client.name, nativeBindingOf(this.db.$client), opts, release);
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Whether an import holds the write lock now (tests and diagnostics). */
  get importing(): boolean {
    return this.gate.busy;
  }

  /**
   * Start the lookup thread now rather than with the first large batch (the API does, when it
   * starts listening). Resolves true once it answers, false when lookups stay on this thread.
   */
  warm(): Promise<boolean> {
    return this.lookups.ready();
  }

  /** The service is closing: end the threads, their connections closed before the service's own. */
  close(): void {
    this.lookups.close();
  }
}
