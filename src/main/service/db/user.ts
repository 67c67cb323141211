import type { Db } from './open';
import { stmt } from './statements';

/*
 * Where the named user was kept before it moved to the data folder (local-user.ts): a row of the
 * store's settings, which a shared store would have given every desktop on it. Read once, to hand
 * the name over to the data folder, then deleted.
 */

const USER_KEY = 'user_name';

/** The name an older version kept in the store, if it still holds one. */
export function storedUserName(db: Db): string | undefined {
  return stmt<[string], string>(db, 'SELECT value FROM settings WHERE key = ?').pluck().get(USER_KEY);
}

/** The store no longer holds a user's name. */
export function forgetStoredUserName(db: Db): void {
  stmt(db, 'DELETE FROM settings WHERE key = ?').run(USER_KEY);
}
