import { ErrorCodes } from '../../../shared/errors';
import type { onchainContract, TokenDetails } from '../../../shared/onchain';
import { chainNetworkId, listChains } from '../catalogue/repository';
import { requireChain } from '../catalogue/handlers';
import type { HandlersOf, ServiceContext } from '../context';
import { invalidParam, ServiceError } from '../errors';
import { readPeriod, readZone } from '../ledger/period';
import { findWallet } from '../ledger/repository';
import { actorOf } from '../tickets/rules';
import { chainBalances } from './balances';
import { nodeInfo, nodeStore, READABLE_FAMILIES, readerFor } from './chains';
import { readerAt } from './readers';
import { CheckRunner, type CheckOptions } from './checks';
import { endpointOf } from './endpoint';
import { NodeError } from './reader';
import { byDoor } from '../said';
import { getCheck, latestCheck, listItems } from './repository';

/*
 * The chain as the third witness (docs/onchain.md): nodes per chain, checks of the ledger against
 * them, token details from their contracts, balances on chain. None of these is a /nps route: a
 * node's URL crosses only the window's and the command line's doors, and what is answered carries
 * it masked.
 */

const notFound = (checkId: string) => new ServiceError(ErrorCodes.NOT_FOUND, `check_id: no check ${checkId}`);

export function onchainHandlers(ctx: ServiceContext, opts: CheckOptions = {}): HandlersOf<typeof onchainContract> {
  const runner = new CheckRunner(ctx, opts);
  const checkOf = (checkId: string) => {
    const c = getCheck(ctx.db, checkId);
    if (!c) throw notFound(checkId);
    const { cursor: _cursor, ...check } = runner.asIs(c);
    return check;
  };
  return {
    'onchain-nodes-list': () => {
      const store = nodeStore(ctx);
      return listChains(ctx.db, { page: 1, page_size: 1000 }).chains.map((c) => nodeInfo(ctx, c, store));
    },

    'onchain-node-set': async ({ chain_id, url }) => {
      const chain = requireChain(ctx, chain_id);
      if (!READABLE_FAMILIES.has(chain.chain_identifier))
        throw new ServiceError(
          ErrorCodes.CHAIN_NOT_VERIFIABLE,
          `chain_id: ${chain_id} is a ${chain.chain_identifier} chain; nodes of EVM chains and TRON can be read`,
        );
      const expected = chainNetworkId(ctx.db, chain_id) ?? '';
      if (expected === '')
        throw invalidParam(
          'chain_id',
          `the catalogue has no chain id for ${chain_id} to check a node against; give it first (${byDoor(`npm run nps -- chains set ${chain_id} network_id=N`, 'the Chain id field')}, the id its nodes answer to eth_chainId)`,
        );
      const endpoint = endpointOf(url, chain.chain_identifier);
      const reader = readerAt(chain.chain_identifier, url);
      let nodeId: string;
      let head: bigint;
      try {
        nodeId = await reader.networkId();
        if (nodeId !== expected)
          throw invalidParam(
            'url',
            `the node at ${endpoint.masked} is on chain ${nodeId}, not ${chain_id}'s ${expected}: give a node of ${chain.name}`,
          );
        head = await reader.head();
      } catch (err) {
        if (err instanceof NodeError) throw invalidParam('url', `the node at ${endpoint.masked} could not be used: ${err.message}`);
        throw err;
      }
      const store = nodeStore(ctx);
      store.set(chain_id, url.trim(), ctx.now());
      ctx.log.info({ event: 'onchain-node-set', chain_id, node_network_id: nodeId }, 'a node was set for a chain');
      return { ...nodeInfo(ctx, chain, store), node_network_id: nodeId, head: head.toString() };
    },

    'onchain-node-clear': ({ chain_id }) => {
      const chain = requireChain(ctx, chain_id);
      const store = nodeStore(ctx);
      if (!store.clear(chain_id)) throw invalidParam('chain_id', `no node is set for ${chain_id}`);
      ctx.log.info({ event: 'onchain-node-cleared', chain_id }, 'a chain’s node was cleared');
      return nodeInfo(ctx, chain, store);
    },

    'onchain-check-start': (input, meta) => {
      const zone = readZone(input.time_zone);
      const period = readPeriod({ from: input.from, to: input.to, time_zone: zone });
      let walletId: string | null = null;
      if (input.wallet_id !== undefined) {
        walletId = findWallet(ctx.db, input.wallet_id) ?? null;
        if (walletId === null) throw invalidParam('wallet_id', `no wallet ${JSON.stringify(input.wallet_id)}`);
      }
      const started = runner.start({ wallet_id: walletId, from: period.from, to: period.to }, zone, input.restart, {
        actor: actorOf(ctx, meta),
        ...(meta.window ? { window: meta.window } : {}),
      });
      const { cursor: _cursor, ...check } = started;
      return check;
    },
    'onchain-check-get': ({ check_id }) => checkOf(check_id),
    'onchain-check-latest': () => {
      const c = latestCheck(ctx.db);
      if (!c) return null;
      const { cursor: _cursor, ...check } = runner.asIs(c);
      return check;
    },
    'onchain-check-cancel': async ({ check_id }, meta) => {
      checkOf(check_id);
      await runner.cancel(check_id, { actor: actorOf(ctx, meta), ...(meta.window ? { window: meta.window } : {}) });
      return checkOf(check_id);
    },
    'onchain-check-items': ({ check_id, outcome, notable, page, page_size }) => {
      checkOf(check_id);
      return listItems(ctx.db, check_id, outcome, notable, page, page_size);
    },

    'onchain-token-details': async ({ chain_id, contract_addresses }) => {
      requireChain(ctx, chain_id);
      const reader = readerFor(ctx, chain_id, nodeStore(ctx));
      if (typeof reader === 'string') throw invalidParam('chain_id', reader);
      const tokens: TokenDetails[] = [];
      for (const contract of contract_addresses) {
        try {
          tokens.push({ contract_address: contract, ...(await reader.tokenDetails(contract)) });
        } catch (err) {
          if (!(err instanceof NodeError)) throw err;
          tokens.push({ contract_address: contract, symbol: '', name: '', decimal: null, error: err.message });
        }
      }
      return { chain_id, tokens };
    },

    'onchain-balance': (input, meta) => chainBalances(ctx, input, actorOf(ctx, meta)),
  };
}
