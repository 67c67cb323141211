import type { TokenDetails } from '../../../shared/onchain';
import { scrub, type Endpoint } from './endpoint';

/*
 * What a chain's node says, in one shape for every family (evm.ts through viem, tron.ts through
 * tronweb): a transaction's facts by hash, the chain's head, token contracts, balances at a block.
 * Addresses come normalised as the family compares them (EVM lower-case hex, TRON Base58 T…);
 * amounts are integers in the smallest unit (wei, sun, a token's base unit).
 */

/** A token contract's Transfer event in the transaction. */
export interface TokenTransfer {
  contract: string;
  from: string;
  to: string;
  value: bigint;
  /** The log's index in its block (EVM) or its position in the transaction (TRON). */
  index: number;
}

/** A transfer of the chain's coin made by a contract inside the transaction (a trace's call with value). */
export interface InternalTransfer {
  from: string;
  to: string;
  value: bigint;
  failed: boolean;
}

export interface TxFacts {
  /** The block it is in; null while it waits to be included. */
  block: bigint | null;
  /** TRON: the solidity node has it (final whatever the count). */
  solidified: boolean;
  /** Whether it succeeded; null while it is in no block. */
  success: boolean | null;
  from: string;
  /** Where the coin went: the transaction's recipient (a contract creation: the contract made). */
  to: string;
  /** The coin it moved to `to`. */
  value: bigint;
  /** What its sender paid the network, in the coin; null where the node does not say. */
  fee: bigint | null;
  transfers: TokenTransfer[];
  /** The internal transfers, or why the node cannot give them (asked only for records of one). */
  internal: InternalTransfer[] | string;
}

export interface ChainReader {
  readonly family: 'ETH' | 'TRON';
  /** The chain id the node answers (decimal). */
  networkId(): Promise<string>;
  /** The newest block, read fresh every time. */
  head(): Promise<bigint>;
  /** null: the node has never seen the hash. */
  transaction(hash: string, opts: { internal: boolean }): Promise<TxFacts | null>;
  tokenDetails(contract: string): Promise<Omit<TokenDetails, 'contract_address'>>;
  /** The newest block at or before the moment (Unix ms); null before the chain's first block. */
  blockAt(ms: number): Promise<{ number: bigint; time: number } | null>;
  nativeBalance(address: string, block: bigint): Promise<bigint>;
  tokenBalance(contract: string, address: string, block: bigint): Promise<bigint>;
  /** An address as this family compares them; null when it is none. */
  address(text: string): string | null;
  /** Requests asked again after a rate limit or a failure of the node. */
  readonly retries: number;
}

/** The node failed (after its retries), or cannot do what was asked: the message is safe to show (no URL in it). */
export class NodeError extends Error {
  constructor(
    message: string,
    readonly unsupported = false,
  ) {
    super(message);
    this.name = 'NodeError';
  }
}

interface ErrorLike {
  name?: string;
  message?: string;
  shortMessage?: string;
  details?: string;
  status?: number;
  code?: string | number;
  cause?: unknown;
  response?: { status?: number };
}

/** One line saying why a node's request failed, from whatever the library threw, without the URL or its key. */
export function nodeFailure(err: unknown, endpoint: Pick<Endpoint, 'secrets' | 'masked'>): NodeError {
  if (err instanceof NodeError) return err;
  const chain: ErrorLike[] = [];
  for (let e: unknown = err; e && typeof e === 'object' && chain.length < 6; e = (e as ErrorLike).cause) chain.push(e as ErrorLike);
  const status = chain.map((e) => e.status ?? e.response?.status).find((s) => typeof s === 'number');
  const sysCode = chain.map((e) => e.code).find((c) => typeof c === 'string' && /^E[A-Z]+$/.test(c));
  const timeout = chain.some((e) => e.name === 'TimeoutError' || e.code === 'ECONNABORTED');
  let text: string;
  if (timeout) text = 'the node did not answer in time';
  else if (sysCode) text = `could not reach the node (${String(sysCode)})`;
  else if (status !== undefined)
    text = `the node answered HTTP ${status}${status === 429 ? ' (too many requests), also after waiting and asking again' : ''}`;
  else {
    const first = chain[0];
    const said = first?.details || first?.shortMessage || first?.message || String(err);
    text = `the node failed: ${said.split('\n')[0]!.slice(0, 300)}`;
  }
  return new NodeError(scrub(text, endpoint));
}
