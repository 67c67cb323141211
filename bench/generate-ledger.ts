import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { TronWeb } from 'tronweb';
import { checksumAddress } from 'viem';

/* A realistic native-format ledger for benchmarks: deterministic for a seed. */

export interface GenerateOptions {
  seed?: number;
  /** Number of wallets the rows are spread over. */
  wallets?: number;
}

export interface GeneratedLedger {
  rows: number;
  bytes: number;
  wallets: string[];
}

/** mulberry32: small, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HEX = '0123456789abcdef';

interface Asset {
  chain: string;
  token: string;
  decimal: number;
  family: 'ETH' | 'TRON';
  /** Typical size of an amount, in whole units. */
  scale: number;
  weight: number;
}

const ASSETS: Asset[] = [
  { chain: 'TRON', token: 'TRON_USDT', decimal: 6, family: 'TRON', scale: 2000, weight: 30 },
  { chain: 'ETH', token: 'ETH_USDT', decimal: 6, family: 'ETH', scale: 5000, weight: 14 },
  { chain: 'ETH', token: 'ETH_USDC', decimal: 6, family: 'ETH', scale: 5000, weight: 8 },
  { chain: 'ETH', token: 'ETH', decimal: 18, family: 'ETH', scale: 2, weight: 8 },
  { chain: 'BSC_BNB', token: 'BSC_USDT', decimal: 18, family: 'ETH', scale: 1000, weight: 14 },
  { chain: 'BSC_BNB', token: 'BSC_USDC', decimal: 18, family: 'ETH', scale: 1000, weight: 4 },
  { chain: 'BSC_BNB', token: 'BSC_BNB', decimal: 18, family: 'ETH', scale: 3, weight: 3 },
  { chain: 'TRON', token: 'TRON', decimal: 6, family: 'TRON', scale: 5000, weight: 5 },
  { chain: 'MATIC', token: 'MATIC_USDT', decimal: 6, family: 'ETH', scale: 500, weight: 5 },
  { chain: 'ARBITRUM_ETH', token: 'ARBITRUM_USDC', decimal: 6, family: 'ETH', scale: 800, weight: 5 },
  { chain: 'BASE_ETH', token: 'BASE_USDC', decimal: 6, family: 'ETH', scale: 800, weight: 4 },
];
const STATUSES = [
  'Completed',
  'Completed',
  'Completed',
  'Completed',
  'Completed',
  'Completed',
  'Completed',
  'Confirming',
  'Pending',
  'Failed',
  'Rejected',
];

/** The native format's columns (any order is read) in the order each row below writes its values. */
const COLUMNS =
  'transaction_id,wallet_id,request_id,type,status,amount,to,fee_ratio,fee_fixed,fee,er,amount_actual,hash,chain_id,token_id,created_at,confirmed_at,completed_at';

/**
 * Write `rows` ledger rows in the native CSV format to `path`: UUID ids, EIP-55 and TRON Base58
 * addresses from a pool of counterparties, hashes in each chain's form, amounts with the token's
 * decimal places (18 on BSC), fees on withdrawals, times in Unix milliseconds.
 */
export async function generateLedger(path: string, rows: number, opts: GenerateOptions = {}): Promise<GeneratedLedger> {
  const rand = prng(opts.seed ?? 1);
  const hex = (n: number) => {
    let s = '';
    for (let i = 0; i < n; i++) s += HEX[(rand() * 16) | 0];
    return s;
  };
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[(rand() * 4) | 0]}${hex(3)}-${hex(12)}`;
  const wallets = Array.from({ length: opts.wallets ?? 20 }, uuid);
  const evm = Array.from({ length: 4000 }, () => checksumAddress(`0x${hex(40)}`));
  const tron = Array.from({ length: 2000 }, () => TronWeb.address.fromHex(`41${hex(40)}`));
  const totalWeight = ASSETS.reduce((s, a) => s + a.weight, 0);
  const pickAsset = () => {
    let r = rand() * totalWeight;
    for (const a of ASSETS) if ((r -= a.weight) < 0) return a;
    return ASSETS[0]!;
  };
  const amountOf = (a: Asset) => {
    const whole = Math.floor(rand() * a.scale);
    const places = Math.min(a.decimal, 1 + ((rand() * a.decimal) | 0));
    let frac = '';
    for (let i = 0; i < places; i++) frac += HEX[(rand() * 10) | 0];
    frac = frac.replace(/0+$/, '');
    return frac ? `${whole}.${frac}` : String(whole);
  };

  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  let bytes = 0;
  let buf = `${COLUMNS}\n`;
  const start = Date.UTC(2025, 0, 1);
  const span = 365 * 24 * 3600 * 1000;
  for (let i = 0; i < rows; i++) {
    const a = pickAsset();
    const deposit = rand() < 0.55;
    const status = STATUSES[(rand() * STATUSES.length) | 0]!;
    const amount = amountOf(a);
    const to = a.family === 'ETH' ? evm[(rand() * evm.length) | 0]! : tron[(rand() * tron.length) | 0]!;
    const hash = status === 'Rejected' ? '' : a.family === 'ETH' ? `0x${hex(64)}` : hex(64);
    const created = start + Math.floor(rand() * span);
    const confirmed = status === 'Completed' || status === 'Confirming' ? created + 15_000 + Math.floor(rand() * 120_000) : '';
    const completed = status === 'Completed' ? Number(confirmed) + Math.floor(rand() * 60_000) : '';
    const fee = deposit ? '' : a.decimal === 6 ? '1' : '0.0005';
    const actual = deposit || status !== 'Completed' ? '' : amount;
    buf += `${uuid()},${wallets[(rand() * wallets.length) | 0]},${deposit ? '' : `wd-${hex(12)}`},${deposit ? 'Deposit' : 'Withdrawal'},${status},${amount},${to},,${fee ? fee : ''},${fee},,${actual},${hash},${a.chain},${a.token},${created},${confirmed},${completed}\n`;
    if (buf.length > 1 << 20) {
      bytes += Buffer.byteLength(buf);
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  bytes += Buffer.byteLength(buf);
  out.end(buf);
  await once(out, 'finish');
  return { rows, bytes, wallets };
}
