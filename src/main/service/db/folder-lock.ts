import Database from 'better-sqlite3';
import { readFileSync, statSync } from 'node:fs';

/*
 * The data folder's writer lock: an exclusive transaction, begun and never ended, on an empty
 * SQLite file in the folder. SQLite takes it with the system's own file lock (fcntl on Linux and
 * macOS, LockFileEx on Windows), which is atomic (two processes asking at once: exactly one gets
 * it) and which the system lets go when the process ends in any way (a crash, kill -9, a power
 * cut): a lock is never left behind by a dead process, and a live one's is never taken. Nothing is
 * ever written to the file, so it cannot be damaged; it is never removed either (a process waiting
 * on the removed file and one creating it anew would both hold "the" lock).
 *
 * Two processes asking at once can both fail at SQLite's level: each takes the file's shared lock
 * on the way to the exclusive one, and neither may go further while the other holds it. With no
 * wait, both would answer BUSY and neither would hold the folder (two `serve` started together were
 * both refused, now and then). So a lock found taken is asked for again for up to WAIT_MS, SQLite's
 * own busy handler stepping back between tries: the one that loses lets its shared lock go and the
 * other gets through. A lock held for good costs its asker WAIT_MS before BUSY.
 *
 * A held lock is kept in HELD until released: a caller that drops the handle (a `serve` keeps
 * nothing of it once it listens) must not lose the lock to the garbage collector, whose closing of
 * the connection would let the folder go while the process still uses it.
 *
 * A POSIX lock belongs to the process and ends when the process closes any descriptor of the file:
 * this process must never open the lock file other than through this connection (statSync, which
 * opens nothing, is fine).
 */

export interface HeldLock {
  /** Let the lock go (the process ending does the same). */
  release(): void;
}

/** The lock could not be taken: another process (or another connection of this one) holds it. */
export const BUSY = 'busy';

/** The connections holding a lock, out of the garbage collector's reach until released. */
const HELD = new Set<Database.Database>();

/** How long a taken lock is asked for again before BUSY (see above). */
const WAIT_MS = 250;

/**
 * Take the lock on `file`, creating the file (empty) when missing: the held lock, BUSY when another
 * holds it, or the reason the file cannot be locked at all (a read-only folder).
 */
export function tryLock(file: string, nativeBinding?: string): HeldLock | typeof BUSY | { cannot: string } {
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: WAIT_MS, ...(nativeBinding ? { nativeBinding } : {}) });
  } catch (err) {
    return { cannot: (err as Error).message };
  }
  try {
    // No journal file: nothing is ever written.
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return BUSY;
    return { cannot: (err as Error).message };
  }
  HELD.add(db);
  return {
    release: () => {
      if (!HELD.delete(db)) return;
      db.close();
    },
  };
}

/**
 * The process holding the lock on `file`, where the system says (Linux's /proc/locks); undefined
 * elsewhere or when none does.
 */
export function lockHolder(file: string): number | undefined {
  let ino: number;
  try {
    ino = statSync(file).ino;
    const locks = readFileSync('/proc/locks', 'utf8');
    for (const line of locks.split('\n')) {
      // "3: POSIX  ADVISORY  WRITE 23028 fe:00:2156143 1073741824 1073742335"
      const m = /^\d+:\s+POSIX\s+ADVISORY\s+WRITE\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
      if (m && Number(m[2]) === ino) return Number(m[1]);
    }
  } catch {
    // Not Linux, or the file is gone: the holder is not known.
  }
  return undefined;
}
