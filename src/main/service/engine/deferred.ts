import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';

/*
 * Writes that cannot wait for an import. A large import holds the store's write lock for seconds
 * (engine/README.md); a signed verification answered in that time must still keep its run, its
 * tickets and its nonce. Such a write is planned in full while the import runs, kept durably in a
 * small store of its own beside the main one (its own file, so its own lock), answered at once,
 * and applied to the main store when the import ends, in the order it was kept, each in its own
 * transaction and before any other waiting write. Whatever a crash leaves here is applied when the
 * store is next opened. Appliers must be idempotent: a crash between an entry's commit in the main
 * store and its removal here applies it a second time.
 */

export type Applier = (body: unknown) => void;

interface Entry {
  id: number;
  kind: string;
  body: unknown;
}

/** The file beside the store: `nps.sqlite` keeps its deferred writes in `nps.deferred.sqlite`. */
export const deferredFileOf = (storeFile: string): string =>
  storeFile === '' || storeFile === ':memory:' ? ':memory:' : storeFile.replace(/(\.sqlite)?$/, '.deferred.sqlite');

export class DeferredWrites {
  private conn: Database.Database | null = null;
  private readonly appliers = new Map<string, Applier>();
  /** The entries kept and not applied yet, oldest first (the file's content, in memory). */
  private readonly queue: Entry[] = [];

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

  /** Keep a write for later: durable when this returns. */
  add(kind: string, body: unknown): void {
    if (!this.appliers.has(kind)) throw new Error(`deferred writes: no applier for ${kind}`);
    const db = this.open();
    const { lastInsertRowid } = db.prepare('INSERT INTO deferred (kind, body) VALUES (?, ?)').run(kind, JSON.stringify(body));
    this.queue.push({ id: Number(lastInsertRowid), kind, body });
  }

  /**
   * Apply the oldest entry to the main store and forget it. A failure is thrown after the entry is
   * set aside in memory (it stays in the file and is tried again when the store is next opened), so
   * one bad entry cannot hold the others back.
   */
  applyNext(): void {
    const entry = this.queue.shift();
    if (entry === undefined) return;
    const apply = this.appliers.get(entry.kind);
    if (apply === undefined) throw new Error(`deferred writes: no applier for ${entry.kind} (entry ${entry.id})`);
    this.main.transaction(() => apply(entry.body))();
    this.open().prepare('DELETE FROM deferred WHERE id = ?').run(entry.id);
  }

  /** What a crash left: load the file's entries (when it exists) and apply them all, in order. */
  recover(onFailure: (err: unknown) => void): number {
    if (this.file === ':memory:' || !existsSync(this.file)) return 0;
    const rows = this.open().prepare('SELECT id, kind, body FROM deferred ORDER BY id').all() as {
      id: number;
      kind: string;
      body: string;
    }[];
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
    return applied;
  }

  close(): void {
    this.conn?.close();
    this.conn = null;
  }

  /** Opened on first use: a store that never defers a write gets no second file. */
  private open(): Database.Database {
    if (this.conn) return this.conn;
    const db = new Database(this.file, this.nativeBinding ? { nativeBinding: this.nativeBinding } : {});
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 100');
      db.exec('CREATE TABLE IF NOT EXISTS deferred (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, body TEXT NOT NULL)');
    } catch (err) {
      db.close();
      throw err;
    }
    this.conn = db;
    return db;
  }
}
