import Database from 'better-sqlite3';
import { availableParallelism } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { LedgerWriter, type ImportRecord, type WriterOptions } from '../ledger/import-repository';

/*
 * The write of a large import, on a thread and a connection of its own (see import-writer.ts): the
 * service's thread goes on answering calls, and its connection reads the store as it was before
 * the import until the import commits (WAL).
 */

export interface WorkerInit {
  file: string;
  nativeBinding?: string;
  writer: WriterOptions;
}

export type ToWorker =
  { type: 'rows'; texts: string[] } | { type: 'finish' } | { type: 'commit'; record: ImportRecord } | { type: 'rollback' };
export type FromWorker =
  | { type: 'begun' }
  | { type: 'ack' }
  | { type: 'finished'; stats: ReturnType<LedgerWriter['finish']> }
  | { type: 'done' }
  | { type: 'error'; name: string; message: string; code?: string };

/** Page cache of the bulk load: rows append and indexes are sorted on disk, so a large cache buys nothing. */
const BULK_CACHE_KIB = 16 * 1024;

const port = parentPort!;
const init = workerData as WorkerInit;
let sqlite: Database.Database | undefined;
let writer: LedgerWriter | undefined;

const send = (m: FromWorker) => port.postMessage(m);

/**
 * Roll back what is not committed and close the connection; the host then ends the thread. The
 * rolled-back rows stay in the write-ahead log's file (hundreds of MB a million rows, a full disk
 * after a failure for want of space) until a checkpoint empties it: done here (TRUNCATE, waiting
 * for readers up to the busy timeout), while the host still holds the write lock, so the file is
 * small again at once, not when the service stops.
 */
function close(): void {
  try {
    writer?.rollback();
  } finally {
    try {
      sqlite?.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Only housekeeping: the next checkpoint empties it.
    }
    sqlite?.close();
    sqlite = undefined;
  }
}

try {
  sqlite = new Database(init.file, init.nativeBinding ? { nativeBinding: init.nativeBinding } : {});
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // The sorter of an index build spills to temporary files, not memory.
  sqlite.pragma(`cache_size = -${BULK_CACHE_KIB}`);
  sqlite.pragma('temp_store = FILE');
  // One helper thread for the sorter: the index builds start once the file has been read, when the
  // reading's core is free (a second helper gained nothing on two cores: bench:import).
  sqlite.pragma(`threads = ${availableParallelism() > 1 ? 1 : 0}`);
  // Copying the import from the write-ahead log into the database waits until it is committed
  // and reported (below): the commit itself does not do it.
  sqlite.pragma('wal_autocheckpoint = 0');
  // Earlier writes copied out of the log first (PASSIVE: without waiting for anyone): if the import
  // fails (a full disk), what the log holds beyond the store is only its own rolled-back rows, which
  // close() can drop without writing to the store, as a disk with no room left could not take.
  try {
    sqlite.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The disk is full already: the import goes on as before, and fails as it would have.
  }
  writer = new LedgerWriter(sqlite, init.writer);
  writer.begin();
  send({ type: 'begun' });
} catch (err) {
  fail(err);
}

function fail(err: unknown): void {
  const e = err as Error & { code?: string };
  try {
    close();
  } catch {
    // The first error is the one to report.
  }
  writer = undefined;
  send({
    type: 'error',
    name: e.name ?? 'Error',
    message: e.message ?? String(err),
    code: typeof e.code === 'string' ? e.code : undefined,
  });
}

/**
 * After the commit has been reported: copy the import from the write-ahead log into the database
 * (a second or more per million rows), off the service's thread and outside the import's time,
 * while the host still holds the write lock (import-writer.ts). TRUNCATE: it first waits
 * (busy_timeout) for readers still on the snapshot before the commit, whose short reads would
 * otherwise leave the import's part of the log uncopied (PASSIVE stops short there) for the
 * service's thread to copy at its next commit; then it empties the log file, which would otherwise
 * keep the import's size on disk (hundreds of MB a million rows). If the process exits first, the
 * log is complete and the next checkpoint does it.
 */
function checkpointAndEnd(): void {
  try {
    sqlite?.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // Only housekeeping: the import is committed whatever happens here.
  } finally {
    close();
    port.close();
  }
}

port.on('message', (m: ToWorker) => {
  if (writer === undefined) return;
  try {
    switch (m.type) {
      case 'rows':
        for (const text of m.texts) writer.add(text);
        send({ type: 'ack' });
        break;
      case 'finish':
        send({ type: 'finished', stats: writer.finish() });
        break;
      case 'commit':
        writer.commit(m.record);
        writer = undefined;
        send({ type: 'done' });
        checkpointAndEnd();
        break;
      case 'rollback':
        close();
        writer = undefined;
        send({ type: 'done' });
        break;
    }
  } catch (err) {
    fail(err);
  }
});
