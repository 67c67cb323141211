import type pg from 'pg';
import { ADVISORY_LOCKS } from '../db/advisory-locks';

/*
 * The import's write lock across every service on one PostgreSQL store (team mode, docs/team.md):
 * on SQLite one process holds the data folder and `write-gate.ts` is enough; on PostgreSQL several
 * services share the store, and one import writes at a time among all of them. The lock is a
 * session advisory lock on a connection of its own, held for the import's length: if the service
 * dies (kill -9), the server ends the session and the lock is free for the next, and a service
 * whose connection breaks is told it no longer holds the lock before it writes another batch.
 * Not used by the service yet.
 */

/** @public the holder's side of StoreLock, for the import that will take it. */
export interface StoreLockHold {
  /** Settles with the reason once the connection that holds the lock broke: the lock is no longer held. */
  readonly lost: Promise<Error>;
  /** Let go of the lock (and its connection). */
  release(): Promise<void>;
}

export interface StoreLock {
  /** The lock if no service holds it now; undefined otherwise, at once. */
  tryAcquire(): Promise<StoreLockHold | undefined>;
  /** The lock once the service holding it lets go, within `timeoutMs`; undefined after. */
  acquire(timeoutMs: number): Promise<StoreLockHold | undefined>;
}

/** PostgreSQL's `lock_not_available`: the wait for the lock reached lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

export function postgresImportLock(pool: pg.Pool, key: number = ADVISORY_LOCKS.import): StoreLock {
  const hold = (client: pg.PoolClient): StoreLockHold => {
    let released = false;
    const lost = new Promise<Error>((resolve) => {
      client.on('error', (err) => {
        if (!released) resolve(err);
      });
      client.on('end', () => {
        if (!released) resolve(new Error('the connection holding the import lock ended'));
      });
    });
    return {
      lost,
      async release() {
        if (released) return;
        released = true;
        try {
          await client.query('SELECT pg_advisory_unlock($1)', [key]);
          client.release();
        } catch (err) {
          // A broken connection holds nothing: the server let go of the lock when it ended.
          client.release(err instanceof Error ? err : true);
        }
      },
    };
  };

  const attempt = async (take: (client: pg.PoolClient) => Promise<boolean>) => {
    const client = await pool.connect();
    let held = false;
    try {
      held = await take(client);
    } finally {
      if (!held) client.release();
    }
    return held ? hold(client) : undefined;
  };

  return {
    tryAcquire: () =>
      attempt(async (client) => (await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock($1) AS held', [key])).rows[0]!.held),
    acquire: (timeoutMs) =>
      attempt(async (client) => {
        await client.query(`SET lock_timeout = ${Math.max(1, Math.trunc(timeoutMs))}`);
        try {
          await client.query('SELECT pg_advisory_lock($1)', [key]);
          return true;
        } catch (err) {
          if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) return false;
          throw err;
        } finally {
          await client.query('RESET lock_timeout');
        }
      }),
  };
}
