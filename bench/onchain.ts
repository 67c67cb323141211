import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Big from 'big.js';
import { encodeFunctionData, erc20Abi, parseUnits, type Address, type Hash } from 'viem';
import { remoteInvoker } from '../src/main/cli/running';
import { findService } from '../src/main/service/data-folder';
import { openService } from '../src/main/service/index';
import { signedHeaders } from '../src/main/service/keys/sign';
import { deployToken, startAnvil } from '../src/main/service/onchain/anvil.test-support';

/*
 * npm run bench:onchain [-- --records 10000 --tokens 1000 --interval 20 --keep --profile]
 * A check of the ledger against a real node while the service is asked what local tools ask it:
 * anvil (from the npm registry) on 127.0.0.1 with chain id 1 carries `records` transactions (native
 * transfers and `tokens` ERC-20 transfers of OpenZeppelin's token, sent in JSON-RPC batches, each
 * mined into a block of its own: anvil builds every receipt of a block when one is asked, so blocks
 * of thousands would measure anvil; with mining paused, the pool dropped some of what it held);
 * a native-format ledger of one record per transaction is imported,
 * the node set, and `node out/main/cli.js serve --port 0 --rate-limit 0 --read-limit 0` started in its
 * own process. One client then sends, back to back with `interval` ms between, GET /nps/chains,
 * GET /nps/tokens?page_size=100 and a signed POST /nps/bill/verify/txs of 100 claims, for 5 s
 * before the check (the baseline) and for as long as the check runs (started through the service's
 * command-line door, as `nps onchain check` does). Reports the check's records a second and its
 * outcomes (every record must agree), and p50/p99/max of each answer's time before and during it.
 * --profile: the service writes a CPU profile (node --cpu-prof) into the data folder, kept.
 */

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '10000' },
    tokens: { type: 'string', default: '1000' },
    interval: { type: 'string', default: '20' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
});
const records = Number(values.records);
const tokenRecords = Number(values.tokens);
const intervalMs = Number(values.interval);
if (!(Number.isInteger(records) && records >= 1 && Number.isInteger(tokenRecords) && tokenRecords >= 0 && tokenRecords <= records))
  throw new Error('--records: a whole number >= 1; --tokens: a whole number from 0 to --records');

const say = (line: string) => console.log(line);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const dir = mkdtempSync(join(tmpdir(), 'nps-bench-onchain-'));
const WALLET = 'c1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607';
/** What every transaction offers a unit of gas at most, 200 gwei: far above the base fee, whatever the blocks. */
const MAX_FEE = `0x${(200_000_000_000).toString(16)}`;

async function rpc(url: string, calls: { method: string; params: unknown[] }[]): Promise<unknown[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c }))),
  });
  const out = (await res.json()) as { id: number; result?: unknown; error?: { message: string } }[];
  return out
    .sort((a, b) => a.id - b.id)
    .map((r) => {
      if (r.error) throw new Error(r.error.message);
      return r.result;
    });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
function stats(ms: number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s.at(-1) ?? NaN };
}

async function main(): Promise<void> {
  say(`npm run bench:onchain -- --records ${records} --tokens ${tokenRecords} --interval ${intervalMs}`);
  say(
    `node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const anvil = await startAnvil({ chainId: 1 });
  // The node stands in for one on another machine: on these cores it yields to the service (nice 19) rather than compete with it.
  setPriority(anvil.pid, 19);
  let server: ChildProcess | undefined;
  try {
    // The chain: `records` transactions, a block each.
    const acc = anvil.accounts;
    const token = await deployToken(anvil, 'Bench Dollar', 'BUSD', '1000000000', acc[0]!);
    const nonces = await Promise.all(acc.map((a) => anvil.public.getTransactionCount({ address: a })));
    const sends: { method: string; params: unknown[] }[] = [];
    const rows: { hash?: Hash; amount: string; to: string; token: boolean }[] = [];
    for (let i = 0; i < records; i++) {
      // Token transfers spread among the others.
      const isToken =
        tokenRecords > 0 &&
        i % Math.floor(records / tokenRecords) === 0 &&
        Math.floor(i / Math.floor(records / tokenRecords)) < tokenRecords;
      // Token transfers from the token's owner; the coin from the other nine accounts in turn.
      const from = isToken ? 0 : 1 + (i % (acc.length - 1));
      // Above the precompiles' addresses.
      const to = `0x${(0x10000 + i).toString(16).padStart(40, '0')}` as Address;
      const amount = `${1 + (i % 97)}.${String(i % 1000).padStart(3, '0')}`;
      sends.push({
        method: 'eth_sendTransaction',
        params: [
          isToken
            ? {
                from: acc[from],
                to: token,
                data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, parseUnits(amount, 18)] }),
                nonce: `0x${(nonces[from]!++).toString(16)}`,
                gas: '0x186a0',
                maxFeePerGas: MAX_FEE,
                maxPriorityFeePerGas: '0x1',
              }
            : {
                from: acc[from],
                to,
                value: `0x${parseUnits(amount, 15).toString(16)}`,
                nonce: `0x${(nonces[from]!++).toString(16)}`,
                gas: '0x5208',
                maxFeePerGas: MAX_FEE,
                maxPriorityFeePerGas: '0x1',
              },
        ],
      });
      rows.push({ amount: isToken ? amount : new Big(amount).div(1000).toFixed(), to, token: isToken });
    }
    const t0 = performance.now();
    // Batches of 8: no sender twice in one (anvil took a batch's transactions in no set order, and left a sender's later
    // nonce waiting in its pool for good when it came before the earlier one).
    for (let i = 0; i < sends.length; i += 8) {
      const hashes = (await rpc(anvil.url, sends.slice(i, i + 8))) as Hash[];
      hashes.forEach((h, k) => (rows[i + k]!.hash = h));
    }
    // What the pool still holds (a transaction mined after another of its sender's), until it holds nothing.
    for (let b = 0; b < 1000; b++) {
      const { pending, queued } = (await rpc(anvil.url, [{ method: 'txpool_status', params: [] }]))[0] as {
        pending: string;
        queued: string;
      };
      if (Number(pending) + Number(queued) === 0) break;
      await anvil.test.mine({ blocks: 1 });
    }
    // ETH's confirming_threshold.
    await anvil.test.mine({ blocks: 12 });
    say(
      `chain: ${fmt(records)} transactions (${fmt(tokenRecords)} ERC-20) sent and mined in ${fmt((performance.now() - t0) / 1000, 1)} s, head ${await anvil.public.getBlockNumber({ cacheTime: 0 })}`,
    );

    // The ledger (the native format: the amounts as the transfers moved them), the node, an API key.
    const csv = [
      'transaction_id,wallet_id,type,status,amount,to,hash,chain_id,token_id,created_at',
      ...rows.map((r, i) =>
        [
          `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
          WALLET,
          'Withdrawal',
          'Completed',
          r.amount,
          r.to,
          r.hash,
          'ETH',
          r.token ? 'ETH_BUSD' : 'ETH',
          '1768435200',
        ].join(','),
      ),
    ].join('\n');
    const file = join(dir, 'ledger.csv');
    writeFileSync(file, csv);
    const local = openService({ dataDir: dir });
    let secret: string;
    try {
      await local.invoke(
        'catalogue-token-add',
        { chain_id: 'ETH', contract_address: token, symbol: 'BUSD', decimal: 18 },
        { actor: 'cli' },
      );
      const imported = await local.invoke('ledger-import', { source: { path: file } }, { actor: 'cli' });
      if (imported.added !== records) throw new Error(`the ledger import added ${imported.added} of ${records}: ${imported.message}`);
      await local.invoke('onchain-node-set', { chain_id: 'ETH', url: anvil.url }, { actor: 'cli' });
      secret = (await local.invoke('keys-create', { label: 'bench', wallets: null }, { actor: 'cli' })).api_secret;
    } finally {
      local.close();
    }

    // The service as the user runs it.
    const profileArgs = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, 'profiles')}`] : [];
    server = spawn(
      process.execPath,
      [...profileArgs, 'out/main/cli.js', 'serve', '--port', '0', '--rate-limit', '0', '--read-limit', '0', '--data-dir', dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const base = await new Promise<string>((resolve, reject) => {
      let text = '';
      server!.stdout!.on('data', (c: Buffer) => {
        text += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+)\/nps/.exec(text);
        if (m) resolve(m[1]!);
      });
      server!.once('exit', (code) => reject(new Error(`serve exited (${code}): ${text}`)));
    });
    server.stdout!.resume();
    const running = await findService(dir);
    if (!running) throw new Error(`serve on ${dir} is not answering on its command-line door`);
    const invoker = remoteInvoker(running);

    // The client: chains, tokens, a verification of 100 claims, one after another.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const claims = JSON.stringify({
      txs: rows
        .slice(0, 100)
        .map((r, i) => ({ transaction_id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`, amount: r.amount })),
    });
    let nonce = Date.now();
    const ask = (method: 'GET' | 'POST', path: string, body = ''): Promise<number> =>
      new Promise((resolve, reject) => {
        const [p, q = ''] = path.split('?');
        nonce = Math.max(nonce + 1, Date.now());
        const headers: Record<string, string> =
          method === 'POST'
            ? { 'content-type': 'application/json', ...signedHeaders(secret, { method, path: p!, query: q, body }, nonce) }
            : {};
        const t = performance.now();
        const req = request(`${base}${path}`, { method, agent, headers }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            const status = (JSON.parse(text) as { status: number }).status;
            if (status !== 0) reject(new Error(`${method} ${path}: status ${status}: ${text.slice(0, 200)}`));
            else resolve(performance.now() - t);
          });
        });
        req.on('error', reject);
        req.end(body);
      });
    const TARGETS = [
      { name: 'GET /nps/chains', run: () => ask('GET', '/nps/chains') },
      { name: 'GET /nps/tokens?page_size=100', run: () => ask('GET', '/nps/tokens?page_size=100') },
      { name: 'POST /nps/bill/verify/txs (100 claims)', run: () => ask('POST', '/nps/bill/verify/txs', claims) },
    ];
    const measure = async (until: () => boolean): Promise<number[][]> => {
      const times = TARGETS.map(() => [] as number[]);
      while (!until()) {
        for (const [i, t] of TARGETS.entries()) times[i]!.push(await t.run());
        await new Promise((r) => setTimeout(r, intervalMs));
      }
      return times;
    };
    const quietEnd = performance.now() + 5000;
    const before = await measure(() => performance.now() > quietEnd);

    let state = 'running';
    const started = performance.now();
    const check = await invoker.invoke('onchain-check-start', { restart: true }, { actor: 'cli' });
    const watch = (async () => {
      while (state === 'running') {
        await new Promise((r) => setTimeout(r, 100));
        state = (await invoker.invoke('onchain-check-get', { check_id: check.check_id }, { actor: 'cli' })).state;
      }
    })();
    const during = await measure(() => state !== 'running');
    await watch;
    const seconds = (performance.now() - started) / 1000;
    const done = await invoker.invoke('onchain-check-get', { check_id: check.check_id }, { actor: 'cli' });
    say(
      `check: ${fmt(done.done)} records in ${fmt(seconds, 1)} s = ${fmt(done.done / seconds)} records/s; ${JSON.stringify(done.summary)}, ${done.retries} retries, state ${done.state}`,
    );
    if (done.summary.agrees !== records) {
      const odd = (await invoker.invoke('onchain-check-items', { check_id: check.check_id, notable: true, page_size: 3 }, { actor: 'cli' }))
        .list;
      for (const item of odd) {
        const [tx] = await rpc(anvil.url, [{ method: 'eth_getTransactionByHash', params: [item.hash] }]);
        say(`  ${item.outcome}: ${item.reason}; the node now: ${JSON.stringify(tx)?.slice(0, 160)}`);
      }
      throw new Error(`every record should agree: ${JSON.stringify(done.summary)}`);
    }
    for (const [i, t] of TARGETS.entries()) {
      const b = stats(before[i]!);
      const d = stats(during[i]!);
      say(
        `${t.name.padEnd(40)} before: n ${b.n}, p50 ${fmt(b.p50, 1)} ms, p99 ${fmt(b.p99, 1)} ms, max ${fmt(b.max, 1)} ms | during: n ${d.n}, p50 ${fmt(d.p50, 1)} ms, p99 ${fmt(d.p99, 1)} ms, max ${fmt(d.max, 1)} ms${d.p99 > 100 ? '  ABOVE 100 ms' : ''}`,
      );
    }
    agent.destroy();
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    await anvil.stop();
    if (values.keep) say(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
