import type * as Viem from 'viem';
import { lazy } from '../lazy';
import type { Endpoint } from './endpoint';
import { NodeError, nodeFailure, type ChainReader, type InternalTransfer, type TokenTransfer, type TxFacts } from './reader';

/*
 * An EVM chain's node through viem: one HTTP transport per node, with JSON-RPC batching (the calls
 * made together go as one request), and viem's retries with backoff on a rate limit (HTTP 429,
 * honouring Retry-After) and on the node's failures (5xx, -32603, -32005). The chain's head is read
 * with cacheTime 0: viem keeps the block number for a while by default, and a confirmation count
 * must be of the head as it is now.
 */

const viem = lazy<typeof Viem>('viem');

/** The ERC-20 Transfer event's topic: keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface EvmOptions {
  /** JSON-RPC requests per batch. */
  batchSize?: number;
  /** Retries of a request after a rate limit or a node failure (viem's backoff: retryDelay × 2^n, or Retry-After). */
  retryCount?: number;
  retryDelay?: number;
  timeoutMs?: number;
}

interface RpcCall {
  type?: string;
  from?: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: RpcCall[];
}

interface ParityTrace {
  type?: string;
  action?: { from?: string; to?: string; value?: string; callType?: string; address?: string; refundAddress?: string; balance?: string };
  result?: { address?: string } | null;
  error?: string;
  traceAddress?: number[];
}

const lower = (a: string | null | undefined): string => (a ?? '').toLowerCase();

/** Whether a failure says the node does not serve the method (so the other way of tracing is tried, or none is). */
function unserved(err: unknown): boolean {
  const e = err as { code?: number; details?: string; shortMessage?: string; cause?: unknown };
  const code = e.code ?? (e.cause as { code?: number } | undefined)?.code;
  if (code === -32601 || code === -32004) return true;
  const text = `${e.details ?? ''} ${e.shortMessage ?? ''}`.toLowerCase();
  return /method not found|not supported|does not exist|unsupported method|not available|namespace/.test(text);
}

export function evmReader(endpoint: Endpoint, opts: EvmOptions = {}): ChainReader {
  const v = viem();
  let retries = 0;
  const transport = v.http(endpoint.url, {
    // Batches of 25: fewer round trips, and each answer small enough to read between the service's other work.
    batch: { batchSize: opts.batchSize ?? 25, wait: 5 },
    retryCount: opts.retryCount ?? 5,
    retryDelay: opts.retryDelay ?? 200,
    timeout: opts.timeoutMs ?? 20_000,
    fetchOptions: { headers: endpoint.headers },
    onFetchResponse: (res) => {
      // Counted for the check's summary: viem asks again after these (shouldRetry in viem's buildRequest).
      if (res.status === 429 || res.status >= 500) retries++;
    },
  });
  const client = v.createPublicClient({ transport, cacheTime: 0 });
  /** Which tracing the node offers: found on first use, kept for the reader's life. */
  let tracing: Promise<'debug' | 'trace' | 'none'> | undefined;

  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw nodeFailure(err, endpoint);
    }
  };

  const address = (text: string): string | null => (/^0x[0-9a-fA-F]{40}$/.test(text) ? text.toLowerCase() : null);

  async function debugTrace(hash: Viem.Hash): Promise<InternalTransfer[]> {
    const top = (await client.request({
      method: 'debug_traceTransaction' as 'eth_chainId',
      params: [hash, { tracer: 'callTracer' }] as unknown as undefined,
    })) as unknown as RpcCall;
    const out: InternalTransfer[] = [];
    const walk = (c: RpcCall, failedAbove: boolean) => {
      const failed = failedAbove || c.error !== undefined;
      const value = c.value ? BigInt(c.value) : 0n;
      const kind = (c.type ?? '').toUpperCase();
      if (value > 0n && (kind === 'CALL' || kind.startsWith('CREATE') || kind === 'SELFDESTRUCT'))
        out.push({ from: lower(c.from), to: lower(c.to), value, failed });
      for (const sub of c.calls ?? []) walk(sub, failed);
    };
    // The top call is the transaction's own transfer, not an internal one.
    for (const sub of top.calls ?? []) walk(sub, top.error !== undefined);
    return out;
  }

  async function parityTrace(hash: Viem.Hash): Promise<InternalTransfer[]> {
    const traces = (await client.request({
      method: 'trace_transaction' as 'eth_chainId',
      params: [hash] as unknown as undefined,
    })) as unknown as ParityTrace[];
    const failedAt = traces.filter((t) => t.error !== undefined).map((t) => (t.traceAddress ?? []).join('.'));
    const out: InternalTransfer[] = [];
    for (const t of traces) {
      const path = t.traceAddress ?? [];
      if (path.length === 0) continue;
      const a = t.action ?? {};
      const failed = failedAt.some((p) => p === '' || path.join('.') === p || path.join('.').startsWith(`${p}.`));
      if (t.type === 'call' && a.callType === 'call' && a.value && BigInt(a.value) > 0n)
        out.push({ from: lower(a.from), to: lower(a.to), value: BigInt(a.value), failed });
      else if (t.type === 'create' && a.value && BigInt(a.value) > 0n)
        out.push({ from: lower(a.from), to: lower(t.result?.address), value: BigInt(a.value), failed });
      else if (t.type === 'suicide' && a.balance && BigInt(a.balance) > 0n)
        out.push({ from: lower(a.address), to: lower(a.refundAddress), value: BigInt(a.balance), failed });
    }
    return out;
  }

  async function internalOf(hash: Viem.Hash): Promise<InternalTransfer[] | string> {
    const way = await (tracing ??= (async () => {
      for (const [name, probe] of [
        ['debug', debugTrace],
        ['trace', parityTrace],
      ] as const) {
        try {
          await probe(hash);
          return name;
        } catch (err) {
          if (!unserved(err)) throw nodeFailure(err, endpoint);
        }
      }
      return 'none';
    })().catch((err: unknown) => {
      // A failure that says nothing of the method: find out again next time.
      tracing = undefined;
      throw err;
    }));
    if (way === 'none') return 'the node offers neither debug_traceTransaction nor trace_transaction, so internal transfers cannot be read';
    return call(() => (way === 'debug' ? debugTrace(hash) : parityTrace(hash)));
  }

  return {
    family: 'ETH',
    get retries() {
      return retries;
    },
    address,
    networkId: () => call(async () => String(await client.getChainId())),
    head: () => call(() => client.getBlockNumber({ cacheTime: 0 })),

    async transaction(hash, { internal }): Promise<TxFacts | null> {
      if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new NodeError(`${hash} is not an EVM transaction hash (0x and 64 hex digits)`, true);
      const h = hash.toLowerCase() as Viem.Hash;
      const [tx, receipt] = await call(() =>
        Promise.all([
          client.getTransaction({ hash: h }).catch((err: unknown) => {
            if (err instanceof v.TransactionNotFoundError) return null;
            throw err;
          }),
          client.getTransactionReceipt({ hash: h }).catch((err: unknown) => {
            if (err instanceof v.TransactionReceiptNotFoundError) return null;
            throw err;
          }),
        ]),
      );
      if (!tx) return null;
      const base = { solidified: false, from: lower(tx.from), value: tx.value };
      if (!receipt || tx.blockNumber === null)
        return { ...base, block: null, success: null, to: lower(tx.to), fee: null, transfers: [], internal: [] };
      const transfers: TokenTransfer[] = [];
      for (const log of receipt.logs) {
        if (lower(log.topics[0]) !== TRANSFER_TOPIC || log.topics.length !== 3) continue;
        try {
          const { args } = v.decodeEventLog({ abi: v.erc20Abi, eventName: 'Transfer', topics: log.topics, data: log.data });
          transfers.push({
            contract: lower(log.address),
            from: lower(args.from),
            to: lower(args.to),
            value: args.value,
            index: log.logIndex,
          });
        } catch {
          // Not an ERC-20 Transfer (an ERC-721 one has its id as a topic): no token amount to compare.
        }
      }
      // An L2's receipt adds what it paid the L1 (OP Stack's l1Fee) to the gas.
      const l1Fee = (receipt as unknown as { l1Fee?: bigint | null }).l1Fee ?? 0n;
      return {
        ...base,
        block: receipt.blockNumber,
        success: receipt.status === 'success',
        to: lower(tx.to ?? receipt.contractAddress),
        fee: receipt.gasUsed * receipt.effectiveGasPrice + (typeof l1Fee === 'bigint' ? l1Fee : 0n),
        transfers,
        internal: internal ? await internalOf(h) : [],
      };
    },

    async tokenDetails(contract) {
      const a = address(contract);
      if (!a) throw new NodeError(`${contract} is not an EVM address`, true);
      const at = a as Viem.Address;
      const read = async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
        try {
          return await fn();
        } catch (err) {
          // A contract that does not answer (or answers in a form the ABI does not read) says nothing; the node failing is said.
          if (err instanceof v.ContractFunctionExecutionError || err instanceof v.AbiDecodingZeroDataError) return undefined;
          const inner = (err as { cause?: unknown }).cause;
          if (inner instanceof v.ContractFunctionRevertedError || inner instanceof v.ContractFunctionZeroDataError) return undefined;
          throw nodeFailure(err, endpoint);
        }
      };
      // Some older tokens (MKR, SAI) return symbol and name as bytes32.
      const text = async (fn: 'symbol' | 'name'): Promise<string | undefined> =>
        (await read(() => client.readContract({ address: at, abi: v.erc20Abi, functionName: fn }))) ??
        (await read(async () =>
          v.hexToString(await client.readContract({ address: at, abi: v.erc20Abi_bytes32, functionName: fn })).replace(/\0+$/, ''),
        ));
      const [symbol, name, decimals] = await Promise.all([
        text('symbol'),
        text('name'),
        read(() => client.readContract({ address: at, abi: v.erc20Abi, functionName: 'decimals' })),
      ]);
      if (symbol === undefined && decimals === undefined)
        return { symbol: '', name: '', decimal: null, error: 'the contract answers neither symbol() nor decimals(): not an ERC-20 token' };
      return {
        symbol: symbol ?? '',
        name: name ?? '',
        decimal: decimals ?? null,
        error: decimals === undefined ? 'the contract does not answer decimals()' : '',
      };
    },

    async blockAt(ms) {
      const seconds = BigInt(Math.floor(ms / 1000));
      return call(async () => {
        const latest = await client.getBlock({ blockTag: 'latest' });
        if (latest.timestamp <= seconds) return { number: latest.number, time: Number(latest.timestamp) * 1000 };
        const first = await client.getBlock({ blockNumber: 0n });
        if (first.timestamp > seconds) return null;
        // The last block at or before the moment: lo's time is <= it, hi's is after it.
        let lo = { number: 0n, timestamp: first.timestamp };
        let hi = latest.number;
        while (hi - lo.number > 1n) {
          const mid = (lo.number + hi) / 2n;
          const b = await client.getBlock({ blockNumber: mid });
          if (b.timestamp <= seconds) lo = { number: mid, timestamp: b.timestamp };
          else hi = mid;
        }
        return { number: lo.number, time: Number(lo.timestamp) * 1000 };
      });
    },

    nativeBalance: (addr, block) => call(() => client.getBalance({ address: addr as Viem.Address, blockNumber: block })),

    tokenBalance: (contract, addr, block) =>
      call(async () => {
        try {
          return await client.readContract({
            address: contract as Viem.Address,
            abi: v.erc20Abi,
            functionName: 'balanceOf',
            args: [addr as Viem.Address],
            blockNumber: block,
          });
        } catch (err) {
          // A contract not yet made at that block (or never on this chain): nobody held any of it.
          const code = await client.getCode({ address: contract as Viem.Address, blockNumber: block });
          if (code === undefined || code === '0x') return 0n;
          throw err;
        }
      }),
  };
}
