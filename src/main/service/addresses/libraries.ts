import { lazy } from '../lazy';

/*
 * viem and tronweb, loaded when an address is first checked (lazy.ts). The service warms them when
 * it starts serving (warmAddressLibraries), so no request waits for them.
 */

const viem = lazy<typeof import('viem')>('viem');
const tronweb = lazy<typeof import('tronweb')>('tronweb');

/** viem's EIP-55 checksum of a lower-case 0x address. */
export const checksumAddress = (address: `0x${string}`): string => viem().checksumAddress(address);

/** tronweb's check of a TRON address (Base58Check T… or hex 41…). */
export const isTronAddress = (address: string): boolean => tronweb().TronWeb.isAddress(address);

/** Load both now (a service about to serve): the first address check then waits for neither. */
export function warmAddressLibraries(): void {
  viem();
  tronweb();
}
