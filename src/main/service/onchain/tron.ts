import { setTimeout as sleep } from 'node:timers/promises';
import type * as TronWebModule from 'tronweb';
import { lazy } from '../lazy';
import type { Endpoint } from './endpoint';
import { NodeError, nodeFailure, type ChainReader, type InternalTransfer, type TokenTransfer, type TxFacts } from './reader';

/*
 * TRON's node (a full node's HTTP API, or TronGrid) through tronweb. A transaction is looked up on
 * the solidity node first (getTransactionInfo: its block is final), then on the full node
 * (getUnconfirmedTransactionInfo: in a block not yet final), then as a bare transaction
 * (getTransaction: known, in no block yet); the current block gives the confirmations. TRC-20
 * transfers are the Transfer events in the transaction's logs. The HTTP API has no batches, so the
 * check's bounded concurrency is what keeps the node's load in hand; a rate limit (429) or a node
 * failure (5xx, a dropped connection) is asked again with backoff, honouring Retry-After.
 */

const tronweb = lazy<typeof TronWebModule>('tronweb');

/** The Transfer event's topic, as TRON logs write it (no 0x). */
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** An address that holds nothing, as the caller of a constant (read-only) contract call. */
const NOBODY = '410000000000000000000000000000000000000000';

export interface TronOptions {
  retryCount?: number;
  retryDelay?: number;
  timeoutMs?: number;
}

interface AxiosLike {
  response?: { status?: number; headers?: Record<string, string | undefined> };
  code?: string;
}

const hasKeys = (o: unknown): boolean => typeof o === 'object' && o !== null && Object.keys(o).length > 0;

/** A JSON number the node sent as an integer count of the smallest unit, exactly, or an error when it cannot be. */
function integer(n: unknown, what: string): bigint {
  if (typeof n === 'string' && /^\d+$/.test(n)) return BigInt(n);
  if (typeof n === 'number' && Number.isSafeInteger(n)) return BigInt(n);
  if (n === undefined || n === null) return 0n;
  throw new NodeError(`the node sent ${what} as ${String(n)}, beyond what a JSON number carries exactly`);
}

export function tronReader(endpoint: Endpoint, opts: TronOptions = {}): ChainReader {
  const { TronWeb, providers, utils } = tronweb();
  // One provider (the URL, its timeout, the key header) serves the full node's and the solidity node's paths alike, as TronGrid does.
  const node = () => new providers.HttpProvider(endpoint.url.replace(/\/+$/, ''), opts.timeoutMs ?? 20_000, '', '', endpoint.headers);
  const tw = new TronWeb({ fullNode: node(), solidityNode: node(), eventServer: node(), disablePlugins: true });
  let retries = 0;
  const retryCount = opts.retryCount ?? 5;
  const retryDelay = opts.retryDelay ?? 200;

  /** A request, asked again on a rate limit, a 5xx or a dropped connection; its failure in words without the URL. */
  const ask = async <T>(run: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (err) {
        const e = err as AxiosLike;
        const status = e.response?.status;
        const transient = status === 429 || (status !== undefined && status >= 500) || e.code === 'ECONNRESET' || e.code === 'ETIMEDOUT';
        if (!transient || attempt >= retryCount) throw nodeFailure(err, endpoint);
        retries++;
        const after = Number.parseInt(e.response?.headers?.['retry-after'] ?? '', 10);
        await sleep(Number.isFinite(after) ? Math.min(after * 1000, 30_000) : Math.min(retryDelay * 2 ** attempt, 8_000));
      }
    }
  };

  const fromHex = (hex: string): string => TronWeb.address.fromHex(hex.length === 40 ? `41${hex}` : hex);
  const address = (text: string): string | null => {
    if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(text)) return TronWeb.isAddress(text) ? text : null;
    if (/^41[0-9a-fA-F]{40}$/.test(text)) return fromHex(text.toLowerCase());
    if (/^0x[0-9a-fA-F]{40}$/.test(text)) return fromHex(`41${text.slice(2).toLowerCase()}`);
    return null;
  };
  const addressOr = (text: string | undefined): string => (text ? (address(text) ?? text) : '');
  /** A 32-byte topic's address (its last 20 bytes). */
  const topicAddress = (topic: string): string => fromHex(`41${topic.slice(-40)}`);

  /** A constant call's first 32-byte word (or the whole answer), as hex without 0x; undefined when the contract reverts or answers nothing. */
  const constant = async (contractHex: string, selector: string): Promise<string | undefined> => {
    const r = await ask(() => tw.transactionBuilder.triggerConstantContract(contractHex, selector, {}, [], NOBODY));
    const out = (r.constant_result as string[] | undefined)?.[0];
    if (!r.result?.result || !out) return undefined;
    return out;
  };

  return {
    family: 'TRON',
    get retries() {
      return retries;
    },
    address,
    async networkId() {
      // TRON's chain id is the last four bytes of its genesis block's id (mainnet 0x2b6653dc = 728126428).
      const genesis = await ask(() => tw.trx.getBlockByNumber(0));
      const id = String(genesis.blockID ?? '');
      if (!/^[0-9a-f]{64}$/i.test(id)) throw new NodeError('the node answered no genesis block id');
      return String(Number.parseInt(id.slice(-8), 16));
    },
    async head() {
      const block = await ask(() => tw.trx.getCurrentBlock());
      return integer(block.block_header?.raw_data?.number, 'the block number');
    },

    async transaction(hash, { internal }): Promise<TxFacts | null> {
      const id = hash.replace(/^0x/i, '').toLowerCase();
      if (!/^[0-9a-f]{64}$/.test(id)) throw new NodeError(`${hash} is not a TRON transaction id (64 hex digits)`, true);
      let info = await ask(() => tw.trx.getTransactionInfo(id));
      const solidified = hasKeys(info);
      if (!solidified) info = await ask(() => tw.trx.getUnconfirmedTransactionInfo(id));
      const tx = await ask(() =>
        tw.trx.getTransaction(id).catch((err: unknown) => {
          // tronweb says so of an empty answer: the node has no such transaction.
          if (err instanceof Error && err.message === 'Transaction not found') return null;
          throw err;
        }),
      );
      const mined = hasKeys(info);
      if (!tx && !mined) return null;
      const contract = tx?.raw_data?.contract?.[0];
      const value = (contract?.parameter?.value ?? {}) as Record<string, unknown>;
      const isTransfer = contract?.type === 'TransferContract';
      const to = isTransfer ? value.to_address : value.contract_address;
      const transfers: TokenTransfer[] = [];
      (info.log ?? []).forEach((log, i) => {
        const topics = log.topics ?? [];
        if (topics[0]?.toLowerCase() !== TRANSFER_TOPIC || topics.length !== 3) return;
        transfers.push({
          contract: fromHex(`41${log.address.replace(/^41/, '').slice(-40)}`),
          from: topicAddress(topics[1]!),
          to: topicAddress(topics[2]!),
          value: BigInt(`0x${log.data || '0'}`),
          index: i,
        });
      });
      const internals: InternalTransfer[] = [];
      for (const t of info.internal_transactions ?? []) {
        for (const cv of t.callValueInfo ?? []) {
          // A TRC-10 token's value names its token id: only TRX is the chain's coin.
          if (cv.tokenId || !cv.callValue) continue;
          internals.push({
            from: addressOr(t.caller_address),
            to: addressOr(t.transferTo_address),
            value: integer(cv.callValue, 'an internal value'),
            failed: t.rejected === true,
          });
        }
      }
      const ret = tx?.ret?.[0]?.contractRet;
      const receiptResult = info.receipt?.result;
      return {
        block: mined ? integer(info.blockNumber, 'the block number') : null,
        solidified,
        success: !mined ? null : info.result !== 'FAILED' && (receiptResult ?? ret ?? 'SUCCESS') === 'SUCCESS',
        from: addressOr(value.owner_address as string | undefined),
        to: addressOr(to as string | undefined),
        value: integer(isTransfer ? value.amount : value.call_value, 'the amount'),
        fee: mined ? integer(info.fee, 'the fee') : null,
        transfers,
        internal: internal ? internals : [],
      };
    },

    async tokenDetails(contract) {
      const a = address(contract);
      if (!a) throw new NodeError(`${contract} is not a TRON address`, true);
      const hex = TronWeb.address.toHex(a);
      const decode = (type: string, out: string | undefined): unknown => {
        if (out === undefined) return undefined;
        try {
          return utils.abi.decodeParams([], [type], `0x${out}`)[0] as unknown;
        } catch {
          return undefined;
        }
      };
      const [symbolOut, nameOut, decimalsOut] = await Promise.all([
        constant(hex, 'symbol()'),
        constant(hex, 'name()'),
        constant(hex, 'decimals()'),
      ]);
      const symbol = decode('string', symbolOut);
      const name = decode('string', nameOut);
      const decimals = decode('uint8', decimalsOut);
      const decimal = decimals === undefined ? null : Number(decimals as bigint | number);
      if (symbol === undefined && decimal === null)
        return { symbol: '', name: '', decimal: null, error: 'the contract answers neither symbol() nor decimals(): not a TRC-20 token' };
      return {
        symbol: typeof symbol === 'string' ? symbol : '',
        name: typeof name === 'string' ? name : '',
        decimal,
        error: decimal === null ? 'the contract does not answer decimals()' : '',
      };
    },

    blockAt: () =>
      Promise.reject(new NodeError('a TRON node keeps no account state of past blocks, so a past balance cannot be read', true)),
    nativeBalance: () => Promise.reject(new NodeError('a TRON node keeps no account state of past blocks', true)),
    tokenBalance: () => Promise.reject(new NodeError('a TRON node keeps no account state of past blocks', true)),
  };
}
