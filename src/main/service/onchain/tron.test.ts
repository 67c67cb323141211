import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnchainCheck, OnchainItem } from '../../../shared/onchain';
import { failure, tempService } from '../test-support';
import { NILE_GENESIS, startReplay, tronAddress, USDT, type Replay } from './tron-replay.test-support';

/*
 * TRON through tronweb, against a local replay server of a full node's HTTP API. Its answers are not
 * recordings of a live node: they are made in the shapes tronweb's own types document (see
 * tron-replay.test-support.ts), since no TRON node can run here.
 */

const ui = { actor: 'ui' as const };
const W = 'c1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607';
const ME = tronAddress('11');
const THEM = tronAddress('22');
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const hash = (n: number) => n.toString(16).padStart(64, 'a');

let replay: Replay;
beforeAll(async () => {
  replay = await startReplay({ head: 70_000_000 });
  const head = replay.head;
  // Final: in a block 40 deep, on the solidity node.
  replay.add({ id: hash(1), block: head - 40, solidified: true, result: 'SUCCESS', fee: 0, from: ME, trx: { to: THEM, sun: 1_500_000 } });
  replay.add({
    id: hash(2),
    block: head - 40,
    solidified: true,
    result: 'SUCCESS',
    fee: 13_844_850,
    from: THEM,
    trc20: { contract: USDT, to: ME, units: 25_500_000n },
  });
  replay.add({
    id: hash(3),
    block: head - 39,
    solidified: true,
    result: 'REVERT',
    fee: 6_000_000,
    from: ME,
    trc20: { contract: USDT, to: THEM, units: 9_000_000_000n },
  });
  // In a block 4 deep, not yet on the solidity node; and one in no block yet.
  replay.add({ id: hash(4), block: head - 3, solidified: false, result: 'SUCCESS', fee: 0, from: ME, trx: { to: THEM, sun: 2_000_000 } });
  replay.add({ id: hash(5), block: null, solidified: false, result: 'SUCCESS', fee: 0, from: ME, trx: { to: THEM, sun: 3_000_000 } });
});
afterAll(() => replay?.close());

async function checked(svc: ReturnType<typeof tempService>): Promise<{ check: OnchainCheck; items: Map<string, OnchainItem> }> {
  const started = await svc.invoke('onchain-check-start', { restart: true }, ui);
  for (let i = 0; i < 400; i++) {
    const check = await svc.invoke('onchain-check-get', { check_id: started.check_id }, ui);
    if (check.state !== 'running') {
      const page = await svc.invoke('onchain-check-items', { check_id: check.check_id, page_size: 1000 }, ui);
      return { check, items: new Map(page.list.map((x) => [x.transaction_id, x])) };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the check did not end');
}

describe('a check of TRON records through tronweb (against a replay server, not a live node)', () => {
  const svc = tempService();
  afterAll(() => svc.dispose());

  it('refuses a node of another TRON network (Nile) naming both ids, accepts mainnet’s', async () => {
    const nile = await startReplay({ genesis: NILE_GENESIS });
    try {
      const err = await failure(svc.invoke('onchain-node-set', { chain_id: 'TRON', url: nile.url }, ui));
      expect(err.message).toBe(`url: the node at ${nile.url} is on chain 3448148188, not TRON's 728126428: give a node of TRON`);
    } finally {
      await nile.close();
    }
    const set = await svc.invoke('onchain-node-set', { chain_id: 'TRON', url: replay.url }, ui);
    expect(set).toMatchObject({ node_network_id: '728126428', head: String(replay.head), configured: true });
  });

  it('finds TRX and TRC-20 records agreeing, differing, failed, pending (not yet solidified, or in no block) and never seen', async () => {
    const head = 'transaction_id,wallet_id,type,status,amount,to,hash,chain_id,token_id,created_at';
    const row = (n: number, type: string, status: string, amount: string, to: string, h: string, token: string) =>
      [id(n), W, type, status, amount, to, h, 'TRON', token, '1768435200'].join(',');
    const csv = [
      head,
      row(1, 'Withdrawal', 'Completed', '1.5', THEM, hash(1), 'TRON'),
      row(2, 'Deposit', 'Completed', '25.5', ME, hash(2), 'TRON_USDT'),
      row(3, 'Withdrawal', 'Failed', '9000', THEM, hash(3), 'TRON_USDT'),
      row(4, 'Withdrawal', 'Completed', '2', THEM, hash(4), 'TRON'),
      row(5, 'Withdrawal', 'Completed', '3', THEM, hash(5), 'TRON'),
      row(6, 'Withdrawal', 'Completed', '1', THEM, hash(6), 'TRON'),
      row(7, 'Deposit', 'Completed', '26', ME, hash(2), 'TRON_USDT'),
      row(8, 'Withdrawal', 'Completed', '9000', THEM, hash(3), 'TRON_USDT'),
      row(9, 'Withdrawal', 'Completed', '1.5', ME, hash(1), 'TRON'),
    ].join('\n');
    expect((await svc.invoke('ledger-import', { source: { name: 'tron.csv', text: csv } }, ui)).added).toBe(9);
    // The node asks a client to slow down twice first: waited out, the same findings.
    replay.tooMany(2);
    const { check, items } = await checked(svc);
    expect(check.summary).toEqual({ agrees: 3, differs: 3, pending: 2, not_found: 1, unchecked: 0 });
    expect(check.retries).toBe(2);
    const of = (n: number) => {
      const x = items.get(id(n))!;
      return [x.outcome, x.fields, x.reason];
    };
    expect(of(1)).toEqual(['agrees', [], 'agrees (41 confirmations, block 69999960)']);
    expect(items.get(id(1))!.chain).toEqual({ amount: '1.5', to: THEM, status: 'Completed' });
    expect(of(2)[0]).toBe('agrees');
    expect(items.get(id(2))!.chain).toEqual({ amount: '25.5', to: ME, token: USDT, status: 'Completed' });
    expect(of(3)).toEqual([
      'agrees',
      [],
      'the transaction failed on chain, as the ledger says (a failed transfer leaves no event to compare)',
    ]);
    expect(of(4)).toEqual(['pending', [], '4 of the 19 confirmations TRON needs (block 69999997); not yet final on the solidity node']);
    expect(of(5)).toEqual(['pending', [], 'the transaction waits to be included in a block (0 of the 19 confirmations TRON needs)']);
    expect(of(6)).toEqual(['not_found', [], `TRON's node has no transaction ${hash(6)}`]);
    expect(of(7)).toEqual(['differs', ['amount'], 'amount: the chain 25.5, the ledger 26']);
    expect(of(8)).toEqual(['differs', ['status'], 'status: the chain Failed, the ledger Completed']);
    expect(of(9)).toEqual(['differs', ['to'], `to: the chain ${THEM}, the ledger ${ME}`]);
    // The transaction is asked of the solidity node first, then the full node, then as a bare transaction; the head once a page.
    expect(replay.seen.get('walletsolidity/gettransactioninfobyid')).toBeGreaterThanOrEqual(9);
    expect(replay.seen.get('wallet/gettransactioninfobyid')).toBeGreaterThanOrEqual(3);
    expect(replay.seen.get('wallet/getnowblock')).toBeGreaterThanOrEqual(1);
  });

  it('a block that becomes final: the record agrees at the next check', async () => {
    replay.add({
      id: hash(4),
      block: replay.head - 3,
      solidified: true,
      result: 'SUCCESS',
      fee: 0,
      from: ME,
      trx: { to: THEM, sun: 2_000_000 },
    });
    replay.head += 20;
    const { items } = await checked(svc);
    expect(items.get(id(4))).toMatchObject({ outcome: 'agrees', confirmations: 24 });
  });

  it('reads a TRC-20 contract’s symbol, name and decimals', async () => {
    const { tokens } = await svc.invoke('onchain-token-details', { chain_id: 'TRON', contract_addresses: [USDT, THEM] }, ui);
    expect(tokens).toEqual([
      { contract_address: USDT, symbol: 'USDT', name: 'Tether USD', decimal: 6, error: '' },
      {
        contract_address: THEM,
        symbol: '',
        name: '',
        decimal: null,
        error: 'the contract answers neither symbol() nor decimals(): not a TRC-20 token',
      },
    ]);
  });
});
