import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { storedRecordsWhereInJsonSql, type LookupColumn } from '../db/record-sql';

/*
 * The lookup thread: reads ledger records for verifications on a connection of its own, in
 * parallel with the service's thread, which looks up the other part of the same batch meanwhile
 * (lookups.ts). It only reads: WAL lets it read beside the service's writes, and each query sees
 * every transaction committed before it started. It also runs the store's checkpoints, which
 * wait on the disk (two fsyncs each) and would otherwise stall the service's thread.
 */

export interface LookupInit {
  file: string;
  nativeBinding?: string;
  /** One Int32 the thread sets to 1 once its connection is closed (the service waits for it). */
  closed: SharedArrayBuffer;
}

/**
 * Each query: the column and its keys as two JSON arrays (record-sql.ts, storedKeys). `checkpoint`: first copy the write-ahead log into the database (PASSIVE: it waits for no one
 * and no one waits for it).
 */
export type LookupRequest = { id: number; queries: [LookupColumn, string, string][]; checkpoint?: boolean };
/** The service is closing: close the connection, say so, and end. */
export type CloseRequest = { close: true };
/** Per query, the records found as one JSON array of stored rows (db/record-sql.ts, recordOfStoredRow); `ms`: the time the queries took here. */
export type LookupReply = { id: number; rows: string[]; ms: number } | { id: number; error: string };

/** Checkpoints at most a request, the first and those catching up with frames committed meanwhile. */
const CATCH_UP = 4;

const port = parentPort!;
const init = workerData as LookupInit;

const sqlite = new Database(init.file, init.nativeBinding ? { nativeBinding: init.nativeBinding } : {});
sqlite.pragma('query_only = ON');
sqlite.pragma('busy_timeout = 5000');
// As the service's connection: records are read straight from the mapped file.
sqlite.pragma('mmap_size = 2147483648');
const statements = new Map<LookupColumn, Database.Statement<[string, string], string>>();
const statement = (column: LookupColumn) => {
  let s = statements.get(column);
  if (!s) statements.set(column, (s = sqlite.prepare<[string, string], string>(storedRecordsWhereInJsonSql(column)).pluck()));
  return s;
};

port.on('message', (m: LookupRequest | CloseRequest) => {
  if ('close' in m) {
    sqlite.close();
    const closed = new Int32Array(init.closed);
    Atomics.store(closed, 0, 1);
    Atomics.notify(closed, 0);
    port.close();
    return;
  }
  let reply: LookupReply;
  try {
    if (m.checkpoint) {
      // What was committed while it ran is not in it, and the log starts over from its beginning
      // only at a write that finds it all copied: catch up (a few frames each time), else under a
      // stream of writes the log grows on until the service's own checkpoint runs after its commits.
      for (let i = 0; i < CATCH_UP; i++) {
        const [r] = sqlite.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
        if (!r || r.busy !== 0 || r.checkpointed >= r.log) break;
      }
    }
    const start = performance.now();
    const rows = m.queries.map(([column, bytes, texts]) => statement(column).get(bytes, texts)!);
    reply = { id: m.id, rows, ms: performance.now() - start };
  } catch (err) {
    reply = { id: m.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
