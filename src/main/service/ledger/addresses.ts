import { checkEvmAddress, checkTronAddress } from '../addresses/check';

const CACHE_LIMIT = 50_000;

/**
 * Address check for ledger rows. A ledger repeats its counterparties, so verdicts are kept (up to
 * CACHE_LIMIT, then started afresh) and the checksum is computed once per address, not per row.
 */
export class AddressCache {
  private readonly seen = { ETH: new Map<string, string | null>(), TRON: new Map<string, string | null>() };

  /** null when valid for the chain family, else why not. Families other than ETH and TRON are not checked. */
  problem(address: string, family: string): string | null {
    if (family !== 'ETH' && family !== 'TRON') return null;
    const seen = this.seen[family];
    const hit = seen.get(address);
    if (hit !== undefined) return hit;
    const verdict = family === 'ETH' ? checkEvmAddress(address) : checkTronAddress(address);
    const problem = verdict.is_valid ? null : `${JSON.stringify(address)} is not a valid ${family === 'ETH' ? 'EVM' : 'TRON'} address: ${verdict.reason}`;
    if (seen.size >= CACHE_LIMIT) seen.clear();
    seen.set(address, problem);
    return problem;
  }
}
