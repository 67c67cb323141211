import { z } from 'zod';
import { DecimalString, PageQuery, pageOf } from './primitives';

const optionalFilter = (description: string) =>
  z.string({ error: 'must be a single string' }).min(1, { error: 'must not be empty' }).optional().meta({ description });

export const Chain = z.object({
  chain_id: z.string(),
  chain_identifier: z.string().meta({ description: 'Execution family: ETH for every EVM chain, TRON, BTC, SOL, ...' }),
  name: z.string(),
  native_token_id: z.string(),
  is_testnet: z.boolean(),
  confirmations: z.number().int().meta({ description: 'Blocks after which a deposit is treated as final' }),
  explorer_url: z.string(),
  explorer_tx_template: z.string().meta({ description: 'Transaction page URL with {hash}' }),
  explorer_address_template: z.string().meta({ description: 'Address page URL with {address}' }),
});
export type Chain = z.infer<typeof Chain>;

export const Token = z.object({
  token_id: z.string(),
  chain_id: z.string(),
  symbol: z.string(),
  name: z.string(),
  contract_address: z.string().meta({ description: 'Empty for the native coin' }),
  decimals: z.number().int(),
  is_native: z.boolean(),
  dust_threshold: DecimalString.meta({ description: 'Amounts below this are treated as dust' }),
});
export type Token = z.infer<typeof Token>;

export const ChainListQuery = z.object({
  ...PageQuery,
  chain_id: optionalFilter('Exact chain ID, e.g. ETH'),
  chain_identifier: optionalFilter('Exact execution family, e.g. ETH or TRON'),
});
export type ChainListQuery = z.output<typeof ChainListQuery>;

export const TokenListQuery = z.object({
  ...PageQuery,
  chain_id: optionalFilter('Exact chain ID, e.g. TRON'),
  token_id: optionalFilter('Exact token ID, e.g. TRON_USDT'),
});
export type TokenListQuery = z.output<typeof TokenListQuery>;

export const ChainPage = pageOf(Chain);
export const TokenPage = pageOf(Token);

/** What an accountant may change in a catalogue row; a changed row is never overwritten by seeding. */
export const ChainUpdate = z.object({
  chain_id: z.string().min(1),
  confirmations: z.number().int().min(0).optional(),
  name: z.string().min(1).optional(),
});
export const TokenUpdate = z.object({
  token_id: z.string().min(1),
  dust_threshold: DecimalString.optional(),
  name: z.string().min(1).optional(),
});

export const catalogueContract = {
  'catalogue-chains-list': { input: ChainListQuery, output: ChainPage },
  'catalogue-tokens-list': { input: TokenListQuery, output: TokenPage },
  'catalogue-chain-update': { input: ChainUpdate, output: Chain },
  'catalogue-token-update': { input: TokenUpdate, output: Token },
};
