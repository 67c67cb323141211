import { z } from 'zod';
import type { FlagField } from './reconcile';
import { pageOf, queryInt, requiredString, Uuid } from './primitives';

/*
 * The chain as the third witness (docs/onchain.md): a node per chain, the ledger's records checked
 * against it, token details read from their contracts, balances at a block. A node's URL goes from
 * the window or the command line to the service and is kept in the data folder; it is never
 * answered back whole (only masked: scheme, host and port), never on the /nps wire, never logged.
 */

/** What a check finds of one record. */
const ONCHAIN_OUTCOMES = ['agrees', 'differs', 'pending', 'not_found', 'unchecked'] as const;
export const OnchainOutcome = z.enum(ONCHAIN_OUTCOMES, { error: `must be one of ${ONCHAIN_OUTCOMES.join(', ')}` });
export type OnchainOutcome = z.infer<typeof OnchainOutcome>;

/** The fields a check compares, as its answers name them. */
export const ONCHAIN_FIELDS = ['amount', 'to', 'token', 'status', 'fee'] as const;
export const OnchainField = z.enum(ONCHAIN_FIELDS);
export type OnchainField = z.infer<typeof OnchainField>;

/** The exception queue's field of each (its filter by field, shared/tickets.ts). */
export const ONCHAIN_FLAG: Record<OnchainField, FlagField> = {
  amount: 'amount',
  to: 'to',
  token: 'token_id',
  status: 'status',
  fee: 'fee',
};

/** How a node's URL is kept in the data folder. */
export const NodeKept = z.enum(['safe_storage', 'file', 'none']);
export type NodeKept = z.infer<typeof NodeKept>;

export const NodeInfo = z.object({
  chain_id: z.string(),
  name: z.string(),
  /** The chain's family (chain_identifier): ETH (every EVM chain) and TRON can be checked. */
  family: z.string(),
  /** The chain id the catalogue expects of a node (EVM eth_chainId in decimal; TRON's from its genesis block); "" when unknown. */
  network_id: z.string(),
  supported: z.boolean(),
  configured: z.boolean(),
  /** The node's URL masked (scheme, host and port; its path and query, which often carry a key, as …); "" when none is set. */
  url: z.string(),
  kept: NodeKept,
  /** false when the URL was sealed by the desktop app's safeStorage and this process cannot open it. */
  readable: z.boolean(),
  set_at: z.number().int().nullable(),
});
export type NodeInfo = z.infer<typeof NodeInfo>;

const ChainRef = z.object({ chain_id: requiredString('a chain_id').trim().min(1, { error: 'must not be empty' }) }).strict();

const NodeSetInput = z
  .object({
    chain_id: requiredString('a chain_id').trim().min(1, { error: 'must not be empty' }),
    url: requiredString('an http(s) URL')
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(2000, { error: 'must be at most 2000 characters' }),
  })
  .strict();

const NodeSetResult = NodeInfo.extend({
  /** The id the node itself reported (equal to network_id: a node of another chain is refused). */
  node_network_id: z.string(),
  /** The node's newest block when it was set. */
  head: z.string(),
});

const DateText = z
  .string({ error: 'must be a date (YYYY-MM-DD) or an ISO 8601 moment' })
  .trim()
  .min(1, { error: 'must not be empty: a date (YYYY-MM-DD) or an ISO 8601 moment' });
const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v), schema.optional());

/** Which records a check covers: a wallet's (or every wallet's), created in a period (both ends inclusive, open when absent). */
const CheckScopeInput = {
  wallet_id: blankIsAbsent(Uuid),
  from: blankIsAbsent(DateText),
  to: blankIsAbsent(DateText),
  time_zone: blankIsAbsent(z.string({ error: 'must be an IANA time zone name such as UTC or Europe/Berlin' })),
};

const CheckStartInput = z
  .object({
    ...CheckScopeInput,
    /** Start over even when a check of the same scope stopped part-way (by default it resumes). */
    restart: z.boolean({ error: 'must be true or false' }).default(false),
  })
  .strict();

export const OnchainSummary = z.object({
  agrees: z.number().int(),
  differs: z.number().int(),
  pending: z.number().int(),
  not_found: z.number().int(),
  unchecked: z.number().int(),
});
export type OnchainSummary = z.infer<typeof OnchainSummary>;

const CHECK_STATES = ['running', 'done', 'cancelled', 'interrupted', 'failed'] as const;

export const OnchainCheck = z.object({
  check_id: z.string(),
  /** running; done; cancelled (by the user); interrupted (the service stopped); failed (with error). The last three resume. */
  state: z.enum(CHECK_STATES),
  wallet_id: z.string().nullable(),
  /** The period's ends as Unix ms (null: open), and the zone its dates were read in. */
  from: z.number().int().nullable(),
  to: z.number().int().nullable(),
  time_zone: z.string(),
  /** Records in scope with a hash (those without one cannot be asked about: without_hash). */
  total: z.number().int(),
  done: z.number().int(),
  without_hash: z.number().int(),
  summary: OnchainSummary,
  /** Times a node answered "too many requests" or failed and was asked again. */
  retries: z.number().int(),
  /** How many times the check was resumed after it stopped. */
  resumed: z.number().int(),
  started_at: z.number().int(),
  updated_at: z.number().int(),
  finished_at: z.number().int().nullable(),
  error: z.string(),
});
export type OnchainCheck = z.infer<typeof OnchainCheck>;

export const OnchainItem = z.object({
  transaction_id: z.string(),
  wallet_id: z.string(),
  chain_id: z.string(),
  token_id: z.string(),
  hash: z.string(),
  outcome: OnchainOutcome,
  /** differs: the fields that disagree (amount, to, token, status, fee). */
  fields: z.array(OnchainField),
  /** One line: what was found (the differing values, the confirmations, why unchecked). */
  reason: z.string(),
  /** The chain's values of the compared fields, as the ledger would write them. */
  chain: z.record(z.string(), z.string()),
  confirmations: z.number().int().nullable(),
  block_number: z.string().nullable(),
  /** The onchain exception a differs or not_found opened or updated; null otherwise. */
  ticket_id: z.string().nullable(),
  checked_at: z.number().int(),
});
export type OnchainItem = z.infer<typeof OnchainItem>;

const CheckRef = z.object({ check_id: requiredString('a check_id').min(1, { error: 'must not be empty' }) }).strict();

const CheckItemsQuery = z
  .object({
    check_id: requiredString('a check_id').min(1, { error: 'must not be empty' }),
    outcome: blankIsAbsent(OnchainOutcome),
    /** Only the records that do not agree (what needs a look). */
    notable: z.boolean({ error: 'must be true or false' }).default(false),
    page: queryInt({ min: 1, default: 1, description: '1-based page number' }),
    page_size: queryInt({ min: 1, max: 1000, default: 100, description: 'items per page' }),
  })
  .strict();

/** Symbol, name and decimals read from token contracts (ERC-20 / TRC-20 symbol(), name(), decimals()). */
const TokenDetailsInput = z
  .object({
    chain_id: requiredString('a chain_id').trim().min(1, { error: 'must not be empty' }),
    contract_addresses: z
      .array(z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }))
      .min(1, { error: 'must name at least one contract' })
      .max(100, { error: 'must name at most 100 contracts' }),
  })
  .strict();

export const TokenDetails = z.object({
  contract_address: z.string(),
  symbol: z.string(),
  name: z.string(),
  /** null when the contract did not answer decimals(). */
  decimal: z.number().int().nullable(),
  /** Why the contract could not be read ("" when it was). */
  error: z.string(),
});
export type TokenDetails = z.infer<typeof TokenDetails>;

const TokenDetailsResult = z.object({ chain_id: z.string(), tokens: z.array(TokenDetails) });

const BalanceInput = z
  .object({
    wallet_id: Uuid,
    at: DateText,
    time_zone: blankIsAbsent(z.string({ error: 'must be an IANA time zone name such as UTC or Europe/Berlin' })),
    /** Open a balance exception for each difference (the Balances screen first shows, then asks). Default true. */
    raise: z.boolean({ error: 'must be true or false' }).default(true),
  })
  .strict();

export const ChainBalanceRow = z.object({
  chain_id: z.string(),
  token_id: z.string(),
  address: z.string(),
  /** The balance the chain holds at the block, in the token's units. */
  chain_balance: z.string(),
  ledger_balance: z.string(),
  /** chain_balance - ledger_balance */
  difference: z.string(),
  /** The balance exception a difference opened or updated; null when they agree or none was asked for. */
  ticket_id: z.string().nullable(),
});
export type ChainBalanceRow = z.infer<typeof ChainBalanceRow>;

export const ChainBalances = z.object({
  wallet_id: z.string(),
  /** The moment (Unix ms, inclusive). */
  at: z.number().int(),
  time_zone: z.string(),
  /** Per chain of the wallet's addresses: the block read (the last at or before `at`), or why none was. */
  chains: z.array(
    z.object({
      chain_id: z.string(),
      address: z.string(),
      block_number: z.string().nullable(),
      block_time: z.number().int().nullable(),
      /** Why this chain's balances were not read ("" when they were). */
      reason: z.string(),
    }),
  ),
  rows: z.array(ChainBalanceRow),
});
export type ChainBalances = z.infer<typeof ChainBalances>;

export const onchainContract = {
  'onchain-nodes-list': { readOnly: true, input: z.object({}).strict(), output: z.array(NodeInfo) },
  /** Checks the node's chain id against the catalogue's before keeping it. */
  'onchain-node-set': { folderOnly: true, input: NodeSetInput, output: NodeSetResult },
  'onchain-node-clear': { folderOnly: true, input: ChainRef, output: NodeInfo },
  /** Starts (or resumes) a check in the background and answers at once; follow it with onchain-check-get. */
  'onchain-check-start': { input: CheckStartInput, output: OnchainCheck },
  'onchain-check-get': { readOnly: true, input: CheckRef, output: OnchainCheck },
  'onchain-check-latest': { readOnly: true, input: z.object({}).strict(), output: OnchainCheck.nullable() },
  'onchain-check-cancel': { input: CheckRef, output: OnchainCheck },
  'onchain-check-items': { readOnly: true, input: CheckItemsQuery, output: pageOf(OnchainItem) },
  'onchain-token-details': { readOnly: true, input: TokenDetailsInput, output: TokenDetailsResult },
  'onchain-balance': { input: BalanceInput, output: ChainBalances },
};
