import { z } from 'zod';
import { LedgerStatus, LedgerType } from './ledger';
import { intField, numberText, queryInt, requiredString, toPlainDecimal, Uuid } from './primitives';

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

/**
 * A number as a statement writes it: its decimal places are the statement's precision, so "0.4490"
 * keeps its four places (exponent notation is moved into place; a JSON number keeps what its text
 * has). Answers the plain text with the places as written.
 */
function writtenDecimal(text: string): string | undefined {
  if (/[eE]/.test(text)) return toPlainDecimal(text);
  const m = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  const [, sign, int = '', fraction = ''] = m;
  const whole = int.replace(/^0+(?=\d)/, '');
  const out = fraction ? `${whole}.${fraction}` : whole;
  return sign === '-' && /[1-9]/.test(out) ? `-${out}` : out;
}

/** The decimal places of a plain decimal's text. */
export const placesOf = (plain: string): number => (plain.includes('.') ? plain.length - plain.indexOf('.') - 1 : 0);

/** The most decimal places a statement is compared at. */
const MAX_STATEMENT_PLACES = 36;

const StatementFigure = z
  .unknown()
  .transform((v, ctx) => {
    const text = numberText(v);
    const written = text === undefined ? undefined : writtenDecimal(text);
    if (written === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be a number or a decimal string, such as 10.50' });
      return z.NEVER;
    }
    if (placesOf(written) > MAX_STATEMENT_PLACES) {
      ctx.addIssue({ code: 'custom', message: `has more than ${MAX_STATEMENT_PLACES} decimal places` });
      return z.NEVER;
    }
    return written;
  })
  .meta({
    type: ['number', 'string'],
    description: 'The closing balance as the statement writes it: its decimal places are the precision it is compared at',
  });

const BalanceCheckRequest = z
  .object({
    wallet_id: Uuid,
    token_id: TokenId,
    at: DateText,
    time_zone: TimeZone,
    statement_balance: StatementFigure,
    /** Compare at this many decimal places instead of those the figure is written with (a statement in whole units written "4000"). */
    places: intField({ min: 0, max: MAX_STATEMENT_PLACES }).optional(),
  })
  .strict()
  .refine((v) => v.places === undefined || placesOf(v.statement_balance) <= v.places, {
    error: 'is fewer than the decimal places statement_balance is written with',
    path: ['places'],
  });

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

/**
 * A statement against the ledger, at the statement's precision: the ledger's balance is rounded half
 * to even to the decimal places the statement is written with (or `places`), and the two agree when
 * the rounded figure equals the statement's.
 */
export const BalanceCheck = z.object({
  wallet_id: z.string(),
  chain_id: z.string(),
  token_id: z.string(),
  at: z.number().int(),
  /** The ledger's balance, exact. */
  ledger_balance: z.string(),
  /** The statement's figure with its decimal places as written ("0.4490"). */
  statement_balance: z.string(),
  /** The decimal places the two are compared at. */
  places: z.number().int(),
  /** ledger_balance rounded half to even to `places`: what the statement is compared with. */
  ledger_rounded: z.string(),
  /** statement_balance - ledger_rounded: 0 when they agree. */
  difference: z.string(),
  /** The rule with these figures, in words. */
  rule: z.string(),
  /** The `balance` exception: the difference opened or updated it, or an agreeing figure resolved the Pending one; null when there is none. */
  ticket_id: z.string().nullable(),
  /** Pending: opened or updated by this check; Resolved: this agreeing check resolved it; null: no exception. */
  ticket_status: z.enum(['Pending', 'Resolved']).nullable(),
});
export type BalanceCheck = z.infer<typeof BalanceCheck>;

export const balancesContract = {
  'balances-at': { readOnly: true, input: BalancesAtQuery, output: BalancesAt },
  'balances-period': { readOnly: true, input: BalancesPeriodQuery, output: BalancesPeriod },
  'balance-movements': { readOnly: true, input: BalanceMovementsQuery, output: BalanceStatement },
  'balance-check': { input: BalanceCheckRequest, output: BalanceCheck },
};
