import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Chain, Token } from '../../../shared/catalogue';
import { ErrorCodes } from '../../../shared/errors';
import { ServiceError } from '../errors';
import type { HandlersOf, ServiceContext } from '../context';
import type { catalogueContract } from '../../../shared/catalogue';
import type { Db } from '../db/open';
import { dataVersion, getChain, getToken, listChains, listTokens, seedCatalogue, seededHash, updateChain, updateToken } from './repository';

const CatalogueFile = z.object({ chains: z.array(Chain), tokens: z.array(Token) });

/** Catalogue writes made through this connection, per store (SQLite's data_version counts only other connections'). */
const ownWrites = new WeakMap<Db, number>();
const wrote = (db: Db) => ownWrites.set(db, (ownWrites.get(db) ?? 0) + 1);

/**
 * Changes whenever the catalogue may have changed: an edit through this service, or a commit by
 * another connection (another process, the import thread). Answers built from the catalogue stay
 * good while it stays the same (the HTTP door keeps the serialized pages by it).
 */
export const catalogueVersion = (ctx: ServiceContext): string => `${ownWrites.get(ctx.db) ?? 0}:${dataVersion(ctx.db)}`;

/**
 * Seed the catalogue from resources/catalogue.json when the file differs from the one the store
 * was last seeded from; an unchanged file costs a read and a hash, and writes nothing.
 */
export function seedFromResources(ctx: ServiceContext): void {
  const text = readFileSync(join(ctx.resourcesDir, 'catalogue.json'));
  const hash = createHash('sha256').update(text).digest('hex');
  if (seededHash(ctx.db) === hash) return;
  const seed = CatalogueFile.parse(JSON.parse(text.toString('utf8')));
  seedCatalogue(ctx.db, seed, hash, ctx.now());
  wrote(ctx.db);
}

/** The chain, or 3001 naming it. */
export function requireChain(ctx: ServiceContext, chainId: string): Chain {
  const chain = getChain(ctx.db, chainId);
  if (!chain) throw new ServiceError(ErrorCodes.UNKNOWN_CHAIN, `chain_id: unknown chain ${JSON.stringify(chainId)}`);
  return chain;
}

export function catalogueHandlers(ctx: ServiceContext): HandlersOf<typeof catalogueContract> {
  return {
    'catalogue-chains-list': (q) => listChains(ctx.db, q),
    'catalogue-tokens-list': (q) => listTokens(ctx.db, q),
    'catalogue-chain-update': ({ chain_id, ...patch }) => {
      requireChain(ctx, chain_id);
      const chain = updateChain(ctx.db, chain_id, patch, ctx.now())!;
      wrote(ctx.db);
      return chain;
    },
    'catalogue-token-update': ({ token_id, ...patch }) => {
      if (!getToken(ctx.db, token_id))
        throw new ServiceError(ErrorCodes.UNKNOWN_TOKEN, `token_id: unknown token ${JSON.stringify(token_id)}`);
      const token = updateToken(ctx.db, token_id, patch, ctx.now())!;
      wrote(ctx.db);
      return token;
    },
  };
}
