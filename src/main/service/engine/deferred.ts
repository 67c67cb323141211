import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { storeFailure } from '../errors';
import { openDeferredFile } from './deferred-file';
import type { DeferredReply, DeferredRequest } from './deferred-worker';
import { workerModule } from './threads';

/*
 * Writes that cannot wait for an import. A large import holds the store's write lock for seconds
 * (engine/README.md); a signed verification answered in that time must still keep its run, its
 * tickets and its nonce. Such a write is planned in full while the import runs, kept durably in a
 * small store of its own beside the main one (its own file, so its own lock), answered at once,
 * and applied to the main store when the import ends, in the order it was kept, each in its own
 * transaction and before any other waiting write. Whatever a crash leaves here is applied when the
 * store is next opened. Appliers must be idempotent: a crash between an entry's commit in the main
 * store and its removal here applies it a second time.
 *
 * The file is written on a thread of its own (deferred-worker.ts): the entry joins the queue in
 * memory at once, and the caller awaits its write to disk before it answers. A file write on the
 * service's thread would stall every call whenever the disk is busy, and a large import's
 * checkpoint makes it busy exactly when writes are being deferred.
 */

export type Applier = (body: unknown) => void;

interface Entry {
  id: number;
  kind: string;
  body: unknown;
  /** While its write to the file is under way: settles (never rejects) once it is on disk or has failed and left the queue. */
  writing?: Promise<void>;
}

/** The file beside the store: `nps.sqlite` keeps its deferred writes in `nps.deferred.sqlite`. */
export const deferredFileOf = (storeFile: string): string =>
  storeFile === '' || storeFile === ':memory:' ? ':memory:' : storeFile.replace(/(\.sqlite)?$/, '.deferred.sqlite');

export class DeferredWrites {
  /** This thread's connection: the recovery at start, and every write when there is no thread (':memory:', or it failed). */
  private conn: Database.Database | null = null;
  private thread: Worker | null = null;
  private threadFailed = false;
  private readonly appliers = new Map<string, Applier>();
  /** The entries kept and not applied yet, oldest first (the file's content, in memory). */
  private readonly queue: Entry[] = [];
  /** Ids are given here, so an entry is in the queue before it is on disk: one above the file's highest. */
  private lastId = 0;
  private readonly writing = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();

  constructor(
    private readonly file: string,
    private readonly main: Database.Database,
    private readonly nativeBinding: string | undefined,
  ) {}

  /** How entries of `kind` are applied: called inside a transaction of the main store. */
  register(kind: string, apply: Applier): void {
    this.appliers.set(kind, apply);
  }

  get size(): number {
    return this.queue.length;
  }

  /**
   * Keep a write for later: in the queue when this returns (applied in this order), durable when
   * the promise resolves. A write that fails leaves the queue as it was and rejects.
   */
  add(kind: string, body: unknown): Promise<void> {
    if (!this.appliers.has(kind)) throw new Error(`deferred writes: no applier for ${kind}`);
    const entry: Entry = { id: ++this.lastId, kind, body };
    const text = JSON.stringify(body);
    const thread = this.ensureThread();
    if (!thread) {
      try {
        this.local().prepare('INSERT INTO deferred (id, kind, body) VALUES (?, ?, ?)').run(entry.id, kind, text);
      } catch (err) {
        // As from the thread: a rejection, never a throw, so a caller's cleanup runs either way.
        return Promise.reject(storeFailure(err, this.file) ?? err);
      }
      this.queue.push(entry);
      return Promise.resolve();
    }
    this.queue.push(entry);
    const written = new Promise<void>((resolve, reject) => {
      this.writing.set(entry.id, { resolve, reject });
      thread.postMessage({ op: 'add', id: entry.id, kind, body: text } satisfies DeferredRequest);
    }).catch((err: unknown) => {
      const at = this.queue.indexOf(entry);
      if (at >= 0) this.queue.splice(at, 1);
      throw err;
    });
    entry.writing = written.then(
      () => void (entry.writing = undefined),
      () => undefined,
    );
    return written;
  }

  /**
   * Resolves once the oldest entry is on disk, waiting for its write if it is under way (and for
   * the next one's when it failed and left the queue). An entry is applied only after: one whose
   * write fails was answered as a failure, and must leave nothing in the store.
   */
  async headWritten(): Promise<void> {
    for (let head = this.queue[0]; head?.writing !== undefined; head = this.queue[0]) await head.writing;
  }

  /** Start the thread now rather than with the first write (an import is about to take the lock). */
  warm(): void {
    this.ensureThread();
  }

  /**
   * Apply the oldest entry to the main store and forget it; once it is on disk (`headWritten`). A
   * failure is thrown after the entry is set aside in memory (it stays in the file and is tried
   * again when the store is next opened), so one bad entry cannot hold the others back.
   */
  applyNext(): void {
    if (this.queue[0]?.writing !== undefined) throw new Error('deferred writes: the oldest entry is not on disk yet (await headWritten)');
    const entry = this.queue.shift();
    if (entry === undefined) return;
    const apply = this.appliers.get(entry.kind);
    if (apply === undefined) throw new Error(`deferred writes: no applier for ${entry.kind} (entry ${entry.id})`);
    this.main.transaction(() => apply(entry.body))();
    // Removed after its add (the thread takes them in order); lost in a crash, it is applied again.
    if (this.thread) this.thread.postMessage({ op: 'remove', id: entry.id } satisfies DeferredRequest);
    else this.local().prepare('DELETE FROM deferred WHERE id = ?').run(entry.id);
  }

  /** What a crash left: load the file's entries (when it exists) and apply them all, in order. */
  recover(onFailure: (err: unknown) => void): number {
    if (this.file === ':memory:' || !existsSync(this.file)) return 0;
    const db = this.local();
    const rows = db.prepare('SELECT id, kind, body FROM deferred ORDER BY id').all() as { id: number; kind: string; body: string }[];
    for (const r of rows) this.queue.push({ id: r.id, kind: r.kind, body: JSON.parse(r.body) as unknown });
    let applied = 0;
    while (this.queue.length > 0) {
      try {
        this.applyNext();
        applied++;
      } catch (err) {
        onFailure(err);
      }
    }
    // From here on the thread writes the file, with ids above any it ever held (an entry that failed keeps its own).
    this.lastId = (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'deferred'").pluck().get() as number | undefined) ?? 0;
    db.close();
    this.conn = null;
    return applied;
  }

  close(): void {
    this.conn?.close();
    this.conn = null;
    this.thread?.postMessage({ op: 'close' } satisfies DeferredRequest);
    this.thread?.unref();
    this.thread = null;
    this.failWriting(new Error('deferred writes: the service closed'));
  }

  private get inMemory(): boolean {
    return this.file === ':memory:';
  }

  /** The writing thread, started when first needed; null when this thread writes (':memory:', or the thread failed). */
  private ensureThread(): Worker | null {
    if (this.thread || this.inMemory || this.threadFailed) return this.thread;
    const thread = new Worker(workerModule('deferred-worker'), { workerData: { file: this.file, nativeBinding: this.nativeBinding } });
    thread.on('message', (m: DeferredReply) => {
      const w = this.writing.get(m.id);
      this.writing.delete(m.id);
      if (m.error === undefined) w?.resolve();
      else
        w?.reject(storeFailure(Object.assign(new Error(m.error), { code: m.code }), this.file) ?? new Error(`deferred writes: ${m.error}`));
    });
    const lost = (err: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      this.threadFailed = true;
      this.failWriting(err);
    };
    thread.on('error', lost);
    thread.on('exit', () => lost(new Error('deferred writes: the thread ended')));
    this.thread = thread;
    return thread;
  }

  private failWriting(err: Error): void {
    for (const w of this.writing.values()) w.reject(err);
    this.writing.clear();
  }

  /** This thread's connection to the file, opened when first needed. */
  private local(): Database.Database {
    this.conn ??= openDeferredFile(this.file, this.nativeBinding);
    return this.conn;
  }
}
