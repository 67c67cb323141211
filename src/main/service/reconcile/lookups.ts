import { Worker } from 'node:worker_threads';
import type { TransactionRecord } from '../../../shared/ledger';
import type { Db } from '../db/open';
import { nativeBindingOf } from '../db/open';
import { workerModule } from '../threads';
import type { LookupInit, LookupReply, LookupRequest } from './lookup-worker';
import type { LookupColumn } from './record-sql';
import { fromRow, recordsWhereIn, type RecordRow } from './repository';

/*
 * Record lookups of a verification batch, on two cores. The service's thread looks up the first
 * half of each identifier list while the lookup thread (lookup-worker.ts, its own connection)
 * looks up the second half: a batch of 1000 claims spends about 5 ms reading records, and this
 * takes about 2 ms off it (docs/benchmarks.md). The thread starts with the first large batch and
 * lives as long as the service; until it is up, or if it ever fails, every lookup runs on the
 * service's thread, with the same results.
 */

/** Below this many values in a batch, the thread's round trip costs more than it saves. */
export const SPLIT_MIN_VALUES = 64;

export type Wanted = Record<LookupColumn, readonly string[]>;
export type Found = Record<LookupColumn, TransactionRecord[]>;

export class RecordLookups {
  private worker: Worker | undefined;
  private starting: Promise<void> | undefined;
  private failed = false;
  private closed = false;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (rows: string[]) => void; reject: (err: Error) => void }>();

  /** `db`: the service's connection; a store in memory cannot be shared, so it never splits. */
  constructor(private readonly db: Db) {}

  /** Records of each column holding one of its values (each list's values distinct). */
  async find(wanted: Wanted): Promise<Found> {
    const total = wanted.transaction_id.length + wanted.hash.length + wanted.request_id.length;
    const worker = total >= SPLIT_MIN_VALUES ? this.thread() : undefined;
    if (!worker) return this.local(wanted);
    const mine: Record<LookupColumn, readonly string[]> = { transaction_id: [], hash: [], request_id: [] };
    const theirs: [LookupColumn, string][] = [];
    for (const column of COLUMNS) {
      const values = wanted[column];
      const half = Math.ceil(values.length / 2);
      mine[column] = values.slice(0, half);
      if (half < values.length) theirs.push([column, JSON.stringify(values.slice(half))]);
    }
    const remote = this.ask(worker, theirs);
    // Handled below; until then, a failure must not count as unhandled.
    remote.catch(() => undefined);
    const found = this.local(mine);
    let rows: string[];
    try {
      rows = await remote;
    } catch {
      // The thread failed: look up its half here, as if it had never started.
      const rest = this.local(Object.fromEntries(theirs.map(([c, v]) => [c, JSON.parse(v) as string[]])) as Partial<Wanted>);
      for (const column of COLUMNS) found[column].push(...rest[column]);
      return found;
    }
    theirs.forEach(([column], i) => {
      for (const r of JSON.parse(rows[i]!) as RecordRow[]) found[column].push(fromRow(r));
    });
    return found;
  }

  /**
   * Start the thread now rather than with the first large batch (the API does, when it starts
   * listening). Resolves true once it answers, false when lookups stay on this thread.
   */
  async ready(): Promise<boolean> {
    this.thread();
    await this.starting;
    return this.worker !== undefined;
  }

  /** End the thread (the service is closing). */
  close(): void {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.rejectAll(new Error('the service closed'));
    if (worker) void worker.terminate();
  }

  private local(wanted: Partial<Wanted>): Found {
    return {
      transaction_id: recordsWhereIn(this.db, 'transaction_id', wanted.transaction_id ?? []),
      hash: recordsWhereIn(this.db, 'hash', wanted.hash ?? []),
      request_id: recordsWhereIn(this.db, 'request_id', wanted.request_id ?? []),
    };
  }

  private ask(worker: Worker, queries: [LookupColumn, string][]): Promise<string[]> {
    if (queries.length === 0) return Promise.resolve([]);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.track(worker, id, resolve, reject);
      worker.postMessage({ id, queries } satisfies LookupRequest);
    });
  }

  /** While an answer is awaited, the thread keeps the process alive (a CLI run awaiting it must not exit). */
  private track(worker: Worker, id: number, resolve: (rows: string[]) => void, reject: (err: Error) => void): void {
    if (this.pending.size === 0) worker.ref();
    const settle = () => {
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
    };
    this.pending.set(id, {
      resolve: (rows) => {
        settle();
        resolve(rows);
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
    this.starting = this.start({ file, nativeBinding: nativeBindingOf(this.db.$client) }).finally(() => (this.starting = undefined));
    return undefined;
  }

  private async start(init: LookupInit): Promise<void> {
    try {
      const module = await workerModule('./lookup-worker.ts', import.meta.url, 'reconcile-lookup-worker');
      if (this.closed) return;
      const worker = new Worker(module, { workerData: init, resourceLimits: { maxYoungGenerationSizeMb: 8 } });
      // An idle lookup thread never keeps the process alive.
      worker.unref();
      worker.on('message', (m: LookupReply) => {
        const p = this.pending.get(m.id);
        if ('error' in m) p?.reject(new Error(m.error));
        else p?.resolve(m.rows);
      });
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', () => this.fail(new Error('the lookup thread ended')));
      // Ready when it answers: until then the service's thread does every lookup.
      await new Promise<void>((resolve, reject) => {
        const id = this.nextId++;
        this.track(worker, id, () => resolve(), reject);
        worker.postMessage({ id, queries: [] } satisfies LookupRequest);
      });
      if (this.closed) void worker.terminate();
      else this.worker = worker;
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private fail(err: Error): void {
    this.failed = true;
    this.worker = undefined;
    this.rejectAll(err);
  }

  private rejectAll(err: Error): void {
    for (const p of [...this.pending.values()]) p.reject(err);
  }
}

const COLUMNS: readonly LookupColumn[] = ['transaction_id', 'hash', 'request_id'];
