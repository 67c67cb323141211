import type { Db } from '../db/open';
import { nativeBindingOf } from '../db/open';
import type { WriterOptions } from '../ledger/import-repository';
import { DeferredWrites, deferredFileOf, type Applier } from './deferred';
import { LocalWriter, WORKER_MIN_BYTES, WorkerWriter, type RowWriter } from './import-writer';
import { Turns } from './turns';
import { RecordLookups, type Found, type Wanted } from './lookups';
import { WriteGate } from './write-gate';
import { chainJudge, type ChainJudge } from './chain-thread';

export type { RowWriter } from './import-writer';
export { StoreRowWriter } from './ledger-store-writer';
export type { Found, Wanted } from './lookups';
export type { ChainJudge } from './chain-thread';
export { EVERYTHING, localStoreChanges, postgresStoreChanges, type StoreChanges } from './store-changes';

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
  private readonly turns = new Turns();
  private readonly lookups: RecordLookups;
  private readonly deferred: DeferredWrites;

  /** `onFailure`: a deferred write that could not be applied (it is kept and tried again at the next start). */
  constructor(
    private readonly db: Db,
    private readonly onFailure: (err: unknown) => void = () => undefined,
  ) {
    this.lookups = new RecordLookups(db);
    this.deferred = new DeferredWrites(deferredFileOf(db.$client.name), db.$client, nativeBindingOf(db.$client));
  }

  /** How deferred writes of `kind` are applied (inside a transaction of the store); register before `recover`. */
  onDeferred(kind: string, apply: Applier): void {
    this.deferred.register(kind, apply);
  }

  /** Apply what a crash left among the deferred writes (at start, before serving). Answers how many were applied. */
  recover(): number {
    return this.deferred.recover(this.onFailure);
  }

  /**
   * Keep a write that must not wait for the import holding the write lock (`importing`): kept in
   * order at once, durable when the promise resolves (await it before answering), applied to the
   * store when the import ends, before any other waiting write (deferred.ts). Call it only while
   * `importing`; otherwise write at once.
   */
  defer(kind: string, body: unknown): Promise<void> {
    if (!this.gate.busy) throw new Error('defer: the store is writable; write at once');
    return this.deferred.add(kind, body);
  }

  /**
   * A turn of the event loop of the caller's own, for the API's verifications (turns.ts): awaited
   * before each of their pieces of work, so that a burst of them leaves room, turn by turn, for
   * the connections waiting to be taken. The window's calls do not pass here.
   */
  nextTurn(): Promise<void> {
    return this.turns.next();
  }

  /** Writes deferred and not applied yet (tests and diagnostics). */
  get deferredCount(): number {
    return this.deferred.size;
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

  /**
   * Run a call that writes at once, or defers its writes while an import holds the write lock
   * (`defer`): without waiting; then let the engine tidy up after it.
   */
  async writeOrDefer<T>(call: () => T | Promise<T>): Promise<T> {
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

  /**
   * Where a check against the chains' nodes asks them about its pages: a thread of its own, for the
   * check's life (close it when the check ends).
   */
  chainJudge(): ChainJudge {
    return chainJudge();
  }

  /**
   * Records of each identifier column holding one of its values; a large batch is read on two
   * threads while other verifications wait for their turn (lookups.ts says why only then).
   */
  findRecords(wanted: Wanted): Promise<Found> {
    return this.lookups.find(wanted, this.turns.queued > 0);
  }

  /**
   * Where an import's rows go. A large file: a thread with its own connection, which holds the
   * write lock from now until the writer completes or aborts (the service's other writes wait, see
   * `write`). A small one: this thread, in one synchronous transaction at the end.
   */
  async importWriter({ bytes, threadMinBytes = WORKER_MIN_BYTES, ...opts }: ImportWriterOptions): Promise<RowWriter> {
    if (bytes < threadMinBytes) return new LocalWriter(this.db.$client, opts, () => this.gate.idle());
    const release = await this.gate.acquire();
    // Writes are deferred from now on: their thread is ready before the first one.
    this.deferred.warm();
    try {
      return WorkerWriter.start(this.db.$client.name, nativeBindingOf(this.db.$client), opts, () => void this.applyDeferred(release));
    } catch (err) {
      release();
      throw err;
    }
  }

  /**
   * Whether the service's connection cannot write now: an import holds the write lock, or the
   * writes deferred meanwhile are being applied. Writes that cannot wait are deferred (`defer`).
   */
  get importing(): boolean {
    return this.gate.busy;
  }

  /**
   * The import has ended: apply the writes deferred meanwhile, one transaction each with the event
   * loop free in between, still holding the lock (writes arriving meanwhile are deferred too and
   * applied in turn), then give the lock back.
   */
  private async applyDeferred(release: () => void): Promise<void> {
    try {
      while (this.deferred.size > 0) {
        // An entry still being written may yet fail, and its caller be told so: never apply it before.
        await this.deferred.headWritten();
        if (this.deferred.size === 0) break;
        try {
          this.deferred.applyNext();
        } catch (err) {
          this.onFailure(err);
        }
        this.lookups.afterWrite();
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      release();
    }
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
    this.deferred.close();
  }
}
