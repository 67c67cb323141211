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
import {
  dataVersion,
  deleteToken,
  getChain,
  getToken,
  insertChain,
  insertToken,
  listChains,
  listTokens,
  seedCatalogue,
  seededHash,
  tokenAmountsBeyond,
  tokenByContract,
  tokenRecordCount,
  updateChain,
  updateToken,
} from './repository';
import { byDoor } from '../said';

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

/** The token, or 3002 naming it. */
function requireToken(ctx: ServiceContext, tokenId: string): Token {
  const token = getToken(ctx.db, tokenId);
  if (!token) throw new ServiceError(ErrorCodes.UNKNOWN_TOKEN, `token_id: unknown token ${JSON.stringify(tokenId)}`);
  return token;
}

/** The form of a contract address per chain family (its checksum is the explorer's business: the file names the contract as it is). */
const CONTRACT_SHAPE: Record<string, { pattern: RegExp; name: string }> = {
  ETH: { pattern: /^0x[0-9a-fA-F]{40}$/, name: 'an EVM address (0x and 40 hex digits)' },
  TRON: { pattern: /^T[1-9A-HJ-NP-Za-km-z]{33}$/, name: 'a TRON address (T and 33 Base58 characters)' },
};

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
      const before = requireToken(ctx, token_id);
      if (patch.decimal !== undefined && patch.decimal < before.decimal) {
        // The import refuses an amount with more places than its token's decimal; a lower decimal must still hold every record's.
        const beyond = tokenAmountsBeyond(ctx.db, before.chain_id, token_id, patch.decimal);
        if (beyond) {
          const { count, most } = beyond;
          throw new ServiceError(
            ErrorCodes.INVALID_PARAM,
            `decimal: ${count === 1 ? '1 record' : `${count} records`} of ${token_id} ${count === 1 ? 'has an amount' : 'have amounts'} with more than ${patch.decimal} decimal places (transaction ${most.transaction_id}: ${most.amount}, ${most.places} places), so ${token_id} keeps at least ${most.places}`,
          );
        }
      }
      const token = updateToken(ctx.db, token_id, patch, ctx.now())!;
      wrote(ctx.db);
      return token;
    },
    'catalogue-token-remove': ({ token_id }) => {
      const token = requireToken(ctx, token_id);
      if (getChain(ctx.db, token.chain_id)?.native_token_id === token_id)
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `token_id: ${token_id} is the native coin of ${token.chain_id}; it cannot be removed`,
        );
      const used = tokenRecordCount(ctx.db, token.chain_id, token_id);
      if (used > 0)
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `token_id: ${used === 1 ? '1 ledger record is' : `${used} ledger records are`} in ${token_id}; only a token no record uses can be removed`,
        );
      deleteToken(ctx.db, token_id);
      wrote(ctx.db);
      return token;
    },
    'catalogue-chain-add': (input) => {
      if (getChain(ctx.db, input.chain_id))
        throw new ServiceError(ErrorCodes.INVALID_PARAM, `chain_id: ${input.chain_id} is already in the catalogue`);
      if (getToken(ctx.db, input.chain_id))
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `chain_id: a token ${input.chain_id} exists; the native coin takes the chain's id`,
        );
      const chain = insertChain(ctx.db, input, ctx.now());
      wrote(ctx.db);
      return chain;
    },
    'catalogue-token-add': (input) => {
      const chain = requireChain(ctx, input.chain_id);
      const shape = CONTRACT_SHAPE[chain.chain_identifier];
      if (shape && !shape.pattern.test(input.contract_address))
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `contract_address: ${JSON.stringify(input.contract_address)} is not ${shape.name}`,
        );
      const tokenId = input.token_id ?? `${input.chain_id}_${input.symbol.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
      if (!/^[A-Z][A-Z0-9_]{1,31}$/.test(tokenId))
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `token_id: ${JSON.stringify(tokenId)} is not a valid id; give ${byDoor('--token-id', 'a Token ID')} of capitals, digits and _`,
        );
      if (getToken(ctx.db, tokenId))
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `token_id: ${tokenId} is already in the catalogue (give another ${byDoor('--token-id', 'Token ID')})`,
        );
      const same = tokenByContract(ctx.db, input.chain_id, input.contract_address);
      if (same)
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `contract_address: ${input.chain_id} already has this contract as ${same.token_id}`,
        );
      const token = insertToken(ctx.db, { ...input, token_id: tokenId, name: input.name ?? input.symbol }, ctx.now());
      wrote(ctx.db);
      return token;
    },
  };
}
