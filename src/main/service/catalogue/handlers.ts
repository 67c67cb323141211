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
import { dataVersion, getChain, tokenAmountsBeyond, tokenRecordCount, type CatalogueSeed } from './repository';
import { seedIfChanged, type CatalogueStore } from './store-repository';
import { followCatalogue, type CatalogueVersion } from './version';
import { byDoor } from '../said';

/** The file's chains carry network_id beside the /nps fields (the id a node of the chain answers). */
const CatalogueFile = z.object({ chains: z.array(Chain.extend({ network_id: z.string().default('') })), tokens: z.array(Token) });

/** Each service's catalogue version (version.ts), from its start (followCatalogueOf) to its close. */
const versions = new WeakMap<ServiceContext, CatalogueVersion>();

/**
 * Start following the service's catalogue changes (openService), on the store's word of a change;
 * `embedded`: the catalogue is the service's own SQLite store, whose other connections announce
 * nothing (version.ts says who they may be). Returns the way to stop.
 */
export function followCatalogueOf(ctx: ServiceContext, embedded: boolean): () => void {
  const version = followCatalogue(ctx.changes, embedded ? () => dataVersion(ctx.db) : undefined);
  versions.set(ctx, version);
  return version.stop;
}

const versionOf = (ctx: ServiceContext): CatalogueVersion => {
  const version = versions.get(ctx);
  if (!version) throw new Error('the catalogue is not followed: a service follows it from its start (followCatalogueOf)');
  return version;
};

/**
 * Changes whenever the catalogue may have changed: a write through this service, word of one
 * through another service on the store, a commit by another connection to a SQLite file. Answers
 * built from the catalogue stay good while it stays the same (the HTTP door keeps the serialized
 * pages by it).
 */
export const catalogueVersion = (ctx: ServiceContext): string => versionOf(ctx).read();

/** The catalogue file the app ships (resources/catalogue.json): its hash, and its rows, read when a seed needs them. */
function shippedCatalogue(ctx: ServiceContext): { hash: string; rows: () => CatalogueSeed } {
  const text = readFileSync(join(ctx.resourcesDir, 'catalogue.json'));
  return {
    hash: createHash('sha256').update(text).digest('hex'),
    rows: () => CatalogueFile.parse(JSON.parse(text.toString('utf8'))),
  };
}

/**
 * Seed the service's own SQLite store from resources/catalogue.json when the file differs from the
 * one it was last seeded from, at once as the service opens; an unchanged file costs a read and a
 * hash, and writes nothing. Answers whether it seeded (index.ts then announces it).
 */
export function seedFromResources(ctx: ServiceContext): boolean {
  const { hash, rows } = shippedCatalogue(ctx);
  if (!seedIfChanged(ctx.db, hash, rows, ctx.now())) return false;
  versionOf(ctx).changed();
  return true;
}

/**
 * The same on a store shared with other services (a team store): of services starting at once,
 * one seeds and the others find its hash (store-repository.ts). Answers whether this one seeded.
 */
export async function seedShared(ctx: ServiceContext, store: CatalogueStore): Promise<boolean> {
  const { hash, rows } = shippedCatalogue(ctx);
  if (!(await store.seed(hash, rows, ctx.now()))) return false;
  versionOf(ctx).changed();
  return true;
}

/**
 * The chain, or 3001 naming it, from the service's own SQLite store: what the wallets, the checks
 * against the chain and the explorer links read until they move to the store interface
 * (docs/team.md); the catalogue's own calls and the address check read ctx.catalogue.
 */
export function requireChain(ctx: ServiceContext, chainId: string): Chain {
  return getChain(ctx.db, chainId) ?? unknownChain(chainId);
}

/** The chain, or 3001 naming it, from the service's catalogue (ctx.catalogue). */
export async function catalogueChain(ctx: ServiceContext, chainId: string): Promise<Chain> {
  return (await ctx.catalogue.chain(chainId)) ?? unknownChain(chainId);
}

const unknownChain = (chainId: string): never => {
  throw new ServiceError(ErrorCodes.UNKNOWN_CHAIN, `chain_id: unknown chain ${JSON.stringify(chainId)}`);
};

/** The token, or 3002 naming it. */
async function requireToken(ctx: ServiceContext, tokenId: string): Promise<Token> {
  return (await ctx.catalogue.token(tokenId)) ?? unknownToken(tokenId);
}

const unknownToken = (tokenId: string): never => {
  throw new ServiceError(ErrorCodes.UNKNOWN_TOKEN, `token_id: unknown token ${JSON.stringify(tokenId)}`);
};

/**
 * What the ledger holds of a token, which guards the catalogue's edits: a token some record uses
 * is not removed, and its decimal is not lowered below a record's places. Read from the service's
 * own SQLite ledger, also when the catalogue is on a team store, until the ledger moves there
 * (docs/team.md): the one seam between the catalogue and the ledger.
 */
interface TokenUse {
  /** How many ledger records are in the token. */
  records(chainId: string, tokenId: string): Promise<number>;
  /** The records whose amount has more decimal places than `places`: how many, and the one with the most. */
  beyond(chainId: string, tokenId: string, places: number): Promise<ReturnType<typeof tokenAmountsBeyond>>;
}

const ledgerTokenUse = (db: Db): TokenUse => ({
  records: async (chainId, tokenId) => tokenRecordCount(db, chainId, tokenId),
  beyond: async (chainId, tokenId, places) => tokenAmountsBeyond(db, chainId, tokenId, places),
});

/** The form of a contract address per chain family (its checksum is the explorer's business: the file names the contract as it is). */
const CONTRACT_SHAPE: Record<string, { pattern: RegExp; name: string }> = {
  ETH: { pattern: /^0x[0-9a-fA-F]{40}$/, name: 'an EVM address (0x and 40 hex digits)' },
  TRON: { pattern: /^T[1-9A-HJ-NP-Za-km-z]{33}$/, name: 'a TRON address (T and 33 Base58 characters)' },
};

/** A contract as the store keeps it: EVM hex lower-case (compared without case), others as given. */
const contractKey = (family: string, contract: string): string => (family === 'ETH' ? contract.toLowerCase() : contract);

/** The contract checked for the chain's family, or 1002 naming it. */
function requireContractShape(chain: Chain, contract: string): void {
  const shape = CONTRACT_SHAPE[chain.chain_identifier];
  if (shape && !shape.pattern.test(contract))
    throw new ServiceError(ErrorCodes.INVALID_PARAM, `contract_address: ${JSON.stringify(contract)} is not ${shape.name}`);
}

export function catalogueHandlers(ctx: ServiceContext): HandlersOf<typeof catalogueContract> {
  const used = ledgerTokenUse(ctx.db);
  const changed = () => versionOf(ctx).changed();
  return {
    'catalogue-ignored-list': ({ chain_id }) => ctx.catalogue.ignored(chain_id),
    'catalogue-token-ignore': async (input) => {
      const chain = await catalogueChain(ctx, input.chain_id);
      requireContractShape(chain, input.contract_address);
      const ignored = await ctx.catalogue.ignore(
        { ...input, contract_address: contractKey(chain.chain_identifier, input.contract_address) },
        input.contract_address,
        ctx.now(),
      );
      if ('taken' in ignored)
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `contract_address: it is the catalogue's token ${ignored.taken.token_id} on ${chain.chain_id}; remove the token first (only a contract the catalogue lacks is ignored)`,
        );
      changed();
      return ignored;
    },
    'catalogue-token-unignore': async (input) => {
      const chain = await catalogueChain(ctx, input.chain_id);
      const ignored = await ctx.catalogue.unignore(chain.chain_id, contractKey(chain.chain_identifier, input.contract_address));
      if (!ignored)
        throw new ServiceError(ErrorCodes.INVALID_PARAM, `contract_address: ${input.contract_address} is not ignored on ${chain.chain_id}`);
      changed();
      return ignored;
    },
    'catalogue-chains-list': (q) => ctx.catalogue.chains(q),
    'catalogue-tokens-list': (q) => ctx.catalogue.tokens(q),
    'catalogue-chain-update': async ({ chain_id, ...patch }) => {
      const chain = (await ctx.catalogue.updateChain(chain_id, patch, ctx.now())) ?? unknownChain(chain_id);
      changed();
      return chain;
    },
    'catalogue-token-update': async ({ token_id, ...patch }) => {
      const before = await requireToken(ctx, token_id);
      if (patch.decimal !== undefined && patch.decimal < before.decimal) {
        // The import refuses an amount with more places than its token's decimal; a lower decimal must still hold every record's.
        const beyond = await used.beyond(before.chain_id, token_id, patch.decimal);
        if (beyond) {
          const { count, most } = beyond;
          throw new ServiceError(
            ErrorCodes.INVALID_PARAM,
            `decimal: ${count === 1 ? '1 record' : `${count} records`} of ${token_id} ${count === 1 ? 'has an amount' : 'have amounts'} with more than ${patch.decimal} decimal places (transaction ${most.transaction_id}: ${most.amount}, ${most.places} places), so ${token_id} keeps at least ${most.places}`,
          );
        }
      }
      const token = (await ctx.catalogue.updateToken(token_id, patch, ctx.now())) ?? unknownToken(token_id);
      changed();
      return token;
    },
    'catalogue-token-remove': async ({ token_id }) => {
      const token = await requireToken(ctx, token_id);
      if ((await ctx.catalogue.chain(token.chain_id))?.native_token_id === token_id)
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `token_id: ${token_id} is the native coin of ${token.chain_id}; it cannot be removed`,
        );
      const records = await used.records(token.chain_id, token_id);
      if (records > 0)
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `token_id: ${records === 1 ? '1 ledger record is' : `${records} ledger records are`} in ${token_id}; only a token no record uses can be removed`,
        );
      await ctx.catalogue.removeToken(token_id);
      changed();
      return token;
    },
    'catalogue-chain-add': async (input) => {
      const chain = await ctx.catalogue.addChain(input, ctx.now());
      if ('taken' in chain)
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          chain.taken === 'chain'
            ? `chain_id: ${input.chain_id} is already in the catalogue`
            : `chain_id: a token ${input.chain_id} exists; the native coin takes the chain's id`,
        );
      changed();
      return chain;
    },
    'catalogue-token-add': async (input) => {
      const chain = await catalogueChain(ctx, input.chain_id);
      requireContractShape(chain, input.contract_address);
      const tokenId = input.token_id ?? `${input.chain_id}_${input.symbol.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
      if (!/^[A-Z][A-Z0-9_]{1,31}$/.test(tokenId))
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          `token_id: ${JSON.stringify(tokenId)} is not a valid id; give ${byDoor('--token-id', 'a Token ID')} of capitals, digits and _`,
        );
      // A token added is no longer ignored: its rows are imported from now on.
      const token = await ctx.catalogue.addToken(
        { ...input, token_id: tokenId, name: input.name ?? input.symbol },
        contractKey(chain.chain_identifier, input.contract_address),
        ctx.now(),
      );
      if ('taken' in token)
        throw new ServiceError(
          ErrorCodes.INVALID_PARAM,
          token.taken.token_id === tokenId
            ? `token_id: ${tokenId} is already in the catalogue (give another ${byDoor('--token-id', 'Token ID')})`
            : `contract_address: ${input.chain_id} already has this contract as ${token.taken.token_id}`,
        );
      changed();
      return token;
    },
  };
}
