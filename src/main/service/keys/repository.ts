import type { ApiKey } from '../../../shared/keys';
import type { Db } from '../db/open';
import { stmt } from '../db/statements';

interface KeyRow {
  api_key: string;
  label: string;
  all_wallets: number;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
  wallets: string | null;
}

const SELECT_KEYS = `
  SELECT k.api_key, k.label, k.all_wallets, k.created_at, k.revoked_at, k.last_used_at,
         (SELECT json_group_array(w.wallet_id) FROM (SELECT wallet_id FROM api_key_wallets WHERE api_key = k.api_key ORDER BY wallet_id) w) AS wallets
  FROM api_keys k`;

function toApiKey(row: KeyRow): ApiKey {
  return {
    api_key: row.api_key,
    label: row.label,
    wallets: row.all_wallets ? null : (JSON.parse(row.wallets ?? '[]') as string[]),
    created_at: row.created_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
  };
}

export function getKey(db: Db, apiKey: string): ApiKey | undefined {
  const row = stmt<[string], KeyRow>(db, `${SELECT_KEYS} WHERE k.api_key = ?`).get(apiKey);
  return row && toApiKey(row);
}

export function listKeys(db: Db): ApiKey[] {
  return stmt<[], KeyRow>(db, `${SELECT_KEYS} ORDER BY k.created_at DESC, k.api_key`).all().map(toApiKey);
}

function setWallets(db: Db, apiKey: string, wallets: string[] | null): void {
  stmt(db, 'UPDATE api_keys SET all_wallets = ? WHERE api_key = ?').run(wallets === null ? 1 : 0, apiKey);
  stmt(db, 'DELETE FROM api_key_wallets WHERE api_key = ?').run(apiKey);
  const insert = stmt(db, 'INSERT INTO api_key_wallets (api_key, wallet_id) VALUES (?, ?)');
  for (const w of wallets ?? []) insert.run(apiKey, w);
}

/** A key to register: its public key, label, the wallets it may act on (null: all), and when. */
export interface NewKey {
  api_key: string;
  label: string;
  wallets: string[] | null;
  created_at: number;
}

export function insertKey(db: Db, key: NewKey): ApiKey {
  return db.$client.transaction(() => {
    stmt(db, 'INSERT INTO api_keys (api_key, label, all_wallets, created_at) VALUES (?, ?, ?, ?)').run(
      key.api_key,
      key.label,
      key.wallets === null ? 1 : 0,
      key.created_at,
    );
    setWallets(db, key.api_key, key.wallets);
    return getKey(db, key.api_key)!;
  })();
}

export function updateKey(db: Db, apiKey: string, patch: { label?: string; wallets?: string[] | null }): ApiKey {
  return db.$client.transaction(() => {
    if (patch.label !== undefined) stmt(db, 'UPDATE api_keys SET label = ? WHERE api_key = ?').run(patch.label, apiKey);
    if (patch.wallets !== undefined) setWallets(db, apiKey, patch.wallets);
    return getKey(db, apiKey)!;
  })();
}

export function revokeKey(db: Db, apiKey: string, now: number): ApiKey {
  stmt(db, 'UPDATE api_keys SET revoked_at = ? WHERE api_key = ? AND revoked_at IS NULL').run(now, apiKey);
  return getKey(db, apiKey)!;
}

/**
 * Accept a (key, nonce) pair once: record it until it can no longer pass the time window, and
 * mark the key used, in one commit. False when the pair was already accepted (a replay).
 */
export function consumeNonce(db: Db, apiKey: string, nonce: string, expiresAt: number, now: number): boolean {
  return db.$client.transaction(() => {
    const inserted = stmt(db, 'INSERT INTO used_nonces (api_key, nonce, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(
      apiKey,
      nonce,
      expiresAt,
    );
    if (inserted.changes === 0) return false;
    stmt(db, 'UPDATE api_keys SET last_used_at = ? WHERE api_key = ?').run(now, apiKey);
    return true;
  })();
}

/** Whether a (key, nonce) pair was accepted before (a read: while an import holds the write lock). */
export function nonceUsed(db: Db, apiKey: string, nonce: string): boolean {
  return (
    stmt<[string, string], { one: number }>(db, 'SELECT 1 AS one FROM used_nonces WHERE api_key = ? AND nonce = ?').get(apiKey, nonce) !==
    undefined
  );
}

/** Forget nonces that no longer pass the window: they would be refused as stale anyway. */
export function pruneNonces(db: Db, now: number): number {
  return stmt(db, 'DELETE FROM used_nonces WHERE expires_at < ?').run(now).changes;
}

/** The settings that record the nonce windows used on a store (shared by both engines' nonce stores). */
export const WIDEST_WINDOW_KEY = 'nonce_window_widest_ms';
export const RECORDS_FROM_KEY = 'nonce_records_from_ms';

/** What the store knows of the nonce windows used on it: the widest, and from when its records of used nonces are whole. */
export interface NonceWindowRecord {
  /** The widest window any service has used on this store (ms); undefined before one said. */
  widestMs: number | undefined;
  /** Nonces older than this (Unix ms) may have been forgotten: they cannot be told from a replay. */
  recordsFromMs: number;
}

export function nonceWindowRecord(db: Db): NonceWindowRecord {
  const read = (key: string) => stmt<[string], string>(db, 'SELECT value FROM settings WHERE key = ?').pluck().get(key);
  const widest = read(WIDEST_WINDOW_KEY);
  const from = read(RECORDS_FROM_KEY);
  return { widestMs: widest === undefined ? undefined : Number(widest), recordsFromMs: from === undefined ? -Infinity : Number(from) };
}

/**
 * A service starts with a window wider than any before: the store's widest becomes `widestMs`, the
 * nonces already recorded are kept as much longer as it grew (from the widest recorded, or
 * `previousMs` where none is), and nonces older than `recordsFromMs` (some may have been forgotten
 * under the narrower window) are from now on refused, in one commit. The widest is read again
 * inside the commit, so two services widening one store at once extend the records once.
 */
export function widenNonceWindow(db: Db, previousMs: number, widestMs: number, recordsFromMs: number, now: number): void {
  const put = stmt(
    db,
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  db.$client.transaction(() => {
    const record = nonceWindowRecord(db);
    const stored = record.widestMs ?? previousMs;
    if (widestMs > stored) stmt(db, 'UPDATE used_nonces SET expires_at = expires_at + ?').run(widestMs - stored);
    put.run(WIDEST_WINDOW_KEY, String(Math.max(widestMs, stored)), now);
    const from = Math.max(recordsFromMs, record.recordsFromMs);
    if (Number.isFinite(from)) put.run(RECORDS_FROM_KEY, String(from), now);
  })();
}
