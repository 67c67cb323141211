import Database from 'better-sqlite3';

/** Open (and create) the file of deferred writes: its own small store, WAL, with its one table. */
export function openDeferredFile(file: string, nativeBinding: string | undefined): Database.Database {
  const db = new Database(file, nativeBinding ? { nativeBinding } : {});
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 100');
    db.exec('CREATE TABLE IF NOT EXISTS deferred (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, body TEXT NOT NULL)');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
