import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatEther, type Address, type Hash } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OnchainCheck, OnchainItem } from '../../../shared/onchain';
import { flushLog, openLog } from '../log';
import { failure, tempService } from '../test-support';
import {
  deployForwarder,
  deployToken,
  feeOf,
  sendEth,
  sendThrough,
  sendToken,
  startAnvil,
  startProxy,
  type Anvil,
  type Proxy,
} from './anvil.test-support';

/*
 * The ledger against a real EVM node: anvil (from the npm registry), started on a free loopback
 * port with Ethereum's chain id, 1, as the catalogue's ETH expects. The records are imported as a
 * user would (the native format, an Etherscan internal-transactions export), the transactions are
 * made on the node, and every record comes out agreeing, differing (by the field), pending or not
 * found, exactly.
 */

const ui = { actor: 'ui' as const };
const W = 'c1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607';
const V = 'd2b3c4d5-e6f7-4081-9a2b-c3d4e5f60718';
const NEVER: Hash = `0x${'ab'.repeat(32)}`;
const T0 = Date.UTC(2026, 0, 15) / 1000;

let anvil: Anvil;
let acc: Address[];
let token: Address;
let forwarder: Address;
const tx: Record<string, Hash> = {};
const fee: Record<string, string> = {};

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 });
  acc = anvil.accounts;
  token = await deployToken(anvil, 'Test Dollar', 'TUSD', '1000000', acc[0]!);
  forwarder = await deployForwarder(anvil, acc[0]!);
  // The wallet W is acc[1]: what it sends and receives.
  tx.out = await sendEth(anvil, acc[1]!, acc[2]!, '0.5');
  fee.out = formatEther(await feeOf(anvil, tx.out));
  tx.in = await sendEth(anvil, acc[0]!, acc[1]!, '1.25');
  tx.tokenIn = await sendToken(anvil, token, acc[0]!, acc[1]!, '100');
  tx.tokenOut = await sendToken(anvil, token, acc[1]!, acc[3]!, '40');
  // More than it holds: the transfer reverts, and with its gas given it is still mined, as failed.
  tx.reverted = await sendToken(anvil, token, acc[1]!, acc[3]!, '1000000000', 100_000n);
  tx.internal = await sendThrough(anvil, forwarder, acc[0]!, acc[1]!, '0.3');
}, 60_000);
afterAll(() => anvil?.stop());

/** A native-format ledger file of records: [transaction_id, wallet, type, status, amount, to, fee, hash, token]. */
function ledgerCsv(rows: [string, string, string, string, string, string, string, string, string][]): string {
  const head = 'transaction_id,wallet_id,type,status,amount,to,fee,hash,chain_id,token_id,created_at';
  return [
    head,
    ...rows.map(([id, w, type, status, amount, to, f, hash, tok]) =>
      [id, w, type, status, amount, to, f, hash, 'ETH', tok, String(T0)].join(','),
    ),
  ].join('\n');
}

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function until(svc: ReturnType<typeof tempService>, checkId: string): Promise<OnchainCheck> {
  for (let i = 0; i < 600; i++) {
    const c = await svc.invoke('onchain-check-get', { check_id: checkId }, ui);
    if (c.state !== 'running') return c;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the check did not end in 30 s');
}

async function itemsOf(svc: ReturnType<typeof tempService>, checkId: string): Promise<Map<string, OnchainItem>> {
  const page = await svc.invoke('onchain-check-items', { check_id: checkId, page_size: 1000 }, ui);
  return new Map(page.list.map((i) => [i.transaction_id, i]));
}

describe('a check of the ledger against a real EVM node (anvil)', () => {
  let svc: ReturnType<typeof tempService>;
  let tusd: string;
  const logs: string[] = [];

  beforeAll(async () => {
    const logDir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'nps-log-'));
    logs.push(logDir);
    svc = tempService({ logger: await openLog(logDir, 'debug'), onchain: { pageSize: 4, concurrency: 3 } });
    await svc.invoke('catalogue-chain-update', { chain_id: 'ETH', confirming_threshold: 3 }, ui);
    tusd = (await svc.invoke('catalogue-token-add', { chain_id: 'ETH', contract_address: token, symbol: 'TUSD', decimal: 18 }, ui))
      .token_id;
    await svc.invoke('wallet-create', { name: 'Treasury' }, ui);
  });
  afterAll(() => svc?.dispose());

  it('refuses a node of another chain naming both ids, and keeps none', async () => {
    const other = await startAnvil({ chainId: 5 });
    try {
      const err = await failure(svc.invoke('onchain-node-set', { chain_id: 'ETH', url: other.url }, ui));
      expect(err.message).toBe(`url: the node at ${other.url} is on chain 5, not ETH's 1: give a node of Ethereum`);
      const eth = (await svc.invoke('onchain-nodes-list', {}, ui)).find((n) => n.chain_id === 'ETH')!;
      expect(eth).toMatchObject({ configured: false, url: '', kept: 'none', network_id: '1', supported: true });
      // BTC cannot be read at all.
      expect((await failure(svc.invoke('onchain-node-set', { chain_id: 'BTC', url: other.url }, ui))).code).toBe(3005);
    } finally {
      await other.stop();
    }
  }, 30_000);

  it('finds every record agreeing, differing by the field, failed as recorded, or never seen', async () => {
    const set = await svc.invoke('onchain-node-set', { chain_id: 'ETH', url: anvil.url }, ui);
    expect(set).toMatchObject({ chain_id: 'ETH', node_network_id: '1', configured: true, kept: 'file', url: anvil.url });
    // Kept in the data folder, readable by its user only.
    expect(statSync(join(svc.dataDir, 'nodes.json')).mode & 0o777).toBe(0o600);

    const [a1, a2, a3] = [acc[1]!.toLowerCase(), acc[2]!.toLowerCase(), acc[3]!.toLowerCase()];
    const csv = ledgerCsv([
      [id(1), W, 'Withdrawal', 'Completed', '0.5', a2, fee.out!, tx.out!, 'ETH'],
      [id(2), W, 'Deposit', 'Completed', '1.25', a1, '', tx.in!, 'ETH'],
      [id(3), W, 'Deposit', 'Completed', '100', a1, '', tx.tokenIn!, tusd],
      [id(4), W, 'Withdrawal', 'Completed', '40', a3, '', tx.tokenOut!, tusd],
      [id(5), W, 'Withdrawal', 'Failed', '1000000000', a3, '', tx.reverted!, tusd],
      // Wallet V's records say what the chain does not.
      [id(11), V, 'Withdrawal', 'Completed', '45', a3, '', tx.tokenOut!, tusd],
      [id(12), V, 'Withdrawal', 'Completed', '1000000000', a3, '', tx.reverted!, tusd],
      [id(13), V, 'Deposit', 'Completed', '100', a1, '', tx.tokenIn!, 'ETH_USDT'],
      [id(14), V, 'Withdrawal', 'Completed', '0.5', a2, '0.001', tx.out!, 'ETH'],
      [id(15), V, 'Withdrawal', 'Completed', '0.5', a3, '', tx.out!, 'ETH'],
      [id(16), V, 'Withdrawal', 'Completed', '0.5', a2, '', NEVER, 'ETH'],
      [id(17), V, 'Withdrawal', 'Confirming', '1.25', a1, '', tx.in!, 'ETH'],
    ]);
    const imported = await svc.invoke('ledger-import', { source: { name: 'ledger.csv', text: csv } }, ui);
    expect(imported.added).toBe(12);
    // The internal transfer as Etherscan exports it: its own record (movement 1) of the transaction.
    const internal = [
      '"Txhash","Blockno","UnixTimestamp","DateTime (UTC)","ParentTxFrom","ParentTxTo","ParentTxETH_Value","From","TxTo","ContractAddress","Value_IN(ETH)","Value_OUT(ETH)","CurrentValue @ $2000/Eth","Historical $Price/Eth","Status","ErrCode","Type"',
      `"${tx.internal}","7","${T0}","2026-01-15 00:00:00","${acc[0]!.toLowerCase()}","${forwarder.toLowerCase()}","0.3","${forwarder.toLowerCase()}","${a1}","","0.3","0","600","2000","0","","call"`,
    ].join('\n');
    const imp2 = await svc.invoke('ledger-import', { source: { name: 'internal.csv', text: internal }, chain_id: 'ETH', wallet_id: W }, ui);
    expect(imp2.added).toBe(1);
    const internalId = (await svc.invoke('transactions-list', { search: tx.internal }, ui)).list[0]!;
    expect(internalId.movement).toBe(1);

    // Every transaction has its three confirmations.
    await anvil.test.mine({ blocks: 3 });
    const started = await svc.invoke('onchain-check-start', {}, ui);
    expect(started.state).toBe('running');
    const done = await until(svc, started.check_id);
    expect(done).toMatchObject({ state: 'done', total: 13, done: 13, without_hash: 0 });
    expect(done.summary).toEqual({ agrees: 6, differs: 6, pending: 0, not_found: 1, unchecked: 0 });

    const items = await itemsOf(svc, started.check_id);
    const outcome = (n: number | string) => {
      const i = items.get(typeof n === 'number' ? id(n) : n)!;
      return [i.outcome, i.fields];
    };
    expect([1, 2, 3, 4, 5].map(outcome)).toEqual(Array(5).fill(['agrees', []]));
    expect(outcome(internalId.transaction_id)).toEqual(['agrees', []]);
    expect(outcome(11)).toEqual(['differs', ['amount']]);
    expect(items.get(id(11))!.reason).toBe('amount: the chain 40, the ledger 45');
    expect(outcome(12)).toEqual(['differs', ['status']]);
    expect(outcome(13)).toEqual(['differs', ['token']]);
    expect(outcome(14)).toEqual(['differs', ['fee']]);
    expect(items.get(id(14))!.chain.fee).toBe(fee.out);
    expect(outcome(15)).toEqual(['differs', ['to']]);
    expect(outcome(16)).toEqual(['not_found', []]);
    // A ledger still saying Confirming of a final transaction differs in its status.
    expect(outcome(17)).toEqual(['differs', ['status']]);
    expect(items.get(id(1))).toMatchObject({ confirmations: expect.any(Number), chain: { amount: '0.5', to: a2, status: 'Completed' } });
    expect(items.get(id(1))!.confirmations).toBeGreaterThanOrEqual(3);

    // differs and not_found are exceptions of kind onchain, in the one queue.
    const queue = await svc.invoke('tickets-list', { kind: 'onchain', page_size: 100 }, ui);
    expect(queue.total).toBe(7);
    const amountTicket = queue.list.find((t) => t.transaction_id === id(11))!;
    expect(amountTicket).toMatchObject({ status: 'Pending', abnormals: 'amount', chain_id: 'ETH', token_id: tusd, wallet_id: V });
    expect((await svc.invoke('tickets-list', { kind: 'onchain', field: 'token_id' }, ui)).list.map((t) => t.transaction_id)).toEqual([
      id(13),
    ]);
    expect(items.get(id(11))!.ticket_id).toBe(amountTicket.ticket_id);
  }, 60_000);

  it('a later check that agrees resolves the exception, with an event saying so', async () => {
    const fixed = ledgerCsv([[id(11), V, 'Withdrawal', 'Completed', '40', acc[3]!.toLowerCase(), '', tx.tokenOut!, tusd]]);
    expect((await svc.invoke('ledger-import', { source: { name: 'fixed.csv', text: fixed } }, ui)).updated).toBe(1);
    const c = await until(svc, (await svc.invoke('onchain-check-start', { wallet_id: V }, ui)).check_id);
    expect(c.summary.agrees).toBe(1);
    const ticket = (await svc.invoke('tickets-list', { kind: 'onchain', search: id(11) }, ui)).list[0]!;
    expect(ticket.status).toBe('Resolved');
    const detail = await svc.invoke('ticket-get', { ticket_id: ticket.ticket_id }, ui);
    expect(detail.events.map((e) => [e.kind, e.to_status, e.note])).toEqual([
      ['opened', 'Pending', expect.stringContaining('amount: the chain 40, the ledger 45')],
      ['status', 'Resolved', `the chain agrees with the record (check ${c.check_id})`],
    ]);
  }, 30_000);

  it('a transfer of a block the chain drops (snapshot, transfer, revert) agrees, then is not found', async () => {
    const snapshot = await anvil.test.snapshot();
    const gone = await sendEth(anvil, acc[1]!, acc[2]!, '0.7');
    await anvil.test.mine({ blocks: 3 });
    await svc.invoke(
      'ledger-import',
      {
        source: {
          name: 'gone.csv',
          text: ledgerCsv([[id(21), W, 'Withdrawal', 'Completed', '0.7', acc[2]!.toLowerCase(), '', gone, 'ETH']]),
        },
      },
      ui,
    );
    const scope = { wallet_id: W, from: '2026-01-15', to: '2026-01-15' };
    const before = await itemsOf(svc, (await until(svc, (await svc.invoke('onchain-check-start', scope, ui)).check_id)).check_id);
    expect(before.get(id(21))!.outcome).toBe('agrees');
    await anvil.test.revert({ id: snapshot });
    const after = await itemsOf(svc, (await until(svc, (await svc.invoke('onchain-check-start', scope, ui)).check_id)).check_id);
    expect(after.get(id(21))).toMatchObject({ outcome: 'not_found', reason: `ETH's node has no transaction ${gone}` });
  }, 30_000);

  it('a transfer with fewer confirmations than the threshold is pending, and then agrees', async () => {
    const fresh = await sendEth(anvil, acc[1]!, acc[2]!, '0.2');
    await svc.invoke(
      'ledger-import',
      {
        source: {
          name: 'fresh.csv',
          text: ledgerCsv([[id(31), W, 'Withdrawal', 'Completed', '0.2', acc[2]!.toLowerCase(), '', fresh, 'ETH']]),
        },
      },
      ui,
    );
    const first = await itemsOf(
      svc,
      (await until(svc, (await svc.invoke('onchain-check-start', { wallet_id: W, restart: true }, ui)).check_id)).check_id,
    );
    expect(first.get(id(31))).toMatchObject({ outcome: 'pending', confirmations: 1 });
    expect(first.get(id(31))!.reason).toMatch(/^1 of the 3 confirmations ETH needs \(block \d+\)$/);
    // The head is read fresh at each check (viem would otherwise answer a cached block number).
    await anvil.test.mine({ blocks: 2 });
    const second = await itemsOf(
      svc,
      (await until(svc, (await svc.invoke('onchain-check-start', { wallet_id: W, restart: true }, ui)).check_id)).check_id,
    );
    expect(second.get(id(31))).toMatchObject({ outcome: 'agrees', confirmations: 3 });
  }, 30_000);

  it('a node that answers 429 and then recovers: the check waits, asks again and finds the same', async () => {
    const proxy: Proxy = await startProxy(anvil.url);
    const secret = 'v3/0123456789abcdef-secret-key';
    try {
      const set = await svc.invoke('onchain-node-set', { chain_id: 'ETH', url: `${proxy.url}/${secret}?apikey=also-secret-9876` }, ui);
      expect(set.url).toBe(`${proxy.url}/…`);
      proxy.tooMany(5);
      const c = await until(svc, (await svc.invoke('onchain-check-start', { wallet_id: W, restart: true }, ui)).check_id);
      expect(proxy.refused).toBe(5);
      expect(c.retries).toBeGreaterThanOrEqual(5);
      expect(c.summary).toMatchObject({ differs: 0, not_found: 1, unchecked: 0 });
      expect(c.summary.agrees).toBe(c.total - 1);

      // A node without traces: the internal transfer cannot be read, and says why.
      proxy.noTraces = true;
      const n = await until(svc, (await svc.invoke('onchain-check-start', { wallet_id: W, restart: true }, ui)).check_id);
      const internal = [...(await itemsOf(svc, n.check_id)).values()].find((i) => i.hash === tx.internal)!;
      expect(internal).toMatchObject({
        outcome: 'unchecked',
        reason: 'the node offers neither debug_traceTransaction nor trace_transaction, so internal transfers cannot be read',
      });

      // A node that stays down: unchecked with the reason, and never the URL's secret.
      await proxy.close();
      const down = await until(svc, (await svc.invoke('onchain-check-start', { wallet_id: W, restart: true }, ui)).check_id);
      const reasons = [...(await itemsOf(svc, down.check_id)).values()].map((i) => [i.outcome, i.reason]);
      expect(reasons.length).toBe(down.total);
      expect(new Set(reasons.map(([o, r]) => `${o}: ${r}`))).toEqual(
        new Set(["unchecked: ETH's node: could not reach the node (ECONNREFUSED)"]),
      );
      // The secret is in nodes.json (where it is kept) and nowhere the service writes or answers.
      const answers = JSON.stringify([set, down, reasons, await svc.invoke('onchain-nodes-list', {}, ui)]);
      expect(answers).not.toContain('secret');
      expect(readFileSync(join(svc.dataDir, 'nodes.json'), 'utf8')).toContain(secret);
      await flushLog(svc.ctx.log);
      const logged = logs.flatMap((dir) => readdirSync(join(dir, 'logs')).map((f) => readFileSync(join(dir, 'logs', f), 'utf8'))).join('');
      expect(logged).toContain('"event":"onchain-node-set"');
      expect(logged).toContain('"event":"onchain-check"');
      expect(logged).not.toContain('secret');
    } finally {
      await proxy.close().catch(() => undefined);
      await svc.invoke('onchain-node-set', { chain_id: 'ETH', url: anvil.url }, ui);
    }
  }, 60_000);

  it('a check stopped part-way resumes where it stopped: cancelled, or the service closed', async () => {
    const first = await svc.invoke('onchain-check-start', { restart: true }, ui);
    const cancelled = await svc.invoke('onchain-check-cancel', { check_id: first.check_id }, ui);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.done).toBeLessThan(cancelled.total);
    const resumed = await svc.invoke('onchain-check-start', {}, ui);
    expect(resumed).toMatchObject({ check_id: first.check_id, resumed: 1 });
    const end = await until(svc, first.check_id);
    expect(end).toMatchObject({ state: 'done', done: end.total });
    expect((await svc.invoke('onchain-check-items', { check_id: end.check_id, page_size: 1000 }, ui)).total).toBe(end.total);

    // The service closed mid-check: at the next start the check is interrupted, and resumes.
    const again = await svc.invoke('onchain-check-start', { restart: true }, ui);
    svc.close();
    const reopened = tempService({ dataDir: svc.dataDir, onchain: { pageSize: 4, concurrency: 3 } });
    try {
      const left = await reopened.invoke('onchain-check-get', { check_id: again.check_id }, ui);
      expect(left.state).toBe('interrupted');
      const go = await reopened.invoke('onchain-check-start', {}, ui);
      expect(go).toMatchObject({ check_id: again.check_id, resumed: 1 });
      expect(await until(reopened, again.check_id)).toMatchObject({ state: 'done', done: left.total });
    } finally {
      reopened.close();
    }
  }, 60_000);
});
