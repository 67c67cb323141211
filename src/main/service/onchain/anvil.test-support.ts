import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  http,
  parseEther,
  parseUnits,
  type Abi,
  type Address,
  type Hash,
  type Hex,
} from 'viem';

/*
 * A real EVM node for the tests: anvil from the npm registry (@foundry-rs/anvil, whose binary ships
 * in the platform package, here @foundry-rs/anvil-linux-amd64), started on a free loopback port
 * with the chain id asked, its ten unlocked accounts funded. Contracts: OpenZeppelin's precompiled
 * ERC20PresetFixedSupply (@openzeppelin/contracts' build artifacts) for token transfers, and a
 * forwarder of a dozen bytes assembled here, which passes the coin it is sent on to the address
 * in its call data: an internal transfer.
 */

const require = createRequire(import.meta.url);

/** The anvil binary of this platform's package (as @foundry-rs/anvil's own bin.mjs finds it). */
function anvilBinary(): string {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string];
  const platform = { linux: 'linux', darwin: 'darwin', win32: 'win32' }[process.platform as string];
  if (!arch || !platform) throw new Error(`anvil has no binary for ${process.platform} ${process.arch}`);
  // The platform package is an optional dependency of @foundry-rs/anvil: resolved from it, as its bin.mjs does.
  const wrapper = createRequire(require.resolve('@foundry-rs/anvil/package.json'));
  return wrapper.resolve(`@foundry-rs/anvil-${platform}-${arch}/bin/anvil${platform === 'win32' ? '.exe' : ''}`);
}

export interface Anvil {
  url: string;
  /** The node's process. */
  pid: number;
  port: number;
  chainId: number;
  accounts: Address[];
  public: ReturnType<typeof createPublicClient>;
  test: ReturnType<typeof createTestClient>;
  wallet: ReturnType<typeof createWalletClient>;
  stop(): Promise<void>;
}

/** Start anvil on 127.0.0.1 and a port the system picks; resolves once it listens. */
export async function startAnvil(opts: { chainId: number; timestamp?: number; gasLimit?: bigint }): Promise<Anvil> {
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(opts.chainId), '--accounts', '10', '--balance', '10000'];
  if (opts.timestamp !== undefined) args.push('--timestamp', String(opts.timestamp));
  if (opts.gasLimit !== undefined) args.push('--gas-limit', String(opts.gasLimit));
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`anvil did not start: ${text}`)), 15_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`anvil exited with ${code}: ${text}`)));
  });
  // Its output is not read from here on: drain it, or anvil blocks on a full pipe.
  child.stdout!.resume();
  child.stderr!.resume();
  const url = `http://127.0.0.1:${port}`;
  const transport = http(url);
  const pub = createPublicClient({ transport, cacheTime: 0 });
  const accounts = await createWalletClient({ transport }).getAddresses();
  return {
    url,
    pid: child.pid!,
    port,
    chainId: opts.chainId,
    accounts,
    public: pub,
    test: createTestClient({ mode: 'anvil', transport }),
    wallet: createWalletClient({ transport }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const artifact = JSON.parse(
  readFileSync(require.resolve('@openzeppelin/contracts/build/contracts/ERC20PresetFixedSupply.json'), 'utf8'),
) as { abi: Abi; bytecode: Hex };

/**
 * The forwarder: sends the value it receives to the address in the first 32 bytes of its call
 * data, then stops. Runtime: PUSH1 0 (ret size) PUSH1 0 (ret offset) PUSH1 0 (args size) PUSH1 0
 * (args offset) CALLVALUE PUSH1 0 CALLDATALOAD GAS CALL POP STOP; the init code copies it to memory
 * and returns it.
 */
const FORWARDER_RUNTIME = '600060006000600034600035' + '5af15000';
const FORWARDER_INIT = '0x6010' + '80' + '600b' + '6000' + '39' + '6000' + 'f3' + FORWARDER_RUNTIME;

async function mined(a: Anvil, hash: Hash) {
  return a.public.waitForTransactionReceipt({ hash, pollingInterval: 20 });
}

/** Deploy the ERC-20 (18 decimals, the whole supply to `owner`); answers its address. */
export async function deployToken(a: Anvil, name: string, symbol: string, supply: string, owner: Address): Promise<Address> {
  const hash = await a.wallet.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args: [name, symbol, parseUnits(supply, 18), owner],
    account: owner,
    chain: null,
  });
  return (await mined(a, hash)).contractAddress!;
}

export async function deployForwarder(a: Anvil, from: Address): Promise<Address> {
  const hash = await a.wallet.sendTransaction({ account: from, data: FORWARDER_INIT as Hex, chain: null });
  return (await mined(a, hash)).contractAddress!;
}

export async function sendEth(a: Anvil, from: Address, to: Address, ether: string): Promise<Hash> {
  const hash = await a.wallet.sendTransaction({ account: from, to, value: parseEther(ether), chain: null });
  await mined(a, hash);
  return hash;
}

/** An ERC-20 transfer; `gas` given, a transfer that reverts is still sent and mined (as a failed transaction). */
export async function sendToken(a: Anvil, token: Address, from: Address, to: Address, amount: string, gas?: bigint): Promise<Hash> {
  const hash = await a.wallet.sendTransaction({
    account: from,
    to: token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, parseUnits(amount, 18)] }),
    chain: null,
    ...(gas !== undefined ? { gas } : {}),
  });
  await mined(a, hash);
  return hash;
}

/** The coin sent through the forwarder to `to`: an internal transfer of the transaction. */
export async function sendThrough(a: Anvil, forwarder: Address, from: Address, to: Address, ether: string): Promise<Hash> {
  const hash = await a.wallet.sendTransaction({
    account: from,
    to: forwarder,
    value: parseEther(ether),
    data: `0x${to.slice(2).toLowerCase().padStart(64, '0')}`,
    chain: null,
  });
  await mined(a, hash);
  return hash;
}

/** What a transaction cost its sender, in ether, exactly (what an explorer's TxnFee shows). */
export async function feeOf(a: Anvil, hash: Hash): Promise<bigint> {
  const r = await a.public.getTransactionReceipt({ hash });
  return r.gasUsed * r.effectiveGasPrice;
}

export interface Proxy {
  url: string;
  /** Requests the proxy received (HTTP requests, a batch counting once), and those it answered 429. */
  seen: number;
  refused: number;
  /** HTTP 429 for the next n requests (then it forwards again). */
  tooMany(n: number): void;
  /** Whether it answers debug_* and trace_* with JSON-RPC's "method not found". */
  noTraces: boolean;
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of a node: what a provider's gateway does to a client that asks too
 * much (HTTP 429 with Retry-After, then it answers again), or a node that offers no traces. Any
 * path is accepted, as a provider's /v3/KEY is.
 */
export async function startProxy(target: string): Promise<Proxy> {
  const upstream = new URL(target);
  let refuse = 0;
  const state = { seen: 0, refused: 0, noTraces: false };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      state.seen++;
      if (refuse > 0) {
        refuse--;
        state.refused++;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 429, message: 'Too Many Requests' } }));
        return;
      }
      if (state.noTraces) {
        const parsed = JSON.parse(body) as { id: unknown; method: string } | { id: unknown; method: string }[];
        const list = Array.isArray(parsed) ? parsed : [parsed];
        if (list.some((r) => /^(debug|trace)_/.test(r.method))) {
          const answer = list.map((r) => ({
            jsonrpc: '2.0',
            id: r.id,
            error: { code: -32601, message: `the method ${r.method} does not exist/is not available` },
          }));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(Array.isArray(parsed) ? answer : answer[0]));
          return;
        }
      }
      const out = httpRequest(
        { host: upstream.hostname, port: upstream.port, path: '/', method: 'POST', headers: { 'content-type': 'application/json' } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, { 'content-type': 'application/json' });
          up.pipe(res);
        },
      );
      out.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get seen() {
      return state.seen;
    },
    get refused() {
      return state.refused;
    },
    tooMany: (n) => {
      refuse = n;
    },
    get noTraces() {
      return state.noTraces;
    },
    set noTraces(v: boolean) {
      state.noTraces = v;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
