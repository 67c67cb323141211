import { ADVISORY_LOCKS } from '../db/advisory-locks';
import type { Db } from '../db/open';
import type { PgDb } from '../db/postgres';
import {
  consumeNonce,
  nonceUsed,
  nonceWindowRecord,
  pruneNonces,
  RECORDS_FROM_KEY,
  widenNonceWindow,
  WIDEST_WINDOW_KEY,
  type NonceWindowRecord,
} from './repository';

/*
 * The used nonces of signed requests, on either engine: the first slice of the store interface of
 * team mode (docs/team.md). A (key, nonce) pair passes once per store, not per service: on
 * PostgreSQL, several services share one store, and a pair one of them accepted is refused (2004)
 * by every other, because the pair is the table's primary key and the insert that finds it taken
 * does nothing.
 */

export interface NonceStore {
  /**
   * True for the service's own SQLite file, whose writes wait while an import holds its write lock:
   * pairs are then deferred (keys/nonces.ts). A PostgreSQL store takes them during an import.
   */
  readonly waitsForImports: boolean;
  /** Accept a pair once: record it until `expiresAt` and mark the key used, in one commit. False: accepted before (a replay). */
  consume(apiKey: string, nonce: string, expiresAt: number, now: number): Promise<boolean>;
  /** Whether a pair was accepted before, without accepting it. */
  used(apiKey: string, nonce: string): Promise<boolean>;
  /** Forget the pairs past their expiry; how many. */
  prune(now: number): Promise<number>;
  /** The widest window any service has used on the store, and from when its records are whole. */
  windowRecord(): Promise<NonceWindowRecord>;
  /**
   * Widen the store's window to `widestMs` (from the widest recorded, or `previousMs` where none
   * is), keeping the recorded pairs as much longer, and refuse nonces older than `recordsFromMs`;
   * in one commit, once however many services widen at the same time.
   */
  widenWindow(previousMs: number, widestMs: number, recordsFromMs: number, now: number): Promise<void>;
}

/** The embedded store's nonces: keys/repository.ts's statements, on the service's connection. */
export function sqliteNonceStore(db: Db): NonceStore {
  return {
    waitsForImports: true,
    consume: async (apiKey, nonce, expiresAt, now) => consumeNonce(db, apiKey, nonce, expiresAt, now),
    used: async (apiKey, nonce) => nonceUsed(db, apiKey, nonce),
    prune: async (now) => pruneNonces(db, now),
    windowRecord: async () => nonceWindowRecord(db),
    widenWindow: async (previousMs, widestMs, recordsFromMs, now) => widenNonceWindow(db, previousMs, widestMs, recordsFromMs, now),
  };
}

/** Two services widening one store's window take turns. */
const WINDOW_LOCK = ADVISORY_LOCKS.nonceWindow;

/** A team store's nonces, on PostgreSQL. */
export function postgresNonceStore(db: PgDb): NonceStore {
  const pool = db.$client;
  const readRecord = async (query: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>): Promise<NonceWindowRecord> => {
    const { rows } = await query('SELECT key, value FROM settings WHERE key = ANY($1)', [[WIDEST_WINDOW_KEY, RECORDS_FROM_KEY]]);
    const value = new Map((rows as { key: string; value: string }[]).map((r) => [r.key, r.value]));
    const widest = value.get(WIDEST_WINDOW_KEY);
    const from = value.get(RECORDS_FROM_KEY);
    return { widestMs: widest === undefined ? undefined : Number(widest), recordsFromMs: from === undefined ? -Infinity : Number(from) };
  };
  return {
    waitsForImports: false,
    async consume(apiKey, nonce, expiresAt, now) {
      // One statement, so one commit: the pair recorded and the key marked used, or neither.
      const { rows } = await pool.query<{ inserted: number }>(
        `WITH inserted AS (
           INSERT INTO used_nonces (api_key, nonce, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1
         ), used AS (
           UPDATE api_keys SET last_used_at = $4 WHERE api_key = $1 AND EXISTS (SELECT 1 FROM inserted) RETURNING 1
         )
         SELECT count(*)::int AS inserted FROM inserted`,
        [apiKey, nonce, expiresAt, now],
      );
      return rows[0]!.inserted === 1;
    },
    async used(apiKey, nonce) {
      const { rowCount } = await pool.query('SELECT 1 FROM used_nonces WHERE api_key = $1 AND nonce = $2', [apiKey, nonce]);
      return rowCount !== 0;
    },
    async prune(now) {
      return (await pool.query('DELETE FROM used_nonces WHERE expires_at < $1', [now])).rowCount ?? 0;
    },
    windowRecord: () => readRecord((text, values) => pool.query(text, values)),
    async widenWindow(previousMs, widestMs, recordsFromMs, now) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [WINDOW_LOCK]);
        const record = await readRecord((text, values) => client.query(text, values));
        const stored = record.widestMs ?? previousMs;
        if (widestMs > stored) await client.query('UPDATE used_nonces SET expires_at = expires_at + $1', [widestMs - stored]);
        const put = `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;
        await client.query(put, [WIDEST_WINDOW_KEY, String(Math.max(widestMs, stored)), now]);
        const from = Math.max(recordsFromMs, record.recordsFromMs);
        if (Number.isFinite(from)) await client.query(put, [RECORDS_FROM_KEY, String(from), now]);
        await client.query('COMMIT');
      } catch (err) {
        // The failure to tell is the first: a rollback on a broken connection fails too.
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };
}
