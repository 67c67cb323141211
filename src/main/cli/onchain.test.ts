import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatEther, type Address, type Hash } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainBalances } from '../../shared/onchain';
import {
  deployToken,
  feeOf,
  sendEth,
  sendToken,
  startAnvil,
  startProxy,
  type Anvil,
  type Proxy,
} from '../service/onchain/anvil.test-support';
import { openService } from '../service/index';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

/*
 * The command line against a real node: anvil on a free loopback port with chain id 1, behind a
 * loopback proxy that takes a provider-like URL with a key in its path. Blocks are placed on the
 * days of January 2026 the ledger's records carry, so a balance "at" a day is the chain's at the
 * last block of that day.
 */

const day = (iso: string) => BigInt(Date.parse(iso) / 1000);
const SECRET = 'v3/cli-secret-0123456789';

let anvil: Anvil;
let proxy: Proxy;
let acc: Address[];
let wallet: Address;
let tusd: Address;
let spam: Address;
const tx: Record<string, Hash> = {};
let fee = '';

async function at(iso: string, send: () => Promise<Hash>): Promise<Hash> {
  await anvil.test.setNextBlockTimestamp({ timestamp: day(iso) });
  return send();
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1, timestamp: Number(day('2026-01-10T00:00:00Z')) });
  proxy = await startProxy(anvil.url);
  acc = anvil.accounts;
  wallet = acc[5]!;
  // The wallet starts with nothing, as the ledger does.
  await anvil.test.setBalance({ address: wallet, value: 0n });
  await anvil.test.setNextBlockTimestamp({ timestamp: day('2026-01-11T00:00:00Z') });
  tusd = await deployToken(anvil, 'Test Dollar', 'TUSD', '1000000', acc[0]!);
  spam = await deployToken(anvil, 'Claim at spam.example', 'CLAIM', '1000000', acc[0]!);
  tx.deposit = await at('2026-01-15T12:00:00Z', () => sendEth(anvil, acc[0]!, wallet, '2'));
  tx.tokenIn = await at('2026-01-16T12:00:00Z', () => sendToken(anvil, tusd, acc[0]!, wallet, '100'));
  tx.spam = await at('2026-01-17T12:00:00Z', () => sendToken(anvil, spam, acc[0]!, wallet, '999'));
  tx.withdrawal = await at('2026-01-20T12:00:00Z', () => sendEth(anvil, wallet, acc[6]!, '0.5'));
  fee = formatEther(await feeOf(anvil, tx.withdrawal));
  // A deposit the ledger never got.
  tx.missing = await at('2026-01-25T12:00:00Z', () => sendToken(anvil, tusd, acc[0]!, wallet, '5'));
  await anvil.test.mine({ blocks: 12 });
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

describe('npm run nps -- chains rpc, tokens add from the node, onchain check and balance', () => {
  const svc = tempService();
  svc.close();
  afterAll(() => svc.dispose());
  const dir = ['--data-dir', svc.dataDir];

  it('sets a node by its URL, shows it masked, refuses a node of another chain naming both ids', async () => {
    const set = await nps(['chains', 'rpc', 'ETH', `${proxy.url}/${SECRET}`, ...dir]);
    expect(set).toMatchObject({ code: 0, err: '' });
    expect(set.out).toBe(
      `ETH: the node at ${proxy.url}/… answers chain id 1 (Ethereum); its newest block is ${await anvil.public.getBlockNumber({ cacheTime: 0 })}.\nKept in the data folder (nodes.json, readable by you only); never shown whole.\n`,
    );
    const list = await nps(['chains', 'rpc', 'ETH', ...dir]);
    expect(list.out).toMatch(new RegExp(`^ETH +ETH +chain id 1 +${proxy.url.replace(/\./g, '\\.')}/…\\n$`));
    expect(list.out + set.out).not.toContain('secret');

    const other = await startAnvil({ chainId: 5 });
    try {
      const refused = await nps(['chains', 'rpc', 'ETH', other.url, ...dir]);
      expect(refused).toMatchObject({
        code: 1,
        err: `error 1002: url: the node at ${other.url} is on chain 5, not ETH's 1: give a node of Ethereum\n`,
      });
    } finally {
      await other.stop();
    }
    // The node kept is still the first one.
    expect((await nps(['chains', 'rpc', 'ETH', ...dir])).out).toContain(`${proxy.url}/…`);
  }, 60_000);

  it('adds a token reading its symbol and decimals from the contract; ignores a spam token', async () => {
    const added = await nps(['tokens', 'add', 'ETH', '--contract', tusd, ...dir]);
    expect(added.code).toBe(0);
    expect(added.err).toBe("Read from ETH's node: symbol TUSD, decimals 18, name Test Dollar.\n");
    expect(added.out).toMatch(/^Added ETH_TUSD:\nETH_TUSD +ETH +TUSD +decimal=18 /);
    const ignored = await nps(['tokens', 'ignore', 'ETH', '--contract', spam, '--symbol', 'CLAIM', ...dir]);
    expect(ignored.out).toBe(`Ignored on ETH: ${spam.toLowerCase()} (CLAIM). Imports skip its rows and count them.\n`);
    expect((await nps(['tokens', 'ignored', ...dir])).out).toBe(`ETH            ${spam.toLowerCase()}  CLAIM\n`);
  }, 60_000);

  it('checks the wallet’s records against the chain: every one agrees; a hash the chain never saw exits 1', async () => {
    expect((await nps(['wallets', 'create', 'Treasury', ...dir])).code).toBe(0);
    expect((await nps(['wallets', 'address', 'add', 'Treasury', 'ETH', wallet, ...dir])).code).toBe(0);
    const head = 'transaction_id,wallet_id,type,status,amount,to,fee,hash,chain_id,token_id,created_at';
    const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const w = (await nps(['wallets', 'list', '--json', ...dir])).out;
    const walletId = (JSON.parse(w) as { wallet_id: string; name: string }[]).find((x) => x.name === 'Treasury')!.wallet_id;
    const rows = [
      [id(1), walletId, 'Deposit', 'Completed', '2', wallet.toLowerCase(), '', tx.deposit, 'ETH', 'ETH', '2026-01-15T12:00:00Z'],
      [id(2), walletId, 'Deposit', 'Completed', '100', wallet.toLowerCase(), '', tx.tokenIn, 'ETH', 'ETH_TUSD', '2026-01-16T12:00:00Z'],
      [id(3), walletId, 'Withdrawal', 'Completed', '0.5', acc[6]!.toLowerCase(), fee, tx.withdrawal, 'ETH', 'ETH', '2026-01-20T12:00:00Z'],
    ];
    const file = join(svc.dataDir, 'ledger.csv');
    writeFileSync(file, [head, ...rows.map((r) => r.join(','))].join('\n'));
    expect((await nps(['import', file, ...dir])).code).toBe(0);

    const ok = await nps(['onchain', 'check', '--wallet', 'Treasury', '--json', ...dir]);
    expect(ok.code).toBe(0);
    const report = JSON.parse(ok.out) as { state: string; summary: Record<string, number>; items: { outcome: string }[] };
    expect(report.state).toBe('done');
    expect(report.summary).toEqual({ agrees: 3, differs: 0, pending: 0, not_found: 0, unchecked: 0 });
    expect(report.items.map((i) => i.outcome)).toEqual(['agrees', 'agrees', 'agrees']);

    writeFileSync(
      file,
      [
        head,
        [
          id(4),
          walletId,
          'Deposit',
          'Completed',
          '1',
          wallet.toLowerCase(),
          '',
          `0x${'cd'.repeat(32)}`,
          'ETH',
          'ETH',
          '2026-01-21T00:00:00Z',
        ].join(','),
      ].join('\n'),
    );
    expect((await nps(['import', file, ...dir])).code).toBe(0);
    const bad = await nps(['onchain', 'check', '--wallet', 'Treasury', ...dir]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(
      /^Checked 4 of 4 records with a hash against the chains \(check [0-9a-f-]+, done\)\n {2}agrees +3\n {2}differs +0\n {2}pending +0\n {2}not found +1\n {2}unchecked +0\n/,
    );
    expect(bad.out).toContain(
      `  not_found ${id(4)}  ETH ETH 0x${'cd'.repeat(32)}\n            ETH's node has no transaction 0x${'cd'.repeat(32)}\n`,
    );
    expect(bad.out).toContain('1 exceptions of kind onchain are in the queue.');
  }, 60_000);

  it('a balance on chain at a day, beside the ledger’s: they agree, then a deposit the ledger lacks opens a balance exception', async () => {
    const agree = await nps(['onchain', 'balance', '--wallet', 'Treasury', '--at', '2026-01-20', '--json', ...dir]);
    expect(agree.code).toBe(0);
    const b = ChainBalances.parse(JSON.parse(agree.out));
    expect(b.chains).toEqual([
      {
        chain_id: 'ETH',
        address: wallet.toLowerCase(),
        block_number: expect.any(String),
        block_time: Number(day('2026-01-20T12:00:00Z')) * 1000,
        reason: '',
      },
    ]);
    const eth = (BigInt(2e18) - BigInt(5e17) - (await feeOf(anvil, tx.withdrawal!))).toString();
    expect(b.rows.map((r) => [r.token_id, r.chain_balance, r.ledger_balance, r.difference])).toEqual([
      ['ETH', formatEther(BigInt(eth)), formatEther(BigInt(eth)), '0'],
      ['ETH_TUSD', '100', '100', '0'],
    ]);

    const differs = await nps(['onchain', 'balance', '--wallet', 'Treasury', '--at', '2026-01-31', ...dir]);
    expect(differs.code).toBe(1);
    // The deposit of 1 the ledger has and the chain never saw (a hash not found), and the 5 TUSD the ledger lacks.
    expect(differs.out).toMatch(
      new RegExp(`\\nETH +ETH +${formatEther(BigInt(eth))} +${formatEther(BigInt(eth) + BigInt(1e18))} +-1 +[0-9a-f-]{36}\\n`),
    );
    expect(differs.out).toMatch(/\nETH +ETH_TUSD +105 +100 +5 +[0-9a-f-]{36}\n/);
    expect(differs.out).toContain('2 balance(s) differ: balance exceptions are in the queue.');
    const store = openService({ dataDir: svc.dataDir });
    try {
      const queue = await store.invoke('tickets-list', { kind: 'balance' }, { actor: 'cli' });
      expect(queue.list.map((t) => [t.token_id, t.amount, t.status]).sort()).toEqual([
        ['ETH', '-1', 'Pending'],
        ['ETH_TUSD', '5', 'Pending'],
      ]);
    } finally {
      store.close();
    }
  }, 60_000);
});
