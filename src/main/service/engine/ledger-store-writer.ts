import type { ImportRecord, LedgerImportWriter, WriterStats } from '../db/ledger-writer';
import type { RowWriter } from './import-writer';

/*
 * An import's rows written through the store's writer (db/ledger-writer.ts), whichever store it
 * is: batches go to it as the file is read, one after the other, and the reader waits once
 * MAX_IN_FLIGHT are queued, so memory stays bounded whatever the file's size. Over PostgreSQL
 * (db/ledger-writer-pg.ts) the write is the server's work, and this thread only encodes the rows
 * and sends them, between its reads of the file.
 */

/** Batches queued before the reader waits: enough to keep the store busy, few enough to bound memory. */
const MAX_IN_FLIGHT = 8;

export class StoreRowWriter implements RowWriter {
  private queue: Promise<void> = Promise.resolve();
  /** Each queued batch's end, oldest first. */
  private inFlight: Promise<void>[] = [];
  private failure: Error | undefined;
  private done = false;

  constructor(private readonly writer: LedgerImportWriter) {
    this.queue = this.run(() => writer.begin());
  }

  private run(step: () => void | Promise<void>): Promise<void> {
    const next = this.queue.then(async () => {
      if (this.failure === undefined) await step();
    });
    const settled = next.catch((err: unknown) => {
      this.failure ??= err as Error;
    });
    this.queue = settled;
    return settled;
  }

  add(text: string): void {
    if (this.failure) return;
    const end = this.run(() => this.writer.add(text));
    this.inFlight.push(end);
    void end.then(() => this.inFlight.splice(this.inFlight.indexOf(end), 1));
  }

  wait(): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    if (this.inFlight.length < MAX_IN_FLIGHT) return undefined;
    return this.inFlight[this.inFlight.length - MAX_IN_FLIGHT]!.then(() => {
      if (this.failure) throw this.failure;
    });
  }

  async complete(decide: (stats: WriterStats) => ImportRecord | null): Promise<WriterStats> {
    await this.queue;
    if (this.failure) throw this.failure;
    try {
      const stats = await this.writer.finish();
      const record = decide(stats);
      if (record) await this.writer.commit(record);
      else await this.writer.rollback();
      this.done = true;
      return stats;
    } catch (err) {
      this.failure ??= err as Error;
      throw err;
    }
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.queue;
    await this.writer.rollback();
  }
}
