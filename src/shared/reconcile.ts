import { z } from 'zod';
import { LEDGER_STATUSES, LEDGER_TYPES, TransactionRecord } from './ledger';
import { Amount, PageQuery, Uuid, intField, pageOf } from './primitives';

/** The fields a claim is compared on, in the order `abnormals` lists them (SPEC.md, Tickets). */
export const FLAG_FIELDS = ['chain_id', 'token_id', 'to', 'status', 'type', 'amount', 'fee', 'amount_actual', 'time'] as const;
export const FlagField = z.enum(FLAG_FIELDS);
export type FlagField = z.infer<typeof FlagField>;

export const IDENTIFIER_FIELDS = ['request_id', 'transaction_id', 'hash'] as const;

export const TIME_TYPES = ['Created', 'Confirmed', 'Completed'] as const;
export type TimeType = (typeof TIME_TYPES)[number];

export const DEFAULT_AMOUNT_DELTA = '0.001';
export const DEFAULT_TIME_DELTA = 10;
export const MAX_BATCH = 1000;
/** 9999-12-31T23:59:59Z: later moments have no ISO 8601 form. */
export const MAX_UNIX_SECONDS = 253402300799;

/** null and "" both mean "not given" (SPEC.md: empty strings count as absent). */
const absentToUndefined = (v: unknown) => (v === null || v === '' ? undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(absentToUndefined, schema.optional());

const text = z.string({ error: 'must be a string' });

/** One of a fixed set of words, matched case-insensitively and answered in its canonical spelling. */
function oneOf<const T extends readonly string[]>(values: T) {
  const byLower = new Map(values.map((v) => [v.toLowerCase(), v]));
  return z
    .string({ error: `must be one of ${values.join(', ')}` })
    .transform((s, ctx) => {
      const hit = byLower.get(s.toLowerCase());
      if (hit === undefined) {
        ctx.addIssue({ code: 'custom', message: `must be one of ${values.join(', ')}` });
        return z.NEVER;
      }
      return hit as T[number];
    })
    .meta({ type: 'string', enum: [...values] });
}

const NonNegativeAmount = Amount.refine((s) => !s.startsWith('-'), { error: 'must be a number >= 0' });

/**
 * One claim of POST /nps/bill/verify/txs (`txs[i]`), as the accountant's books would state it.
 * Identifiers pick the record; the comparable fields are checked against it.
 */
export const VerifyItem = z
  .object({
    request_id: optional(text),
    transaction_id: optional(text),
    hash: optional(text),
    chain_id: optional(text),
    token_id: optional(text),
    to: optional(text),
    type: optional(oneOf(LEDGER_TYPES)),
    status: optional(oneOf(LEDGER_STATUSES)),
    amount: optional(Amount),
    fee: optional(Amount),
    amount_actual: optional(Amount),
    amount_delta: optional(NonNegativeAmount).meta({ description: 'Tolerance for amount, fee, amount_actual (number or decimal string, >= 0); default 0.001' }),
    time: optional(intField({ min: 0, max: MAX_UNIX_SECONDS, description: 'Unix seconds of the moment named by time_type' })),
    time_type: optional(oneOf(TIME_TYPES)).meta({ description: 'Which recorded moment `time` is: Created (default), Confirmed or Completed' }),
    time_delta: optional(intField({ min: 0, description: 'Tolerance for time in seconds; default 10' })),
  })
  .superRefine((item, ctx) => {
    if (item.request_id === undefined && item.transaction_id === undefined && item.hash === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'needs at least one of request_id, transaction_id, hash' });
      return;
    }
    if (item.type === 'Deposit' && item.transaction_id === undefined && item.hash === undefined) {
      ctx.addIssue({ code: 'custom', path: ['request_id'], message: 'cannot be the only identifier of a Deposit; give transaction_id or hash' });
      return;
    }
    if (FLAG_FIELDS.every((f) => item[f] === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: `needs at least one field to compare (${FLAG_FIELDS.join(', ')})` });
    }
  })
  .transform((item) => ({
    ...item,
    amount_delta: item.amount_delta ?? DEFAULT_AMOUNT_DELTA,
    time_type: item.time_type ?? ('Created' as TimeType),
    time_delta: item.time_delta ?? DEFAULT_TIME_DELTA,
  }));
export type VerifyItem = z.output<typeof VerifyItem>;

export const Shape = z.enum(['A', 'B'], { error: 'must be A or B' });
export type Shape = z.infer<typeof Shape>;

/** Query of POST /nps/bill/verify/txs. */
export const VerifyQuery = z.object({
  shape: Shape.default('A').meta({ description: 'A (default): record under `tx`, times in Unix seconds. B: record under `data`, times as ISO 8601 UTC with milliseconds.' }),
});

/**
 * Body of POST /nps/bill/verify/txs. Items are checked one by one after the batch size, so a
 * batch over 1000 is 4001 whatever its items hold, and a bad item is 1002 naming `txs[i].field`.
 */
export const VerifyBody = z.object({
  wallet_id: optional(Uuid).meta({ description: 'Limit lookups to this wallet; absent: every wallet the key may use' }),
  txs: z
    .array(z.unknown(), { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array of transactions') })
    .min(1, { error: 'must hold at least one transaction' })
    .meta({ maxItems: MAX_BATCH, items: z.toJSONSchema(VerifyItem, { io: 'input', unrepresentable: 'any' }) }),
});

export const VerifyInput = VerifyBody.extend({ shape: Shape.default('A') });
export type VerifyInput = z.output<typeof VerifyInput>;

/** Per-field outcome: true when the field agrees or was not given; all false when nothing was found. */
export const Flags = z.object(Object.fromEntries(FLAG_FIELDS.map((f) => [f, z.boolean()])) as Record<FlagField, z.ZodBoolean>);
export type Flags = z.infer<typeof Flags>;

const secondsOrNull = z.number().int().nullable();
const isoOrNull = z.string().nullable();

/** The record's own fields as /nps reports them; import bookkeeping stays inside. */
const PublicRecord = TransactionRecord.omit({ import_id: true, updated_at: true });
/** The service's record as Shape A reports it: times in integer Unix seconds (rounded down). */
export const RecordShapeA = PublicRecord.extend({ created_at: secondsOrNull, confirmed_at: secondsOrNull, completed_at: secondsOrNull });
/** The service's record as Shape B reports it: times as ISO 8601 UTC with milliseconds. */
export const RecordShapeB = PublicRecord.extend({ created_at: isoOrNull, confirmed_at: isoOrNull, completed_at: isoOrNull });

const resultBase = {
  result: z.boolean().meta({ description: 'True only when the record is found and every flag is true' }),
  flags: Flags,
  ticket_id: z.string().nullable().meta({ description: 'The ticket this mismatch opened or updated; null when matched or not found' }),
};
export const VerifyResultA = z.object({ ...resultBase, tx: RecordShapeA.nullable() });
export const VerifyResultB = z.object({ ...resultBase, data: RecordShapeB.nullable() });
export const VerifyResults = z.array(z.union([VerifyResultA, VerifyResultB])).meta({ description: 'data[i] answers txs[i]' });
export type VerifyResultA = z.infer<typeof VerifyResultA>;
export type VerifyResultB = z.infer<typeof VerifyResultB>;

export const RunSource = z.enum(['api', 'ui', 'cli']);

/** One stored verification run. Times are Unix milliseconds. */
export const RunSummary = z.object({
  run_id: z.string(),
  source: RunSource,
  label: z.string(),
  api_key: z.string().nullable(),
  wallet_id: z.string().nullable(),
  shape: Shape,
  item_count: z.number().int(),
  matched: z.number().int(),
  mismatched: z.number().int(),
  not_found: z.number().int(),
  created_at: z.number().int(),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const RunItemFilter = z.enum(['all', 'matched', 'mismatched', 'not_found']);

export const RunItem = z.object({
  idx: z.number().int(),
  /** The item exactly as sent (books run: as mapped from the row). */
  claimed: z.record(z.string(), z.unknown()),
  /** The record as it stands now in the ledger; null when not found. */
  record: TransactionRecord.nullable(),
  flags: Flags,
  result: z.boolean(),
  ticket_id: z.string().nullable(),
});
export type RunItem = z.infer<typeof RunItem>;

export const RunDetail = RunSummary.extend({ items: pageOf(RunItem) });
export type RunDetail = z.infer<typeof RunDetail>;

/** A books file: a path on this machine, or its text (a file picked in the browser window). */
export const BooksSource = z.union([
  z.object({ path: z.string().min(1) }).strict(),
  z.object({ name: z.string().min(1), text: z.string() }).strict(),
]);
export type BooksSource = z.infer<typeof BooksSource>;

/** Where a books column goes: one of the claim's fields. */
export const VerifyField = z.enum([...IDENTIFIER_FIELDS, ...FLAG_FIELDS]);
export type VerifyField = z.infer<typeof VerifyField>;

/**
 * How a books CSV becomes claims, read like the ledger's Mapping: each field names the source
 * column it is read from; constants fill fields no column gives (e.g. chain_id "ETH" for a
 * one-chain file), and a non-empty cell beats a constant. Time cells may be Unix seconds, Unix
 * milliseconds (integers from 100,000,000,000) or ISO 8601 / "YYYY-MM-DD HH:mm:ss" (read in
 * utc_offset when they carry no zone). Amount cells may use the thousands separator given.
 */
export const BooksMapping = z.object({
  columns: z.partialRecord(VerifyField, z.string().min(1)).default({}).meta({ description: 'verification field -> source column header' }),
  constants: z.partialRecord(VerifyField, z.string()).default({}),
  thousands_separator: z.enum(['', ',', ' ', "'", '_']).default(''),
  utc_offset: z
    .string()
    .regex(/^[+-](0\d|1[0-4]):[0-5]\d$/, { error: 'must look like +08:00 or -05:30' })
    .default('+00:00'),
});
export type BooksMapping = z.output<typeof BooksMapping>;

export const BooksDetectInput = z.object({ source: BooksSource });
export const BooksDetected = z.object({
  headers: z.array(z.string()),
  sample: z.array(z.record(z.string(), z.string())).meta({ description: 'The first rows, keyed by header' }),
  rows_estimate: z.number().int().nullable(),
  suggested: BooksMapping,
});
export type BooksDetected = z.infer<typeof BooksDetected>;

export const BooksRunInput = z.object({
  source: BooksSource,
  mapping: BooksMapping,
  wallet_id: Uuid.optional(),
  amount_delta: NonNegativeAmount.optional(),
  time_type: oneOf(TIME_TYPES).optional(),
  time_delta: intField({ min: 0 }).optional(),
  label: z.string().optional(),
});
export type BooksRunInput = z.output<typeof BooksRunInput>;

/** A books row that could not become a claim; it is reported, the rest of the file still runs. */
export const BooksRejectedRow = z.object({ row: z.number().int(), field: z.string(), reason: z.string() });
export const BooksRunResult = RunSummary.extend({
  rejected_count: z.number().int(),
  rejected: z.array(BooksRejectedRow).meta({ description: 'The first 1000 rejected rows' }),
});
export type BooksRunResult = z.infer<typeof BooksRunResult>;

export const reconcileContract = {
  'reconcile-verify-txs': { input: VerifyInput, output: VerifyResults },
  'reconcile-books-detect': { input: BooksDetectInput, output: BooksDetected },
  'reconcile-books-run': { input: BooksRunInput, output: BooksRunResult },
  'runs-list': { input: z.object({ ...PageQuery }), output: pageOf(RunSummary) },
  'run-get': { input: z.object({ run_id: z.string().min(1), ...PageQuery, filter: RunItemFilter.default('all') }), output: RunDetail },
};
