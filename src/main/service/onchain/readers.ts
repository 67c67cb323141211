import { endpointOf } from './endpoint';
import { evmReader } from './evm';
import type { ChainReader } from './reader';
import { tronReader } from './tron';

/** A reader of the node at this URL for the chain's family: viem for EVM chains, tronweb for TRON. */
export function readerAt(family: string, url: string): ChainReader {
  const endpoint = endpointOf(url, family);
  return family === 'TRON' ? tronReader(endpoint) : evmReader(endpoint);
}
