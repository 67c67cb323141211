import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Chain, Token } from '../../../shared/catalogue';
import { ErrorCodes } from '../../../shared/errors';
import { ServiceError } from '../errors';
import type { HandlersOf, ServiceContext } from '../context';
import type { catalogueContract } from '../../../shared/catalogue';
import { getChain, getToken, listChains, listTokens, seedCatalogue, updateChain, updateToken } from './repository';

const CatalogueFile = z.object({ chains: z.array(Chain), tokens: z.array(Token) });

export function seedFromResources(ctx: ServiceContext): void {
  const file = join(ctx.resourcesDir, 'catalogue.json');
  const seed = CatalogueFile.parse(JSON.parse(readFileSync(file, 'utf8')));
  seedCatalogue(ctx.db, seed, ctx.now());
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
      return updateChain(ctx.db, chain_id, patch, ctx.now())!;
    },
    'catalogue-token-update': ({ token_id, ...patch }) => {
      if (!getToken(ctx.db, token_id)) throw new ServiceError(ErrorCodes.UNKNOWN_TOKEN, `token_id: unknown token ${JSON.stringify(token_id)}`);
      return updateToken(ctx.db, token_id, patch, ctx.now())!;
    },
  };
}
