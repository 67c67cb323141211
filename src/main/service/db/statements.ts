import type Database from 'better-sqlite3';
import type { Db } from './open';

const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** A prepared statement, compiled once per connection: hot paths run the same SQL many times. */
export function stmt<P extends unknown[] = unknown[], R = unknown>(db: Db, sql: string): Database.Statement<P, R> {
  let byText = cache.get(db.$client);
  if (!byText) cache.set(db.$client, (byText = new Map()));
  let s = byText.get(sql);
  if (!s) byText.set(sql, (s = db.$client.prepare(sql)));
  return s as Database.Statement<P, R>;
}
