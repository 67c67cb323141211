import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { openDeferredFile } from './deferred-file';

/*
 * The thread that keeps deferred writes on disk (deferred.ts): adds and removes entries of
 * nps.deferred.sqlite on a connection of its own, in the order they were sent. A write to disk can
 * wait on the file system behind someone else's: while a large import's checkpoint flushes
 * hundreds of megabytes, even a small write waits on the file system's journal for hundreds of
 * milliseconds, and on the service's thread every call would wait with it.
 */

export interface DeferredInit {
  file: string;
  nativeBinding?: string;
}

export type DeferredRequest = { op: 'add'; id: number; kind: string; body: string } | { op: 'remove'; id: number } | { op: 'close' };
/** The answer to an add, once it is on disk (or why it is not, with SQLite's code); a remove is not answered. */
export type DeferredReply = { id: number; error?: string; code?: string };

const port = parentPort!;
const init = workerData as DeferredInit;
let db: Database.Database | undefined;
let insert: Database.Statement | undefined;
let remove: Database.Statement | undefined;

port.on('message', (m: DeferredRequest) => {
  if (m.op === 'close') {
    db?.close();
    port.close();
    return;
  }
  try {
    if (db === undefined) {
      // Opened, and its two statements prepared once, on the first message.
      const opened = openDeferredFile(init.file, init.nativeBinding);
      try {
        insert = opened.prepare('INSERT INTO deferred (id, kind, body) VALUES (?, ?, ?)');
        remove = opened.prepare('DELETE FROM deferred WHERE id = ?');
      } catch (err) {
        opened.close();
        throw err;
      }
      db = opened;
    }
    if (m.op === 'add') {
      insert!.run(m.id, m.kind, m.body);
      port.postMessage({ id: m.id } satisfies DeferredReply);
    } else remove!.run(m.id);
  } catch (err) {
    if (m.op === 'add') {
      const code = (err as { code?: unknown }).code;
      port.postMessage({
        id: m.id,
        error: err instanceof Error ? err.message : String(err),
        ...(typeof code === 'string' ? { code } : {}),
      } satisfies DeferredReply);
    }
  }
});
