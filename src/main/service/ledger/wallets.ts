import { randomUUID } from 'node:crypto';
import { ErrorCodes } from '../../../shared/errors';
import type { WalletAddress, WalletSummary, walletsContract } from '../../../shared/wallets';
import { checkAddress } from '../addresses/check';
import { requireChain } from '../catalogue/handlers';
import type { HandlersOf, ServiceContext } from '../context';
import { ServiceError } from '../errors';
import {
  addressOwner,
  deleteAddress,
  getWallet,
  inTransaction,
  insertAddress,
  insertWallet,
  listWallets,
  updateWallet,
  walletIdByName,
} from './wallets-repository';

/*
 * Named wallets: create, rename, notes, addresses per chain. Every check runs before the first
 * write, and the writes of one call share a transaction, so a refused request changes nothing.
 */

const refuse = (message: string) => new ServiceError(ErrorCodes.INVALID_PARAM, message);

function requireWallet(ctx: ServiceContext, walletId: string): WalletSummary {
  const wallet = getWallet(ctx.db, walletId);
  if (!wallet) throw refuse(`wallet_id: no wallet ${JSON.stringify(walletId)}`);
  return wallet;
}

function requireFreeName(ctx: ServiceContext, name: string, field: string, except?: string): void {
  const other = walletIdByName(ctx.db, name, except);
  if (other !== undefined)
    throw refuse(`${field}: a wallet is already named ${JSON.stringify(name)} (${other}); wallet names are unique, ignoring case`);
}

/**
 * An address as stored: checked for its chain's family (EVM addresses lower-case, so one address
 * in any case is one address); chains of other families take it as given.
 */
function storedAddress(ctx: ServiceContext, chainId: string, address: string, field = 'address'): string {
  const family = requireChain(ctx, chainId).chain_identifier;
  if (family !== 'ETH' && family !== 'TRON') {
    if (/\s/.test(address) || address.length > 128)
      throw refuse(`${field}: ${JSON.stringify(address)} is not an address (no spaces, at most 128 characters)`);
    return address;
  }
  const verdict = checkAddress(family, address);
  if (!verdict.is_valid)
    throw refuse(
      `${field}: ${JSON.stringify(address)} is not ${family === 'ETH' ? 'an EVM' : 'a TRON'} address on ${chainId}: it ${verdict.reason}`,
    );
  return family === 'ETH' ? address.toLowerCase() : address;
}

function requireFreeAddress(ctx: ServiceContext, walletId: string, a: WalletAddress, field: string): void {
  const owner = addressOwner(ctx.db, a.chain_id, a.address);
  if (owner === walletId) throw refuse(`${field}: ${a.address} is already this wallet's address on ${a.chain_id}`);
  if (owner !== undefined) {
    const name = getWallet(ctx.db, owner)?.name;
    throw refuse(
      `${field}: ${a.address} on ${a.chain_id} is already the address of wallet ${name ? JSON.stringify(name) : owner}; an address belongs to one wallet per chain`,
    );
  }
}

/** The wallet an import names: the one of that name, or a new one (`created`) that takes the name once its rows are written. */
export function walletForImport(
  ctx: ServiceContext,
  walletId: string | undefined,
  walletName: string | undefined,
): { walletId?: string; newName?: string } {
  if (walletName === undefined) return { walletId };
  const named = walletIdByName(ctx.db, walletName);
  if (walletId !== undefined) {
    if (named !== undefined && named === walletId.toLowerCase()) return { walletId: named };
    throw refuse(
      named === undefined
        ? `wallet_name: no wallet is named ${JSON.stringify(walletName)}, and wallet_id ${walletId} is given too: give one of them`
        : `wallet_name: ${JSON.stringify(walletName)} is wallet ${named}, not wallet_id ${walletId}: give one of them`,
    );
  }
  return named !== undefined ? { walletId: named } : { walletId: randomUUID(), newName: walletName };
}

export function walletsHandlers(ctx: ServiceContext): HandlersOf<typeof walletsContract> {
  return {
    'wallets-list': () => listWallets(ctx.db),
    'wallet-create': ({ name, notes, addresses }) => {
      requireFreeName(ctx, name, 'name');
      const walletId = randomUUID();
      const seen = new Set<string>();
      const stored = (addresses ?? []).map((a, i) => {
        const field = `addresses[${i}].address`;
        const out = { chain_id: a.chain_id, address: storedAddress(ctx, a.chain_id, a.address, field), label: a.label ?? '' };
        const key = `${out.chain_id}\n${out.address}`;
        if (seen.has(key)) throw refuse(`${field}: ${out.address} on ${out.chain_id} is given twice`);
        seen.add(key);
        requireFreeAddress(ctx, walletId, out, field);
        return out;
      });
      const now = ctx.now();
      inTransaction(ctx.db, () => {
        insertWallet(ctx.db, { wallet_id: walletId, name, notes: notes ?? '' }, now);
        for (const a of stored) insertAddress(ctx.db, walletId, a, now);
      });
      return requireWallet(ctx, walletId);
    },
    'wallet-update': ({ wallet_id, name, notes }) => {
      const wallet = requireWallet(ctx, wallet_id);
      if (name !== undefined) requireFreeName(ctx, name, 'name', wallet.wallet_id);
      updateWallet(ctx.db, wallet.wallet_id, { name, notes }, ctx.now());
      return requireWallet(ctx, wallet.wallet_id);
    },
    'wallet-address-add': ({ wallet_id, chain_id, address, label }) => {
      const wallet = requireWallet(ctx, wallet_id);
      const a = { chain_id, address: storedAddress(ctx, chain_id, address), label: label ?? '' };
      requireFreeAddress(ctx, wallet.wallet_id, a, 'address');
      insertAddress(ctx.db, wallet.wallet_id, a, ctx.now());
      return requireWallet(ctx, wallet.wallet_id);
    },
    'wallet-address-remove': ({ wallet_id, chain_id, address }) => {
      const wallet = requireWallet(ctx, wallet_id);
      const stored = storedAddress(ctx, chain_id, address);
      if (!deleteAddress(ctx.db, wallet.wallet_id, chain_id, stored))
        throw refuse(`address: ${stored} is not this wallet's address on ${chain_id}`);
      return requireWallet(ctx, wallet.wallet_id);
    },
  };
}
