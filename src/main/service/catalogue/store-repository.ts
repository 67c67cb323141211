import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import {
  Chain,
  Token,
  type ChainAdd,
  type ChainListQuery,
  type ChainPage,
  type ChainUpdate,
  type IgnoredToken,
  type TokenListQuery,
  type TokenPage,
  type TokenUpdate,
} from '../../../shared/catalogue';
import { ADVISORY_LOCKS } from '../db/advisory-locks';
import type { Db } from '../db/open';
import type { PgDb } from '../db/postgres';
import * as pgSchema from '../db/schema-pg';
import {
  deleteIgnored,
  deleteToken,
  getChain,
  getIgnored,
  getToken,
  ignoreToken,
  insertChain,
  insertToken,
  listChains,
  listIgnored,
  listTokens,
  nativeTokenRow,
  newChainRow,
  newTokenRow,
  seedCatalogue,
  seededHash,
  SEED_HASH_KEY,
  tokenByContract,
  updateChain,
  updateToken,
  type CatalogueSeed,
  type NewToken,
} from './repository';

/*
 * The catalogue (chains, tokens, ignored contracts) on either engine: a slice of the store
 * interface of team mode (docs/team.md), after the nonces, the API keys and the tickets. The
 * window's catalogue calls, the /nps chain and token routes and the address check read and write
 * through it; on PostgreSQL every service on the store reads one catalogue, and word of a change
 * (the `catalogue` topic of StoreChanges) drops the other services' kept answers (handlers.ts).
 *
 * An add is checked and written in one transaction, so two services adding one chain, one token id
 * or one contract at the same moment cannot both succeed: the loser is answered with what took
 * its place, for the handler to refuse it as it refuses the same add made twice one after the
 * other. On PostgreSQL the catalogue's writes that check first hold an advisory lock for their
 * transaction (there is no unique index on a chain's contracts, which are compared without case),
 * and seeding holds it too, so services starting at once seed a changed catalogue file once.
 *
 * What the ledger holds of a token (its records, their decimal places), which guards a removal
 * and a lower decimal, is read from the SQLite ledger (handlers.ts, `TokenUse`) until the ledger
 * moves.
 */

/** A chain's add lost to a chain, or to a token that already has its id (the native coin takes the chain's id). */
type ChainTaken = { taken: 'chain' | 'token' };
/** A token's add (or a contract's ignore) lost to this token, which has the token id or the contract on the chain. */
type TokenTaken = { taken: Token };

export interface CatalogueStore {
  /** A page of chains, by chain_id, filtered by exact chain_id and chain_identifier. */
  chains(q: ChainListQuery): Promise<ChainPage>;
  /** A page of tokens, by chain_id then token_id, filtered by exact chain_id and token_id. */
  tokens(q: TokenListQuery): Promise<TokenPage>;
  chain(chainId: string): Promise<Chain | undefined>;
  token(tokenId: string): Promise<Token | undefined>;
  /** The token with this contract on the chain (contracts compared without case: EVM hex). */
  tokenByContract(chainId: string, contract: string): Promise<Token | undefined>;
  /** Add a chain and its native coin as the user's rows (seeding never overwrites them), unless its id is taken by then. */
  addChain(c: ChainAdd, now: number): Promise<Chain | ChainTaken>;
  /** Change a chain as the user's; undefined when there is no such chain. */
  updateChain(chainId: string, patch: Omit<ChainUpdate, 'chain_id'>, now: number): Promise<Chain | undefined>;
  /**
   * Add a token as the user's, and take its contract off the chain's ignored ones, in one commit;
   * unless its id, or its contract on the chain, is a token's by then.
   */
  addToken(t: NewToken, ignoredKey: string, now: number): Promise<Token | TokenTaken>;
  /** Change a token as the user's; undefined when there is no such token. */
  updateToken(tokenId: string, patch: Omit<TokenUpdate, 'token_id'>, now: number): Promise<Token | undefined>;
  /** Remove a token's row (the caller has checked that no record uses it). */
  removeToken(tokenId: string): Promise<void>;
  /** The contracts ignored (spam), on one chain or all, by chain then contract. */
  ignored(chainId?: string): Promise<IgnoredToken[]>;
  /**
   * Ignore a contract (its symbol and name as last given), unless a token of the chain has it
   * (`contract` compared without case against the tokens'); `t.contract_address` is kept as given.
   */
  ignore(t: Omit<IgnoredToken, 'ignored_at'>, contract: string, now: number): Promise<IgnoredToken | TokenTaken>;
  /** No longer ignore a contract: the row removed, or undefined when it was not ignored. */
  unignore(chainId: string, contract: string): Promise<IgnoredToken | undefined>;
  /** The hash of the catalogue file the store was last seeded from, if any. */
  seededHash(): Promise<string | undefined>;
  /**
   * Seed from the catalogue file whose hash is `hash` when the store was last seeded from another
   * (rows read only then): add the missing rows, refresh the ones the user never changed, leave
   * changed ones alone, and remember the hash, in one commit. Answers whether it seeded.
   */
  seed(hash: string, rows: () => CatalogueSeed, now: number): Promise<boolean>;
}

/** The embedded store's catalogue: repository.ts's statements, on the service's connection. */
export function sqliteCatalogueStore(db: Db): CatalogueStore {
  const inTransaction = <T>(work: () => T): T => db.$client.transaction(work)();
  return {
    chains: async (q) => listChains(db, q),
    tokens: async (q) => listTokens(db, q),
    chain: async (chainId) => getChain(db, chainId),
    token: async (tokenId) => getToken(db, tokenId),
    tokenByContract: async (chainId, contract) => tokenByContract(db, chainId, contract),
    addChain: async (c, now) =>
      inTransaction(() => {
        if (getChain(db, c.chain_id)) return { taken: 'chain' as const };
        if (getToken(db, c.chain_id)) return { taken: 'token' as const };
        return insertChain(db, c, now);
      }),
    updateChain: async (chainId, patch, now) => (getChain(db, chainId) ? updateChain(db, chainId, patch, now) : undefined),
    addToken: async (t, ignoredKey, now) =>
      inTransaction(() => {
        const taken = getToken(db, t.token_id) ?? tokenByContract(db, t.chain_id, t.contract_address);
        if (taken) return { taken };
        const token = insertToken(db, t, now);
        deleteIgnored(db, t.chain_id, ignoredKey);
        return token;
      }),
    updateToken: async (tokenId, patch, now) => (getToken(db, tokenId) ? updateToken(db, tokenId, patch, now) : undefined),
    removeToken: async (tokenId) => deleteToken(db, tokenId),
    ignored: async (chainId) => listIgnored(db, chainId),
    ignore: async (t, contract, now) =>
      inTransaction(() => {
        const taken = tokenByContract(db, t.chain_id, contract);
        return taken ? { taken } : ignoreToken(db, t, now);
      }),
    unignore: async (chainId, contract) =>
      inTransaction(() => {
        const ignored = getIgnored(db, chainId, contract);
        if (ignored) deleteIgnored(db, chainId, contract);
        return ignored;
      }),
    seededHash: async () => seededHash(db),
    seed: async (hash, rows, now) => seedIfChanged(db, hash, rows, now),
  };
}

/** The embedded store's seeding, at once (the service seeds its own store as it opens: index.ts). */
export function seedIfChanged(db: Db, hash: string, rows: () => CatalogueSeed, now: number): boolean {
  if (seededHash(db) === hash) return false;
  seedCatalogue(db, rows(), hash, now);
  return true;
}

/* PostgreSQL: the same queries through drizzle's pg-core over schema-pg.ts's tables, whose columns carry the contract's names too. */

const { chains, tokens, ignoredTokens, settings } = pgSchema;

const columnsOf = <F extends string, T extends { [K in F]: PgColumn }>(fields: readonly F[], table: T) =>
  Object.fromEntries(fields.map((f) => [f, table[f]])) as Pick<T, F>;
const chainColumns = columnsOf(Object.keys(Chain.shape) as (keyof Chain)[], chains);
const tokenColumns = columnsOf(Object.keys(Token.shape) as (keyof Token)[], tokens);
const ignoredColumns = {
  chain_id: ignoredTokens.chain_id,
  contract_address: ignoredTokens.contract_address,
  symbol: ignoredTokens.symbol,
  name: ignoredTokens.name,
  ignored_at: ignoredTokens.ignored_at,
};

const where = (conds: (SQL | undefined)[]) => and(...conds.filter((c): c is SQL => c !== undefined));

/** The pool, or one transaction's client: what the queries below run on. */
type PgQuery = Pick<PgDb, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

const pgChain = async (q: PgQuery, chainId: string): Promise<Chain | undefined> =>
  (await q.select(chainColumns).from(chains).where(eq(chains.chain_id, chainId)))[0] as Chain | undefined;
const pgToken = async (q: PgQuery, tokenId: string): Promise<Token | undefined> =>
  (await q.select(tokenColumns).from(tokens).where(eq(tokens.token_id, tokenId)))[0] as Token | undefined;
const pgTokenByContract = async (q: PgQuery, chainId: string, contract: string): Promise<Token | undefined> =>
  (
    await q
      .select(tokenColumns)
      .from(tokens)
      .where(and(eq(tokens.chain_id, chainId), sql`lower(${tokens.contract_address}) = lower(${contract})`))
  )[0] as Token | undefined;
const pgSeededHash = async (q: PgQuery): Promise<string | undefined> =>
  (await q.select({ value: settings.value }).from(settings).where(eq(settings.key, SEED_HASH_KEY)))[0]?.value;

/** A team store's catalogue, on PostgreSQL. */
export function postgresCatalogueStore(db: PgDb): CatalogueStore {
  /** One transaction holding the catalogue's lock (ADVISORY_LOCKS.catalogue) until it ends: a check and its write, or a seed. */
  const locked = <T>(work: (tx: PgQuery) => Promise<T>): Promise<T> =>
    db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.catalogue})`);
      return work(tx);
    });
  return {
    async chains(q) {
      const filter = where([
        q.chain_id !== undefined ? eq(chains.chain_id, q.chain_id) : undefined,
        q.chain_identifier !== undefined ? eq(chains.chain_identifier, q.chain_identifier) : undefined,
      ]);
      const [total, list] = await Promise.all([
        db.select({ n: count() }).from(chains).where(filter),
        db
          .select(chainColumns)
          .from(chains)
          .where(filter)
          .orderBy(asc(chains.chain_id))
          .limit(q.page_size)
          .offset((q.page - 1) * q.page_size),
      ]);
      return { total: total[0]?.n ?? 0, chains: list as Chain[], page: q.page, page_size: q.page_size };
    },
    async tokens(q) {
      const filter = where([
        q.chain_id !== undefined ? eq(tokens.chain_id, q.chain_id) : undefined,
        q.token_id !== undefined ? eq(tokens.token_id, q.token_id) : undefined,
      ]);
      const [total, list] = await Promise.all([
        db.select({ n: count() }).from(tokens).where(filter),
        db
          .select(tokenColumns)
          .from(tokens)
          .where(filter)
          .orderBy(asc(tokens.chain_id), asc(tokens.token_id))
          .limit(q.page_size)
          .offset((q.page - 1) * q.page_size),
      ]);
      return { total: total[0]?.n ?? 0, tokens: list as Token[], page: q.page, page_size: q.page_size };
    },
    chain: (chainId) => pgChain(db, chainId),
    token: (tokenId) => pgToken(db, tokenId),
    tokenByContract: (chainId, contract) => pgTokenByContract(db, chainId, contract),
    addChain: (c, now) =>
      locked(async (tx) => {
        if (await pgChain(tx, c.chain_id)) return { taken: 'chain' as const };
        if (await pgToken(tx, c.chain_id)) return { taken: 'token' as const };
        await tx.insert(chains).values(newChainRow(c, now));
        await tx.insert(tokens).values(nativeTokenRow(c, now));
        return (await pgChain(tx, c.chain_id))!;
      }),
    async updateChain(chainId, patch, now) {
      const [row] = await db
        .update(chains)
        .set({ ...patch, user_modified: true, updated_at: now })
        .where(eq(chains.chain_id, chainId))
        .returning(chainColumns);
      return row as Chain | undefined;
    },
    addToken: (t, ignoredKey, now) =>
      locked(async (tx) => {
        const taken = (await pgToken(tx, t.token_id)) ?? (await pgTokenByContract(tx, t.chain_id, t.contract_address));
        if (taken) return { taken };
        const [token] = await tx.insert(tokens).values(newTokenRow(t, now)).returning(tokenColumns);
        await tx.delete(ignoredTokens).where(and(eq(ignoredTokens.chain_id, t.chain_id), eq(ignoredTokens.contract_address, ignoredKey)));
        return token as Token;
      }),
    async updateToken(tokenId, patch, now) {
      const [row] = await db
        .update(tokens)
        .set({ ...patch, user_modified: true, updated_at: now })
        .where(eq(tokens.token_id, tokenId))
        .returning(tokenColumns);
      return row as Token | undefined;
    },
    async removeToken(tokenId) {
      await db.delete(tokens).where(eq(tokens.token_id, tokenId));
    },
    ignored: (chainId) =>
      db
        .select(ignoredColumns)
        .from(ignoredTokens)
        .where(chainId === undefined ? undefined : eq(ignoredTokens.chain_id, chainId))
        .orderBy(asc(ignoredTokens.chain_id), asc(ignoredTokens.contract_address)),
    ignore: (t, contract, now) =>
      locked(async (tx) => {
        const taken = await pgTokenByContract(tx, t.chain_id, contract);
        if (taken) return { taken };
        const [row] = await tx
          .insert(ignoredTokens)
          .values({ ...t, ignored_at: now })
          .onConflictDoUpdate({ target: [ignoredTokens.chain_id, ignoredTokens.contract_address], set: { symbol: t.symbol, name: t.name } })
          .returning(ignoredColumns);
        return row!;
      }),
    async unignore(chainId, contract) {
      const [row] = await db
        .delete(ignoredTokens)
        .where(and(eq(ignoredTokens.chain_id, chainId), eq(ignoredTokens.contract_address, contract)))
        .returning(ignoredColumns);
      return row;
    },
    seededHash: () => pgSeededHash(db),
    seed: (hash, rows, now) =>
      // Services starting at once: the first seeds; the others wait for its commit, then find the hash and seed nothing.
      locked(async (tx) => {
        if ((await pgSeededHash(tx)) === hash) return false;
        const seed = rows();
        for (const c of seed.chains)
          await tx
            .insert(chains)
            .values({ ...c, user_modified: false, created_at: now, updated_at: now })
            .onConflictDoUpdate({ target: chains.chain_id, set: { ...c, updated_at: now }, setWhere: eq(chains.user_modified, false) });
        for (const t of seed.tokens)
          await tx
            .insert(tokens)
            .values({ ...t, user_modified: false, created_at: now, updated_at: now })
            .onConflictDoUpdate({ target: tokens.token_id, set: { ...t, updated_at: now }, setWhere: eq(tokens.user_modified, false) });
        await tx
          .insert(settings)
          .values({ key: SEED_HASH_KEY, value: hash, updated_at: now })
          .onConflictDoUpdate({ target: settings.key, set: { value: hash, updated_at: now } });
        return true;
      }),
  };
}
