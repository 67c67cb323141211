import { useState } from 'react';
import type { PeriodBalance } from '../../../shared/balances';
import type { ChainBalances } from '../../../shared/onchain';
import { call, errorText } from '../api';
import type { SimpleColumn } from '../components/data-table';
import { Amount } from '../components/ui';
import { WalletName } from '../components/wallet-name';
import { formatCount } from '../lib/format';
import { useQuery } from '../lib/use-query';
import { useChangeKey } from '../stores/changes';

/*
 * The chain's own figure beside the ledger's closing balance, where the row's chain has a node
 * (Catalogue → Chains): the wallet's addresses' balances at the last block of the period's last day,
 * read from the node (an archive node for an older day). Reading them sends the node the wallet's
 * addresses and block numbers; it opens no exception until asked.
 */

interface ChainFigures {
  /** By wallet|token. */
  rows: Map<string, { chain: string; difference: string; wallet_id: string; token_id: string }>;
  /** Why a wallet's chain was not read, by wallet|chain. */
  reasons: Map<string, string>;
  /** The wallet|chain pairs the wallet has an address on (the others cannot be read). */
  addressed: Set<string>;
  walletIds: string[];
}

const key = (wallet: string, x: string) => `${wallet}|${x}`;

export function useChainClosing(rows: PeriodBalance[], to: string) {
  const nodesChanged = useChangeKey('settings');
  const nodes = useQuery(`onchain-nodes:${nodesChanged}`, () => call('onchain-nodes-list', {}));
  const withNode = new Set((nodes.data ?? []).filter((n) => n.configured).map((n) => n.chain_id));
  const walletIds = [...new Set(rows.filter((r) => withNode.has(r.chain_id)).map((r) => r.wallet_id))].sort();
  const q = useQuery(walletIds.length ? `chain-closing:${walletIds.join(',')}:${to}` : null, async (): Promise<ChainFigures> => {
    const figures: ChainFigures = { rows: new Map(), reasons: new Map(), addressed: new Set(), walletIds };
    for (const wallet_id of walletIds) {
      const b: ChainBalances = await call('onchain-balance', { wallet_id, at: to, raise: false });
      for (const r of b.rows)
        figures.rows.set(key(wallet_id, r.token_id), { chain: r.chain_balance, difference: r.difference, wallet_id, token_id: r.token_id });
      for (const c of b.chains) {
        figures.addressed.add(key(wallet_id, c.chain_id));
        if (c.reason) figures.reasons.set(key(wallet_id, c.chain_id), c.reason);
      }
    }
    return figures;
  });
  const [raised, setRaised] = useState<string>();
  const [raising, setRaising] = useState(false);
  const differing = [...(q.data?.rows.values() ?? [])].filter((r) => r.difference !== '0').length;
  // What the chain holds of tokens the ledger has no balance of at all: no row of the table shows them.
  const shown = new Set(rows.map((r) => key(r.wallet_id, r.token_id)));
  const unbooked = [...(q.data?.rows.values() ?? [])].filter((r) => !shown.has(key(r.wallet_id, r.token_id)));

  /** The column, present only where some row's chain has a node. */
  const column: SimpleColumn<PeriodBalance> | undefined =
    walletIds.length === 0
      ? undefined
      : {
          key: 'chain',
          header: 'On chain (closing)',
          align: 'right',
          render: (r) => {
            if (!withNode.has(r.chain_id)) return <span className="muted small">no node</span>;
            if (q.error) return <span className="error-text small">{q.error}</span>;
            if (!q.data) return <span className="muted small">reading…</span>;
            if (!q.data.addressed.has(key(r.wallet_id, r.chain_id)))
              return (
                <span className="muted small" title={`The wallet has no address on ${r.chain_id} (Wallets screen): nothing to read`}>
                  no address
                </span>
              );
            const reason = q.data.reasons.get(key(r.wallet_id, r.chain_id));
            if (reason)
              return (
                <span className="muted small" title={reason}>
                  not read
                </span>
              );
            // A token the chain has none of (and no address of the wallet on it) reads 0.
            const f = q.data.rows.get(key(r.wallet_id, r.token_id)) ?? {
              chain: '0',
              difference: r.closing === '0' ? '0' : `-${r.closing}`,
            };
            return (
              <span className="stack" data-testid={`chain-${r.wallet_id}-${r.token_id}`}>
                <Amount value={f.chain} className={f.difference === '0' ? undefined : 'text-bad'} />
                {f.difference !== '0' && (
                  <span className="small text-bad">
                    differs by <Amount value={f.difference} />
                  </span>
                )}
              </span>
            );
          },
        };

  const raise = async () => {
    setRaising(true);
    setRaised(undefined);
    try {
      let n = 0;
      for (const wallet_id of walletIds) n += (await call('onchain-balance', { wallet_id, at: to })).rows.filter((r) => r.ticket_id).length;
      setRaised(`${formatCount(n)} balance exception${n === 1 ? '' : 's'} opened or updated in the Tickets queue.`);
    } catch (err) {
      setRaised(errorText(err));
    } finally {
      setRaising(false);
    }
  };

  const note =
    walletIds.length === 0 ? null : (
      <p className="muted small" data-testid="chain-closing-note">
        On chain: the wallets&apos; addresses&apos; balances at the last block of {to} (UTC), read from the chain&apos;s node (its addresses
        and block numbers go to the node).{' '}
        {unbooked.length > 0 && (
          <span data-testid="chain-only">
            The chain also holds what the ledger has no record of:{' '}
            {unbooked.map((r, i) => (
              <span key={key(r.wallet_id, r.token_id)}>
                {i > 0 && ', '}
                <Amount value={r.chain} /> <span className="mono">{r.token_id}</span> (<WalletName id={r.wallet_id} />)
              </span>
            ))}
            .{' '}
          </span>
        )}
        {differing > 0 && (
          <button type="button" className="btn btn-small" onClick={() => void raise()} disabled={raising}>
            {raising ? 'Opening…' : `Open exceptions for the ${formatCount(differing)} difference${differing === 1 ? '' : 's'}`}
          </button>
        )}{' '}
        {raised && <span role="status">{raised}</span>}
      </p>
    );
  return { column, note };
}
