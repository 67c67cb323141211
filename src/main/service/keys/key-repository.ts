import type pg from 'pg';
import type { ApiKey } from '../../../shared/keys';
import type { Db } from '../db/open';
import { inPgTransaction, type PgDb } from '../db/postgres';
import { getKey, insertKey, listKeys, revokeKey, updateKey, type NewKey } from './repository';

/*
 * The API keys that sign requests, on either engine: a slice of the store interface of team mode
 * (docs/team.md), beside the nonces they use up. On PostgreSQL every service on the store checks
 * signatures against the same keys: a key made through one instance signs for every other, and a
 * key revoked through one is refused by every other at its next request, since each request reads
 * its key from the store (no copy is kept that could outlive a revocation).
 */

export interface KeyStore {
  /** A key by its public key (lower-case hex), revoked or not; undefined when unknown. */
  get(apiKey: string): Promise<ApiKey | undefined>;
  /** Every key, newest first. */
  list(): Promise<ApiKey[]>;
  /** Register a key with the wallets it may act on (null: all), in one commit. */
  insert(key: NewKey): Promise<ApiKey>;
  /** Change a key's label or wallets, in one commit. */
  update(apiKey: string, patch: { label?: string; wallets?: string[] | null }): Promise<ApiKey>;
  /** Revoke a key; a key revoked before keeps its first revocation's time. */
  revoke(apiKey: string, now: number): Promise<ApiKey>;
}

/** The embedded store's keys: repository.ts's statements, on the service's connection. */
export function sqliteKeyStore(db: Db): KeyStore {
  return {
    get: async (apiKey) => getKey(db, apiKey),
    list: async () => listKeys(db),
    insert: async (key) => insertKey(db, key),
    update: async (apiKey, patch) => updateKey(db, apiKey, patch),
    revoke: async (apiKey, now) => revokeKey(db, apiKey, now),
  };
}

interface PgKeyRow {
  api_key: string;
  label: string;
  all_wallets: boolean;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
  wallets: string[];
}

const SELECT_KEYS = `
  SELECT k.api_key, k.label, k.all_wallets, k.created_at, k.revoked_at, k.last_used_at,
         coalesce((SELECT array_agg(w.wallet_id ORDER BY w.wallet_id) FROM api_key_wallets w WHERE w.api_key = k.api_key), '{}') AS wallets
  FROM api_keys k`;

const toApiKey = (row: PgKeyRow): ApiKey => ({
  api_key: row.api_key,
  label: row.label,
  wallets: row.all_wallets ? null : row.wallets,
  created_at: row.created_at,
  revoked_at: row.revoked_at,
  last_used_at: row.last_used_at,
});

type Query = Pick<pg.PoolClient, 'query'>;

async function readKey(q: Query, apiKey: string): Promise<ApiKey | undefined> {
  const { rows } = await q.query<PgKeyRow>(`${SELECT_KEYS} WHERE k.api_key = $1`, [apiKey]);
  return rows[0] && toApiKey(rows[0]);
}

async function setWallets(q: Query, apiKey: string, wallets: string[] | null): Promise<void> {
  await q.query('UPDATE api_keys SET all_wallets = $1 WHERE api_key = $2', [wallets === null, apiKey]);
  await q.query('DELETE FROM api_key_wallets WHERE api_key = $1', [apiKey]);
  if (wallets !== null && wallets.length > 0)
    await q.query('INSERT INTO api_key_wallets (api_key, wallet_id) SELECT $1, unnest($2::text[])', [apiKey, wallets]);
}

/** A team store's keys, on PostgreSQL. */
export function postgresKeyStore(db: PgDb): KeyStore {
  const pool = db.$client;
  return {
    get: (apiKey) => readKey(pool, apiKey),
    async list() {
      const { rows } = await pool.query<PgKeyRow>(`${SELECT_KEYS} ORDER BY k.created_at DESC, k.api_key`);
      return rows.map(toApiKey);
    },
    insert: (key) =>
      inPgTransaction(pool, async (client) => {
        await client.query('INSERT INTO api_keys (api_key, label, all_wallets, created_at) VALUES ($1, $2, $3, $4)', [
          key.api_key,
          key.label,
          key.wallets === null,
          key.created_at,
        ]);
        await setWallets(client, key.api_key, key.wallets);
        return (await readKey(client, key.api_key))!;
      }),
    update: (apiKey, patch) =>
      inPgTransaction(pool, async (client) => {
        if (patch.label !== undefined) await client.query('UPDATE api_keys SET label = $1 WHERE api_key = $2', [patch.label, apiKey]);
        if (patch.wallets !== undefined) await setWallets(client, apiKey, patch.wallets);
        return (await readKey(client, apiKey))!;
      }),
    async revoke(apiKey, now) {
      await pool.query('UPDATE api_keys SET revoked_at = $1 WHERE api_key = $2 AND revoked_at IS NULL', [now, apiKey]);
      return (await readKey(pool, apiKey))!;
    },
  };
}
