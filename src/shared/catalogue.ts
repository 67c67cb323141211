import { z } from 'zod';
import { addition, DecimalString, PageQuery } from './primitives';

/*
 * The catalogue under the source description's names (docs/api.md, "Resources":
 * Chain and Token): its fields first, in its order, then this product's additions. The same
 * names are the columns of the store, the keys of resources/catalogue.json and the screen's labels.
 */

const optionalFilter = (description: string) =>
  z.string({ error: 'must be a single string' }).min(1, { error: 'must not be empty' }).optional().meta({ description });

export const Chain = z.strictObject({
  chain_id: z.string(),
  chain_identifier: z
    .string()
    .meta({ description: 'Execution family shared by several chain_id values: ETH for every EVM chain, TRON, BTC, SOL, ...' }),
  native_token_id: z.string(),
  confirming_threshold: z.number().int().meta({ description: 'Blocks after which a deposit is treated as final' }),
  explorer_tx_url: z.string().meta({ description: 'Transaction page URL template with {hash}' }),
  explorer_address_url: z.string().meta({ description: 'Address page URL template with {address}' }),
  enabled: z.boolean(),
  name: z.string().meta(addition('a name for people')),
  is_testnet: z.boolean().meta(addition('true for a test network')),
  explorer_url: z.string().meta(addition("the explorer's home page")),
});
export type Chain = z.infer<typeof Chain>;

export const Token = z.strictObject({
  chain_id: z.string(),
  token_id: z.string(),
  symbol: z.string(),
  contract_address: z.string().meta({ description: 'Empty for the native coin' }),
  decimal: z.number().int(),
  dust_threshold: DecimalString.meta({ description: 'Amounts below this are treated as dust' }),
  can_deposit: z.boolean(),
  can_withdraw: z.boolean(),
  name: z.string().meta(addition('a name for people')),
  is_native: z.boolean().meta(addition("true for the chain's native coin")),
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

const pageInfo = {
  page: z.number().int().meta(addition('the page answered (1-based)')),
  page_size: z.number().int().meta(addition('the page size answered')),
};
/** GET /nps/chains `data`: `total` counts every match, not the page. */
export const ChainPage = z.strictObject({ total: z.number().int(), chains: z.array(Chain), ...pageInfo });
export type ChainPage = z.infer<typeof ChainPage>;
/** GET /nps/tokens `data`. */
export const TokenPage = z.strictObject({ total: z.number().int(), tokens: z.array(Token), ...pageInfo });
export type TokenPage = z.infer<typeof TokenPage>;

/** An explorer template: https only (the window opens explorer links, and only https ones). */
const template = (placeholder: string) =>
  z
    .string({ error: `must be an https URL containing ${placeholder}` })
    .refine((s) => s.includes(placeholder) && /^https:\/\/[^\s/]+\//.test(s), { error: `must be an https URL containing ${placeholder}` });
const name = z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' });
const flag = z.boolean({ error: 'must be true or false' });

/** What an accountant may change in a catalogue row; a changed row is never overwritten by seeding. */
export const ChainUpdate = z.strictObject({
  chain_id: z.string().min(1),
  confirming_threshold: z
    .number({ error: 'must be an integer >= 0' })
    .int({ error: 'must be an integer >= 0' })
    .min(0, { error: 'must be an integer >= 0' })
    .optional(),
  explorer_tx_url: template('{hash}').optional(),
  explorer_address_url: template('{address}').optional(),
  enabled: flag.optional(),
  name: name.optional(),
});
export type ChainUpdate = z.output<typeof ChainUpdate>;
const tokenDecimal = z
  .number({ error: 'must be an integer from 0 to 36' })
  .int({ error: 'must be an integer from 0 to 36' })
  .min(0, { error: 'must be an integer from 0 to 36' })
  .max(36, { error: 'must be an integer from 0 to 36' });
/**
 * A token's decimal may be changed (one added with too few places corrected) as long as no ledger
 * record of the token has an amount with more decimal places than the new value.
 */
export const TokenUpdate = z.strictObject({
  token_id: z.string().min(1),
  decimal: tokenDecimal.optional(),
  dust_threshold: DecimalString.refine((s) => !s.startsWith('-'), { error: 'must not be negative' }).optional(),
  can_deposit: flag.optional(),
  can_withdraw: flag.optional(),
  name: name.optional(),
});
export type TokenUpdate = z.output<typeof TokenUpdate>;

const identifier = z
  .string({ error: 'must be a string' })
  .regex(/^[A-Z][A-Z0-9_]{1,31}$/, { error: 'must be 2 to 32 capital letters, digits or _, starting with a letter (e.g. MANTLE)' });
const optionalTemplate = (placeholder: string) => z.union([z.literal(''), template(placeholder)]).default('');

/** A chain the catalogue file lacks (a new L2): added with its native coin, marked as the user's, never overwritten by seeding. */
export const ChainAdd = z.strictObject({
  chain_id: identifier,
  chain_identifier: z
    .string({ error: 'must be a string' })
    .regex(/^[A-Z][A-Z0-9]{1,15}$/, { error: 'must be a family such as ETH, TRON, BTC or SOL' }),
  name,
  /** The native coin's symbol and decimal (its token_id is the chain_id). */
  native_symbol: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(16, { error: 'must be at most 16 characters' }),
  native_decimal: tokenDecimal,
  confirming_threshold: z.number({ error: 'must be an integer >= 0' }).int().min(0).default(12),
  explorer_tx_url: optionalTemplate('{hash}'),
  explorer_address_url: optionalTemplate('{address}'),
  is_testnet: flag.default(false),
});
export type ChainAdd = z.output<typeof ChainAdd>;

/** A token the catalogue file lacks (a token an export mentions): identified by its chain and contract. */
export const TokenAdd = z.strictObject({
  chain_id: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
  /** Default: CHAIN_SYMBOL (e.g. ETH_PEPE). */
  token_id: identifier.optional(),
  symbol: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(32, { error: 'must be at most 32 characters' }),
  contract_address: z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' }),
  decimal: tokenDecimal,
  /** Default: the symbol. */
  name: name.optional(),
  dust_threshold: DecimalString.refine((s) => !s.startsWith('-'), { error: 'must not be negative' }).default('0'),
});
export type TokenAdd = z.output<typeof TokenAdd>;

/** Remove a token no ledger record uses (one added by mistake); a chain's native coin goes only with its chain. */
const TokenRemove = z.strictObject({ token_id: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }) });

export const catalogueContract = {
  'catalogue-chains-list': { readOnly: true, input: ChainListQuery, output: ChainPage },
  'catalogue-tokens-list': { readOnly: true, input: TokenListQuery, output: TokenPage },
  'catalogue-chain-update': { input: ChainUpdate, output: Chain },
  'catalogue-token-update': { input: TokenUpdate, output: Token },
  'catalogue-chain-add': { input: ChainAdd, output: Chain },
  'catalogue-token-add': { input: TokenAdd, output: Token },
  /** Answers the token as it was before its removal. */
  'catalogue-token-remove': { input: TokenRemove, output: Token },
};
