import Big from 'big.js';
import type { ChainBalanceRow, ChainBalances } from '../../../shared/onchain';
import { listTokens } from '../catalogue/repository';
import type { ServiceContext } from '../context';
import { invalidParam } from '../errors';
import { walletBalancesAt } from '../ledger/balances';
import { readMoment, readZone } from '../ledger/period';
import { getWallet } from '../ledger/wallets-repository';
import { raiseExceptions } from '../tickets/repository';
import { nodeStore, readerFor } from './chains';
import { units } from './compare';
import { NodeError } from './reader';

/*
 * A wallet's balances on the chain at a moment, beside the ledger's of the same moment: per chain
 * the wallet has an address on, the last block at or before the moment (found by its timestamp),
 * the coin's balance and each catalogue token's balanceOf at that block (a node that keeps old
 * state: an archive node, beyond its last few hundred blocks). A wallet's addresses on one chain
 * are summed, as the ledger sums the wallet. A difference opens (or updates) a balance exception,
 * when asked.
 */

const plain = (x: Big): string => (x.eq(0) ? '0' : x.toFixed());

export async function chainBalances(
  ctx: ServiceContext,
  input: { wallet_id: string; at: string; time_zone?: string; raise: boolean },
  actor: string,
): Promise<ChainBalances> {
  const wallet = getWallet(ctx.db, input.wallet_id.toLowerCase());
  if (!wallet) throw invalidParam('wallet_id', `no wallet ${JSON.stringify(input.wallet_id)}`);
  const zone = readZone(input.time_zone);
  const at = readMoment(input.at, 'end', zone, 'at');
  const ledger = new Map(walletBalancesAt(ctx.db, wallet.wallet_id, at).map((b) => [b.token_id, b.balance]));
  const byChain = new Map<string, string[]>();
  for (const a of wallet.addresses) byChain.set(a.chain_id, [...(byChain.get(a.chain_id) ?? []), a.address]);
  const store = nodeStore(ctx);
  const chains: ChainBalances['chains'] = [];
  const rows: ChainBalanceRow[] = [];
  for (const [chainId, addresses] of [...byChain].sort(([a], [b]) => a.localeCompare(b))) {
    const address = addresses.join(', ');
    const reader = readerFor(ctx, chainId, store);
    if (typeof reader === 'string') {
      chains.push({ chain_id: chainId, address, block_number: null, block_time: null, reason: reader });
      continue;
    }
    const tokens = listTokens(ctx.db, { chain_id: chainId, page: 1, page_size: 1000 }).tokens;
    try {
      const block = await reader.blockAt(at);
      if (!block) {
        chains.push({ chain_id: chainId, address, block_number: null, block_time: null, reason: `${chainId} has no block before then` });
        continue;
      }
      const found: ChainBalanceRow[] = [];
      for (const t of tokens) {
        let sum = 0n;
        for (const a of addresses)
          sum += t.is_native ? await reader.nativeBalance(a, block.number) : await reader.tokenBalance(t.contract_address, a, block.number);
        const onChain = new Big(units(sum, t.decimal));
        const inLedger = new Big(ledger.get(t.token_id) ?? '0');
        if (onChain.eq(0) && inLedger.eq(0)) continue;
        found.push({
          chain_id: chainId,
          token_id: t.token_id,
          address,
          chain_balance: plain(onChain),
          ledger_balance: plain(inLedger),
          difference: plain(onChain.minus(inLedger)),
          ticket_id: null,
        });
      }
      rows.push(...found);
      chains.push({ chain_id: chainId, address, block_number: block.number.toString(), block_time: block.time, reason: '' });
    } catch (err) {
      if (!(err instanceof NodeError)) throw err;
      const archive = /missing trie node|header not found|state.*not available|pruned|historical state/i.test(err.message);
      chains.push({
        chain_id: chainId,
        address,
        block_number: null,
        block_time: null,
        reason: archive ? `${err.message} (the node keeps no state of that block: an archive node is needed)` : err.message,
      });
    }
  }
  if (input.raise) {
    const differing = rows.filter((r) => r.difference !== '0');
    await ctx.engine.write(() =>
      ctx.db.$client.transaction(() => {
        const when = new Date(at).toISOString();
        const ids = raiseExceptions(
          ctx.db,
          differing.map((r) => {
            const block = chains.find((c) => c.chain_id === r.chain_id)?.block_number;
            return {
              kind: 'balance' as const,
              // Apart from the custodian's statement check of the same moment (balances.ts): each is its own finding.
              subject: `chain|${wallet.wallet_id}|${r.token_id}|${at}`,
              wallet_id: wallet.wallet_id,
              transaction_id: '',
              chain_id: r.chain_id,
              token_id: r.token_id,
              amount: r.difference,
              desc: `the chain ${r.chain_balance} ${r.token_id} at block ${block}, the ledger ${r.ledger_balance}, difference ${r.difference} (at ${when})`,
              claimed: JSON.stringify({
                source: 'chain',
                wallet_id: wallet.wallet_id,
                chain_id: r.chain_id,
                token_id: r.token_id,
                address: r.address,
                at,
                at_text: input.at,
                time_zone: zone,
                block_number: block,
                chain_balance: r.chain_balance,
                ledger_balance: r.ledger_balance,
                difference: r.difference,
              }),
              run_id: null,
              actor,
              at: ctx.now(),
            };
          }),
        );
        differing.forEach((r, i) => (r.ticket_id = ids[i]!));
      })(),
    );
  }
  return { wallet_id: wallet.wallet_id, at, time_zone: zone, chains, rows };
}
