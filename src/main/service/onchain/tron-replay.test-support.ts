import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TronWeb } from 'tronweb';

/*
 * A local stand-in for a TRON full node's HTTP API (what TronGrid serves): no TRON node can run on
 * these machines. Its answers are NOT recordings of a live node: they are written here in the shapes
 * tronweb's own types document (node_modules/tronweb/lib/esm/types: Trx.d.ts TransactionInfo,
 * APIResponse.d.ts GetTransactionResponse and Block, Transaction.d.ts TransactionWrapper), with an
 * unknown id answered as java-tron answers it, an empty object. Transactions are kept by id; a
 * test says which block each is in, whether the solidity node has it, and what it did.
 */

/** TRON mainnet's genesis block id: its last four bytes, 0x2b6653dc, are the chain id 728126428. */
const MAINNET_GENESIS = '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc';
/** Nile testnet's: chain id 0xcd8690dc. */
export const NILE_GENESIS = '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc';

const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/** A TRON address made of one repeated byte (hex 41 + 20 bytes), in Base58Check. */
export const tronAddress = (byte: string): string => TronWeb.address.fromHex(`41${byte.repeat(20)}`);
const hex = (base58: string): string => TronWeb.address.toHex(base58);
/** An address as a 32-byte log topic. */
const topic = (base58: string): string => hex(base58).slice(2).padStart(64, '0');

interface ReplayTx {
  id: string;
  /** The block it is in; null: known to the node, in no block yet. */
  block: number | null;
  /** Whether the solidity node has it (its block is final). */
  solidified: boolean;
  /** java-tron's contractRet: SUCCESS, REVERT, OUT_OF_ENERGY… */
  result: string;
  fee: number;
  from: string;
  /** A TRX transfer (TransferContract) ... */
  trx?: { to: string; sun: number };
  /** ... or a TRC-20 transfer (TriggerSmartContract calling transfer, its Transfer event in the log when it succeeded). */
  trc20?: { contract: string; to: string; units: bigint };
}

export interface Replay {
  url: string;
  head: number;
  /** Requests answered, by path. */
  seen: Map<string, number>;
  add(tx: ReplayTx): void;
  /** HTTP 429 (Retry-After: 0) for the next n requests. */
  tooMany(n: number): void;
  close(): Promise<void>;
}

function getTransaction(t: ReplayTx): Record<string, unknown> {
  const contract = t.trx
    ? {
        type: 'TransferContract',
        parameter: {
          value: { amount: t.trx.sun, owner_address: hex(t.from), to_address: hex(t.trx.to) },
          type_url: 'type.googleapis.com/protocol.TransferContract',
        },
      }
    : {
        type: 'TriggerSmartContract',
        parameter: {
          value: {
            // transfer(address,uint256)
            data: `a9059cbb${topic(t.trc20!.to)}${t.trc20!.units.toString(16).padStart(64, '0')}`,
            owner_address: hex(t.from),
            contract_address: hex(t.trc20!.contract),
          },
          type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
        },
      };
  return {
    ret: [{ contractRet: t.result }],
    signature: ['00'.repeat(65)],
    txID: t.id,
    raw_data: {
      contract: [contract],
      ref_block_bytes: '0000',
      ref_block_hash: '0000000000000000',
      expiration: 1768435260000,
      timestamp: 1768435200000,
      ...(t.trc20 ? { fee_limit: 100_000_000 } : {}),
    },
    raw_data_hex: '00',
  };
}

function transactionInfo(t: ReplayTx): Record<string, unknown> {
  const ok = t.result === 'SUCCESS';
  const base: Record<string, unknown> = {
    id: t.id,
    fee: t.fee,
    blockNumber: t.block,
    blockTimeStamp: 1768435200000,
    contractResult: [''],
  };
  if (t.trx) return { ...base, receipt: { net_usage: 268 } };
  return {
    ...base,
    contract_address: hex(t.trc20!.contract).slice(2),
    receipt: { energy_usage_total: 14650, net_usage: 345, energy_fee: t.fee, result: t.result },
    ...(ok
      ? {
          log: [
            {
              address: hex(t.trc20!.contract).slice(2),
              topics: [TRANSFER_TOPIC, topic(t.from), topic(t.trc20!.to)],
              data: t.trc20!.units.toString(16).padStart(64, '0'),
            },
          ],
        }
      : { result: 'FAILED', resMessage: Buffer.from('REVERT opcode executed').toString('hex') }),
  };
}

/** Constant calls of a TRC-20 (symbol, name, decimals) for the contracts it knows. */
const TOKENS: Record<string, { symbol: string; name: string; decimals: number }> = {
  [USDT]: { symbol: 'USDT', name: 'Tether USD', decimals: 6 },
};

function abiString(s: string): string {
  const bytes = Buffer.from(s, 'utf8').toString('hex');
  return `${(32).toString(16).padStart(64, '0')}${s.length.toString(16).padStart(64, '0')}${bytes.padEnd(Math.ceil(bytes.length / 64) * 64 || 64, '0')}`;
}

export async function startReplay(opts: { genesis?: string; head?: number } = {}): Promise<Replay> {
  const txs = new Map<string, ReplayTx>();
  const seen = new Map<string, number>();
  let refuse = 0;
  const state = { head: opts.head ?? 70_000_000 };
  const block = (num: number) => ({
    blockID: num === 0 ? (opts.genesis ?? MAINNET_GENESIS) : num.toString(16).padStart(16, '0') + 'ab'.repeat(24),
    block_header: {
      raw_data: {
        number: num,
        txTrieRoot: '00'.repeat(32),
        witness_address: '41' + '00'.repeat(20),
        parentHash: '00'.repeat(32),
        version: 30,
        timestamp: 1768435200000 + num * 3000,
      },
      witness_signature: '00'.repeat(65),
    },
  });
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/+/, '');
      seen.set(path, (seen.get(path) ?? 0) + 1);
      const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      if (refuse > 0) {
        refuse--;
        return send(429, { Error: 'too many requests' }, { 'retry-after': '0' });
      }
      const input = (body ? JSON.parse(body) : Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams)) as Record<
        string,
        unknown
      >;
      const t = typeof input.value === 'string' ? txs.get(input.value) : undefined;
      switch (path) {
        case 'wallet/getnowblock':
          return send(200, block(state.head));
        case 'wallet/getblockbynum':
          return send(200, Number(input.num) <= state.head ? block(Number(input.num)) : {});
        case 'walletsolidity/gettransactioninfobyid':
          return send(200, t && t.block !== null && t.solidified ? transactionInfo(t) : {});
        case 'wallet/gettransactioninfobyid':
          return send(200, t && t.block !== null ? transactionInfo(t) : {});
        case 'wallet/gettransactionbyid':
          return send(200, t ? getTransaction(t) : {});
        case 'wallet/triggerconstantcontract': {
          const contract = TronWeb.address.fromHex(String(input.contract_address));
          const token = TOKENS[contract];
          const selector = String(input.function_selector);
          if (!token) return send(200, { result: { code: 'CONTRACT_VALIDATE_ERROR', message: '' }, constant_result: [] });
          const out =
            selector === 'decimals()'
              ? token.decimals.toString(16).padStart(64, '0')
              : selector === 'symbol()'
                ? abiString(token.symbol)
                : selector === 'name()'
                  ? abiString(token.name)
                  : undefined;
          return send(
            200,
            out === undefined ? { result: { result: false } } : { result: { result: true }, energy_used: 500, constant_result: [out] },
          );
        }
        default:
          return send(404, { Error: `no such path ${path}` });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get head() {
      return state.head;
    },
    set head(n: number) {
      state.head = n;
    },
    seen,
    add: (tx) => void txs.set(tx.id, tx),
    tooMany: (n) => {
      refuse = n;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
