import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import {
  Chain,
  Token,
  type ChainAdd,
  type ChainListQuery,
  type ChainPage,
  type ChainUpdate,
  type TokenAdd,
  type TokenListQuery,
  type TokenPage,
  type TokenUpdate,
  type IgnoredToken,
} from '../../../shared/catalogue';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/open';
import { keyEquals } from '../db/ledger-sql';
import { chains, ignoredTokens, settings, tokens } from '../db/schema';
import { stmt } from '../db/statements';

/* The catalogue's SQL. Its columns carry the contract's names, so a row is read under the names it goes out with. */

/** The table columns of each contract field, in the contract's order. */
const columnsOf = <F extends string, T extends { [K in F]: SQLiteColumn }>(fields: readonly F[], table: T) =>
  Object.fromEntries(fields.map((f) => [f, table[f]])) as Pick<T, F>;
const chainColumns = columnsOf(Object.keys(Chain.shape) as (keyof Chain)[], chains);
const tokenColumns = columnsOf(Object.keys(Token.shape) as (keyof Token)[], tokens);

const where = (conds: (SQL | undefined)[]) => and(...conds.filter((c): c is SQL => c !== undefined));

export function listChains(db: Db, q: ChainListQuery): ChainPage {
  const filter = where([
    q.chain_id !== undefined ? eq(chains.chain_id, q.chain_id) : undefined,
    q.chain_identifier !== undefined ? eq(chains.chain_identifier, q.chain_identifier) : undefined,
  ]);
  const total = db.select({ n: count() }).from(chains).where(filter).get()?.n ?? 0;
  const list = db
    .select(chainColumns)
    .from(chains)
    .where(filter)
    .orderBy(asc(chains.chain_id))
    .limit(q.page_size)
    .offset((q.page - 1) * q.page_size)
    .all() as Chain[];
  return { total, chains: list, page: q.page, page_size: q.page_size };
}

export function listTokens(db: Db, q: TokenListQuery): TokenPage {
  const filter = where([
    q.chain_id !== undefined ? eq(tokens.chain_id, q.chain_id) : undefined,
    q.token_id !== undefined ? eq(tokens.token_id, q.token_id) : undefined,
  ]);
  const total = db.select({ n: count() }).from(tokens).where(filter).get()?.n ?? 0;
  const list = db
    .select(tokenColumns)
    .from(tokens)
    .where(filter)
    .orderBy(asc(tokens.chain_id), asc(tokens.token_id))
    .limit(q.page_size)
    .offset((q.page - 1) * q.page_size)
    .all() as Token[];
  return { total, tokens: list, page: q.page, page_size: q.page_size };
}

export function getChain(db: Db, chainId: string): Chain | undefined {
  return db.select(chainColumns).from(chains).where(eq(chains.chain_id, chainId)).get() as Chain | undefined;
}

export function getToken(db: Db, tokenId: string): Token | undefined {
  return db.select(tokenColumns).from(tokens).where(eq(tokens.token_id, tokenId)).get() as Token | undefined;
}

export function updateChain(db: Db, chainId: string, patch: Omit<ChainUpdate, 'chain_id'>, now: number): Chain | undefined {
  db.update(chains)
    .set({ ...patch, user_modified: true, updated_at: now })
    .where(eq(chains.chain_id, chainId))
    .run();
  return getChain(db, chainId);
}

export function updateToken(db: Db, tokenId: string, patch: Omit<TokenUpdate, 'token_id'>, now: number): Token | undefined {
  db.update(tokens)
    .set({ ...patch, user_modified: true, updated_at: now })
    .where(eq(tokens.token_id, tokenId))
    .run();
  return getToken(db, tokenId);
}

/** Add a chain and its native coin, as the user's rows (seeding never overwrites them). */
/** A chain as the user adds it: its row (its own native token's id is the chain's), on either engine. */
export function newChainRow(c: ChainAdd, now: number) {
  return {
    chain_id: c.chain_id,
    chain_identifier: c.chain_identifier,
    native_token_id: c.chain_id,
    confirming_threshold: c.confirming_threshold,
    explorer_tx_url: c.explorer_tx_url,
    explorer_address_url: c.explorer_address_url,
    enabled: true,
    name: c.name,
    is_testnet: c.is_testnet,
    explorer_url: c.explorer_tx_url ? new URL(c.explorer_tx_url.replace('{hash}', 'x')).origin : '',
    network_id: c.network_id,
    user_modified: true,
    created_at: now,
    updated_at: now,
  };
}

/** The native coin of a chain the user adds: its token row, on either engine. */
export function nativeTokenRow(c: ChainAdd, now: number) {
  return {
    chain_id: c.chain_id,
    token_id: c.chain_id,
    symbol: c.native_symbol,
    contract_address: '',
    decimal: c.native_decimal,
    dust_threshold: '0',
    can_deposit: true,
    can_withdraw: true,
    name: c.native_symbol,
    is_native: true,
    user_modified: true,
    created_at: now,
    updated_at: now,
  };
}

/** A token as the user adds it: its row, on either engine. */
export const newTokenRow = (t: NewToken, now: number) => ({
  ...t,
  can_deposit: true,
  can_withdraw: true,
  is_native: false,
  user_modified: true,
  created_at: now,
  updated_at: now,
});

export function insertChain(db: Db, c: ChainAdd, now: number): Chain {
  db.$client.transaction(() => {
    db.insert(chains).values(newChainRow(c, now)).run();
    db.insert(tokens).values(nativeTokenRow(c, now)).run();
  })();
  return getChain(db, c.chain_id)!;
}

/** A token as it is added: its id and name settled. */
export type NewToken = Required<Omit<TokenAdd, 'name'>> & { name: string };

/** Add a token, as the user's row. */
export function insertToken(db: Db, t: NewToken, now: number): Token {
  db.insert(tokens).values(newTokenRow(t, now)).run();
  return getToken(db, t.token_id)!;
}

/** Remove a token's row (the handler has checked that no record uses it). */
export function deleteToken(db: Db, tokenId: string): void {
  db.delete(tokens).where(eq(tokens.token_id, tokenId)).run();
}

/** The ledger's records of a token: by the chain and token numbers of the records' index (db/ledger-sql.ts). */
const OF_TOKEN = `${keyEquals('chain_id', 't.chain_no')} AND ${keyEquals('token_id', 't.token_no')}`;

/** How many ledger records are in the token. */
export function tokenRecordCount(db: Db, chainId: string, tokenId: string): number {
  return stmt<[string, string], number>(db, `SELECT count(*) FROM transactions t WHERE ${OF_TOKEN}`)
    .pluck()
    .get(chainId, tokenId) as number;
}

/**
 * The ledger's records of a token whose amount has more decimal places than `places` (trailing
 * zeros not counted; amounts are stored as plain decimal text): how many, and the one with the
 * most, which a decimal below its places could not hold.
 */
export function tokenAmountsBeyond(
  db: Db,
  chainId: string,
  tokenId: string,
  places: number,
): { count: number; most: { transaction_id: string; amount: string; places: number } } | undefined {
  const row = stmt<[string, string, number], { transaction_id: string; amount: string; places: number; count: number }>(
    db,
    `SELECT transaction_id, amount, places, count(*) OVER () AS count FROM (
       SELECT t.transaction_id, t.amount, t.rowid AS r,
         CASE WHEN instr(t.amount, '.') = 0 THEN 0 ELSE length(rtrim(substr(t.amount, instr(t.amount, '.') + 1), '0')) END AS places
       FROM transactions t WHERE ${OF_TOKEN})
     WHERE places > ? ORDER BY places DESC, r LIMIT 1`,
  ).get(chainId, tokenId, places);
  return row && { count: row.count, most: { transaction_id: row.transaction_id, amount: row.amount, places: row.places } };
}

/** The token with this contract on the chain (contracts compared without case: EVM hex). */
export function tokenByContract(db: Db, chainId: string, contract: string): Token | undefined {
  return db
    .select(tokenColumns)
    .from(tokens)
    .where(and(eq(tokens.chain_id, chainId), sql`lower(${tokens.contract_address}) = lower(${contract})`))
    .get() as Token | undefined;
}

/** The settings row that holds the hash of the catalogue file last seeded from. */
export const SEED_HASH_KEY = 'catalogue_seed_sha256';

/** The catalogue file's rows: its chains carry network_id beside the /nps fields. */
export type CatalogueSeed = { chains: (Chain & { network_id: string })[]; tokens: Token[] };

/** The hash of the catalogue file the store was last seeded from, if any. */
export function seededHash(db: Db): string | undefined {
  return db.select({ value: settings.value }).from(settings).where(eq(settings.key, SEED_HASH_KEY)).get()?.value;
}

/**
 * Seed rows: add the missing ones, refresh the ones the user never changed, leave changed ones
 * alone; then remember the file's hash, in the same transaction.
 */
export function seedCatalogue(db: Db, seed: CatalogueSeed, fileHash: string, now: number): void {
  db.$client.transaction(() => {
    for (const c of seed.chains) {
      db.insert(chains)
        .values({ ...c, user_modified: false, created_at: now, updated_at: now })
        .onConflictDoUpdate({ target: chains.chain_id, set: { ...c, updated_at: now }, setWhere: eq(chains.user_modified, false) })
        .run();
    }
    for (const t of seed.tokens) {
      db.insert(tokens)
        .values({ ...t, user_modified: false, created_at: now, updated_at: now })
        .onConflictDoUpdate({ target: tokens.token_id, set: { ...t, updated_at: now }, setWhere: eq(tokens.user_modified, false) })
        .run();
    }
    db.insert(settings)
      .values({ key: SEED_HASH_KEY, value: fileHash, updated_at: now })
      .onConflictDoUpdate({ target: settings.key, set: { value: fileHash, updated_at: now } })
      .run();
  })();
}

/**
 * SQLite's count of commits by other connections to this store (another process, the import
 * thread): with this connection's own writes, it tells whether the catalogue may have changed. A
 * pragma that reads no page.
 */
export function dataVersion(db: Db): number {
  return stmt<[], number>(db, 'PRAGMA data_version').pluck().get() as number;
}

/** The id a node of the chain must answer ('' unknown; the /nps answer has no such field). */
export function chainNetworkId(db: Db, chainId: string): string | undefined {
  return db.select({ network_id: chains.network_id }).from(chains).where(eq(chains.chain_id, chainId)).get()?.network_id;
}

const ignoredColumns = {
  chain_id: ignoredTokens.chain_id,
  contract_address: ignoredTokens.contract_address,
  symbol: ignoredTokens.symbol,
  name: ignoredTokens.name,
  ignored_at: ignoredTokens.ignored_at,
};

/** The contracts ignored (spam), on one chain or all, by chain then contract. */
export function listIgnored(db: Db, chainId?: string): IgnoredToken[] {
  return db
    .select(ignoredColumns)
    .from(ignoredTokens)
    .where(chainId === undefined ? undefined : eq(ignoredTokens.chain_id, chainId))
    .orderBy(asc(ignoredTokens.chain_id), asc(ignoredTokens.contract_address))
    .all();
}

export function getIgnored(db: Db, chainId: string, contract: string): IgnoredToken | undefined {
  return db
    .select(ignoredColumns)
    .from(ignoredTokens)
    .where(and(eq(ignoredTokens.chain_id, chainId), eq(ignoredTokens.contract_address, contract)))
    .get();
}

/** Ignore a contract (its symbol and name as last given). */
export function ignoreToken(db: Db, t: Omit<IgnoredToken, 'ignored_at'>, now: number): IgnoredToken {
  db.insert(ignoredTokens)
    .values({ ...t, ignored_at: now })
    .onConflictDoUpdate({
      target: [ignoredTokens.chain_id, ignoredTokens.contract_address],
      set: { symbol: t.symbol, name: t.name },
    })
    .run();
  return getIgnored(db, t.chain_id, t.contract_address)!;
}

export function deleteIgnored(db: Db, chainId: string, contract: string): void {
  db.delete(ignoredTokens)
    .where(and(eq(ignoredTokens.chain_id, chainId), eq(ignoredTokens.contract_address, contract)))
    .run();
}
