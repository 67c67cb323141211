import { createHash } from 'node:crypto';
import { checkEvmAddress, checkTronAddress } from '../addresses/check';
import { checksumAddress } from '../addresses/libraries';
import { detach, isPlainText } from './values';

const CACHE_LIMIT = 50_000;
const EVM_SHAPE = /^0x[0-9a-fA-F]{40}$/;
const SINGLE_CASE = /^0x(?:[0-9a-f]{40}|[0-9A-F]{40})$/;
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE58.length; i++) BASE58_VALUE[BASE58.charCodeAt(i)] = i;

/** Base58Check T... address: 25 bytes, prefix 0x41, last 4 the double SHA-256 checksum of the first 21. */
function isTronBase58(address: string): boolean {
  if (address.length !== 34 || address.charCodeAt(0) !== 84) return false;
  const bytes = new Uint8Array(25);
  for (let i = 0; i < address.length; i++) {
    let carry = BASE58_VALUE[address.charCodeAt(i)] ?? -1;
    if (carry < 0) return false;
    for (let j = 24; j >= 0; j--) {
      carry += bytes[j]! * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    if (carry !== 0) return false;
  }
  if (bytes[0] !== 0x41) return false;
  const body = bytes.subarray(0, 21);
  const check = createHash('sha256').update(createHash('sha256').update(body).digest()).digest();
  return check[0] === bytes[21] && check[1] === bytes[22] && check[2] === bytes[23] && check[3] === bytes[24];
}

/**
 * Address check for ledger rows, with the same verdicts as the address endpoint: a ledger has
 * many rows per counterparty, so mixed-case EVM verdicts (a Keccak hash each) and TRON verdicts
 * are kept (up to CACHE_LIMIT per family, then started afresh), and single-case EVM addresses
 * need no hash at all. The reason for a bad address comes from the endpoint's own check.
 */
export class AddressCache {
  private readonly seen = { ETH: new Map<string, string | null>(), TRON: new Map<string, string | null>() };

  /** null when valid for the chain family, else why not. Families other than ETH and TRON are only held to one line of text. */
  problem(address: string, family: string): string | null {
    // The verdicts kept are looked up before anything is made for a new one: a ledger's rows are
    // mostly addresses met before.
    if (family === 'ETH') {
      if (SINGLE_CASE.test(address)) return null;
      const hit = this.seen.ETH.get(address);
      if (hit !== undefined) return hit;
      return this.judge('ETH', address, EVM_SHAPE.test(address) && checksumAddress(address.toLowerCase() as `0x${string}`) === address);
    }
    if (family === 'TRON') {
      const hit = this.seen.TRON.get(address);
      if (hit !== undefined) return hit;
      return this.judge('TRON', address, isTronBase58(address) || /^41[0-9a-fA-F]{40}$/.test(address));
    }
    return isPlainText(address) ? null : 'is not an address';
  }

  /** The verdict on an address not met yet, kept. */
  private judge(family: 'ETH' | 'TRON', address: string, valid: boolean): string | null {
    const seen = this.seen[family];
    let problem: string | null = null;
    if (!valid) {
      const verdict = family === 'ETH' ? checkEvmAddress(address) : checkTronAddress(address);
      problem = `${JSON.stringify(address)} is not a valid ${family === 'ETH' ? 'EVM' : 'TRON'} address: ${verdict.is_valid ? 'not in its canonical form' : verdict.reason}`;
    }
    if (seen.size >= CACHE_LIMIT) seen.clear();
    seen.set(detach(address), problem);
    return problem;
  }
}
