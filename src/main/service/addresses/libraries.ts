import { lazy } from '../lazy';

/*
 * The address libraries, loaded when an address is first checked (lazy.ts). The service warms them
 * when it starts serving (warmAddressLibraries), so no request waits for them.
 *
 * EIP-55 comes from ox's Address module (ox is by viem's authors, and viem depends on this very
 * version): the same checksums as viem's checksumAddress (check.test.ts compares them) for 25 ms
 * of loading, where viem's whole package costs 170 ms of a command's main thread. `nps import` loads it in the middle of reading the
 * file, on the thread the import's speed depends on (bench:import).
 */

const address = lazy<typeof import('ox/Address')>('ox/Address');
const tronweb = lazy<typeof import('tronweb')>('tronweb');

/** The EIP-55 checksum of a lower-case 0x address. */
export const checksumAddress = (a: `0x${string}`): string => address().checksum(a);

/** tronweb's check of a TRON address (Base58Check T… or hex 41…). */
export const isTronAddress = (address: string): boolean => tronweb().TronWeb.isAddress(address);

/** Load both now (a service about to serve): the first address check then waits for neither. */
export function warmAddressLibraries(): void {
  address();
  tronweb();
}
