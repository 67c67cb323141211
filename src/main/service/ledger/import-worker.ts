import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { LedgerWriter, type ImportRecord, type WriterOptions } from './import-repository';

/*
 * The write of a large import, on a thread and a connection of its own (see writer-host.ts): the
 * service's thread goes on answering calls, and its connection reads the store as it was before
 * the import until the import commits (WAL).
 */

export interface WorkerInit {
  file: string;
  nativeBinding?: string;
  writer: WriterOptions;
}

export type ToWorker = { type: 'rows'; text: string } | { type: 'finish' } | { type: 'commit'; record: ImportRecord } | { type: 'rollback' };
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

/** Roll back what is not committed and close the connection; the host then ends the thread. */
function close(): void {
  try {
    writer?.rollback();
  } finally {
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
  send({ type: 'error', name: e.name ?? 'Error', message: e.message ?? String(err), code: typeof e.code === 'string' ? e.code : undefined });
}

port.on('message', (m: ToWorker) => {
  if (writer === undefined) return;
  try {
    switch (m.type) {
      case 'rows':
        writer.add(m.text);
        send({ type: 'ack' });
        break;
      case 'finish':
        send({ type: 'finished', stats: writer.finish() });
        break;
      case 'commit':
        writer.commit(m.record);
        writer = undefined;
        close();
        send({ type: 'done' });
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
