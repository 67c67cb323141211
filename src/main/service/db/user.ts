import type { Db } from './open';
import { stmt } from './statements';

/*
 * The named local user: who acts in the desktop app and the CLI, as every ticket event records it.
 * Set once in Settings (or `nps user NAME`); until then events name the door (ui, cli).
 */

const USER_KEY = 'user_name';

export function userName(db: Db): string {
  return stmt<[string], string>(db, 'SELECT value FROM settings WHERE key = ?').pluck().get(USER_KEY) ?? '';
}

export function setUserName(db: Db, name: string, at: number): void {
  stmt(
    db,
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  ).run(USER_KEY, name, at);
}
