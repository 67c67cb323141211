import { z } from 'zod';
import { LedgerStatus, LedgerType } from './ledger';
import { Amount, queryInt, requiredString, Uuid } from './primitives';

/*
 * Balances and statements from the ledger (docs/ledger.md, "Balances"): the balance of each wallet
 * and token at a moment, a period's opening, movements and closing, the statement (the records
 * between with a running balance) and a check against the custodian's closing balance. Amounts are
 * exact decimal strings; times are Unix milliseconds. Dates are read as ledger/period.ts reads them:
 * a date (YYYY-MM-DD) is its whole day in `time_zone` (default UTC), so a balance "at" a date is the
 * balance at the end of that day.
 */

/** A filter left empty (a cleared field, "all wallets") is no filter. */
const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v), schema.optional());

const DateText = requiredString('a date (YYYY-MM-DD) or an ISO 8601 moment')
  .trim()
  .min(1, { error: 'must not be empty: a date (YYYY-MM-DD) or an ISO 8601 moment' });
const TimeZone = z.string({ error: 'must be an IANA time zone name such as UTC or Europe/Berlin' }).optional();
const TokenId = requiredString('a token_id').trim().min(1, { error: 'must not be empty' });

const BalancesAtQuery = z.object({ wallet_id: blankIsAbsent(Uuid), at: DateText, time_zone: TimeZone }).strict();

const BalancesPeriodQuery = z.object({ wallet_id: blankIsAbsent(Uuid), from: DateText, to: DateText, time_zone: TimeZone }).strict();

const BalanceMovementsQuery = z
  .object({
    wallet_id: Uuid,
    token_id: TokenId,
    from: DateText,
    to: DateText,
    time_zone: TimeZone,
    page: queryInt({ min: 1, default: 1, description: '1-based page number' }),
    page_size: queryInt({ min: 1, max: 500, default: 100, description: 'movements per page' }),
  })
  .strict();

const BalanceCheckRequest = z
  .object({ wallet_id: Uuid, token_id: TokenId, at: DateText, time_zone: TimeZone, statement_balance: Amount })
  .strict();

const BalanceRow = z.object({
  wallet_id: z.string(),
  chain_id: z.string(),
  token_id: z.string(),
  balance: z.string(),
});

/** Records that would move a balance but carry no time at all: no dated balance holds them. */
const Undated = z.number().int();

export const BalancesAt = z.object({
  /** The moment the balances are taken at (Unix ms, inclusive). */
  at: z.number().int(),
  time_zone: z.string(),
  rows: z.array(BalanceRow),
  undated: Undated,
});
export type BalancesAt = z.infer<typeof BalancesAt>;

/** A wallet's token over a period: closing = opening + inflow - outflow - fees. */
export const PeriodBalance = z.object({
  wallet_id: z.string(),
  chain_id: z.string(),
  token_id: z.string(),
  opening: z.string(),
  inflow: z.string(),
  outflow: z.string(),
  fees: z.string(),
  closing: z.string(),
  /** Records inside the period that moved the balance. */
  movements: z.number().int(),
});
export type PeriodBalance = z.infer<typeof PeriodBalance>;

export const BalancesPeriod = z.object({
  from: z.number().int(),
  to: z.number().int(),
  time_zone: z.string(),
  rows: z.array(PeriodBalance),
  undated: Undated,
});
export type BalancesPeriod = z.infer<typeof BalancesPeriod>;

/** One line of a statement: a record that moved the balance, what it moved, and the balance after it. */
export const Movement = z.object({
  transaction_id: z.string(),
  type: LedgerType,
  status: LedgerStatus,
  hash: z.string(),
  /** The moment that places the record in time: completed_at, else confirmed_at, else created_at. */
  at: z.number().int(),
  amount: z.string(),
  fee: z.string(),
  amount_actual: z.string(),
  inflow: z.string(),
  outflow: z.string(),
  fees: z.string(),
  /** inflow - outflow - fees */
  change: z.string(),
  balance: z.string(),
});
export type Movement = z.infer<typeof Movement>;

export const BalanceStatement = z.object({
  wallet_id: z.string(),
  chain_id: z.string(),
  token_id: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  opening: z.string(),
  closing: z.string(),
  list: z.array(Movement),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type BalanceStatement = z.infer<typeof BalanceStatement>;

export const BalanceCheck = z.object({
  wallet_id: z.string(),
  chain_id: z.string(),
  token_id: z.string(),
  at: z.number().int(),
  ledger_balance: z.string(),
  statement_balance: z.string(),
  /** statement_balance - ledger_balance */
  difference: z.string(),
  /** The `balance` exception the difference opened or updated; null when there is none. */
  ticket_id: z.string().nullable(),
});
export type BalanceCheck = z.infer<typeof BalanceCheck>;

export const balancesContract = {
  'balances-at': { readOnly: true, input: BalancesAtQuery, output: BalancesAt },
  'balances-period': { readOnly: true, input: BalancesPeriodQuery, output: BalancesPeriod },
  'balance-movements': { readOnly: true, input: BalanceMovementsQuery, output: BalanceStatement },
  'balance-check': { input: BalanceCheckRequest, output: BalanceCheck },
};
