import type { Chain } from '../../../shared/catalogue';
import type { NodeInfo } from '../../../shared/onchain';
import { chainNetworkId, getChain, getToken } from '../catalogue/repository';
import type { ServiceContext } from '../context';
import type { Db } from '../db/open';
import { maskUrl } from './endpoint';
import { NodeStore } from './nodes';
import type { ChainReader } from './reader';
import { readerAt } from './readers';
import { byDoor } from '../said';
import type { TokenView } from './compare';

/* A chain's node, from the catalogue's side: which families can be read, and the reader of a chain whose node is set. */

/** The families a node can be read for: every EVM chain (ETH), and TRON. */
export const READABLE_FAMILIES = new Set(['ETH', 'TRON']);

export const nodeStore = (ctx: ServiceContext): NodeStore => new NodeStore(ctx.dataDir, ctx.secretBox);

export function nodeInfo(ctx: ServiceContext, chain: Chain, store = nodeStore(ctx)): NodeInfo {
  const kept = store.get(chain.chain_id);
  return {
    chain_id: chain.chain_id,
    name: chain.name,
    family: chain.chain_identifier,
    network_id: chainNetworkId(ctx.db, chain.chain_id) ?? '',
    supported: READABLE_FAMILIES.has(chain.chain_identifier),
    configured: kept !== undefined,
    url: kept?.url ? maskUrl(kept.url) : kept ? '(sealed)' : '',
    kept: kept?.kept ?? 'none',
    readable: kept === undefined || kept.url !== null,
    set_at: kept?.set_at ?? null,
  };
}

/** The chain's node (its family and URL), or why the chain's records cannot be read (said as an unchecked record's reason). */
export function nodeFor(ctx: ServiceContext, chainId: string, store: NodeStore): { family: string; url: string } | { reason: string } {
  const chain = getChain(ctx.db, chainId);
  if (!chain) return { reason: `${chainId} is not in the catalogue` };
  if (!READABLE_FAMILIES.has(chain.chain_identifier))
    return { reason: `${chainId} (${chain.chain_identifier}) is not read: nodes of EVM chains and TRON are` };
  const kept = store.get(chainId);
  if (!kept)
    return {
      reason: `no node is set for ${chainId} (${byDoor(`npm run nps -- chains rpc ${chainId} URL`, 'Catalogue → Chains, the Node column')})`,
    };
  if (kept.url === null)
    return {
      reason: `${chainId}'s node was set in the desktop app and is sealed with its keychain: check from the app (or while it runs), or set the node here again`,
    };
  return { family: chain.chain_identifier, url: kept.url };
}

/** The chain's reader, or why the chain's records cannot be read. */
export function readerFor(ctx: ServiceContext, chainId: string, store: NodeStore): ChainReader | string {
  const node = nodeFor(ctx, chainId, store);
  return 'reason' in node ? node.reason : readerAt(node.family, node.url);
}

/** A token as the comparison needs it; undefined when the catalogue no longer has it. */
export function tokenView(db: Db, tokenId: string): TokenView | undefined {
  const t = getToken(db, tokenId);
  return t && { token_id: t.token_id, symbol: t.symbol, decimal: t.decimal, contract: t.is_native ? '' : t.contract_address };
}
