import { and, asc, count, eq, type SQL } from 'drizzle-orm';
import type { Chain, ChainListQuery, Token, TokenListQuery } from '../../../shared/catalogue';
import type { Page } from '../../../shared/primitives';
import type { Db } from '../db/open';
import { chains, tokens } from '../db/schema';

const chainColumns = {
  chain_id: chains.chain_id,
  chain_identifier: chains.chain_identifier,
  name: chains.name,
  native_token_id: chains.native_token_id,
  is_testnet: chains.is_testnet,
  confirmations: chains.confirmations,
  explorer_url: chains.explorer_url,
  explorer_tx_template: chains.explorer_tx_template,
  explorer_address_template: chains.explorer_address_template,
};

const tokenColumns = {
  token_id: tokens.token_id,
  chain_id: tokens.chain_id,
  symbol: tokens.symbol,
  name: tokens.name,
  contract_address: tokens.contract_address,
  decimals: tokens.decimals,
  is_native: tokens.is_native,
  dust_threshold: tokens.dust_threshold,
};

const where = (conds: (SQL | undefined)[]) => and(...conds.filter((c): c is SQL => c !== undefined));

export function listChains(db: Db, q: ChainListQuery): Page<Chain> {
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
    .all();
  return { list, total, page: q.page, page_size: q.page_size };
}

export function listTokens(db: Db, q: TokenListQuery): Page<Token> {
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
    .all();
  return { list, total, page: q.page, page_size: q.page_size };
}

export function getChain(db: Db, chainId: string): Chain | undefined {
  return db.select(chainColumns).from(chains).where(eq(chains.chain_id, chainId)).get();
}

export function getToken(db: Db, tokenId: string): Token | undefined {
  return db.select(tokenColumns).from(tokens).where(eq(tokens.token_id, tokenId)).get();
}

export function updateChain(db: Db, chainId: string, patch: Partial<Pick<Chain, 'confirmations' | 'name'>>, now: number): Chain | undefined {
  db.update(chains).set({ ...patch, user_modified: true, updated_at: now }).where(eq(chains.chain_id, chainId)).run();
  return getChain(db, chainId);
}

export function updateToken(db: Db, tokenId: string, patch: Partial<Pick<Token, 'dust_threshold' | 'name'>>, now: number): Token | undefined {
  db.update(tokens).set({ ...patch, user_modified: true, updated_at: now }).where(eq(tokens.token_id, tokenId)).run();
  return getToken(db, tokenId);
}

/** Seed rows: add the missing ones, refresh the ones the user never changed, leave changed ones alone. */
export function seedCatalogue(db: Db, seed: { chains: Chain[]; tokens: Token[] }, now: number): void {
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
  })();
}
