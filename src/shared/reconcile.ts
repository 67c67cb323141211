import { z } from 'zod';
import { LEDGER_STATUSES, LEDGER_TYPES, TransactionRecord, type LedgerStatus, type LedgerType } from './ledger';
import { Amount, PageQuery, Uuid, intField, isExactNumber, numberText, pageOf, toPlainDecimal } from './primitives';

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

/** One claim of POST /nps/bill/verify/txs once read: absent fields undefined, defaults filled in. */
export interface VerifyItem {
  request_id?: string;
  transaction_id?: string;
  hash?: string;
  chain_id?: string;
  token_id?: string;
  to?: string;
  type?: LedgerType;
  status?: LedgerStatus;
  /** Plain decimal strings, exactly as the request wrote them (scientific notation moved into place). */
  amount?: string;
  fee?: string;
  amount_actual?: string;
  amount_delta: string;
  /** Unix seconds. */
  time?: number;
  time_type: TimeType;
  time_delta: number;
}

/** Why a claim cannot be read: the field (empty path: the claim as a whole) and a reason. */
export interface ItemIssue {
  path: string[];
  message: string;
}

const TEXT_FIELDS = ['request_id', 'transaction_id', 'hash', 'chain_id', 'token_id', 'to'] as const;
const AMOUNT_FIELDS = ['amount', 'fee', 'amount_actual'] as const;
const wordsOf = <T extends string>(words: readonly T[]) => new Map(words.map((w) => [w.toLowerCase(), w]));
const TYPE_WORDS = wordsOf(LEDGER_TYPES);
const STATUS_WORDS = wordsOf(LEDGER_STATUSES);
const TIME_TYPE_WORDS = wordsOf(TIME_TYPES);

function readWord<T extends string>(v: unknown, words: Map<string, T>): T | undefined {
  return typeof v === 'string' ? words.get(v.toLowerCase()) : undefined;
}

function readInteger(v: unknown, min: number, max: number): number | undefined {
  const digits = isExactNumber(v) ? v.value : typeof v === 'number' ? String(v) : undefined;
  const n = digits !== undefined && /^-?\d+$/.test(digits) ? Number(digits) : NaN;
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
}

/**
 * Read one claim by SPEC.md's item rules, the first problem answering: each field's type in
 * order, then at least one identifier, a Deposit's identifiers, at least one field to compare.
 * null and "" count as absent for every field. Unknown fields are ignored. Written by hand, not as
 * a schema, because a request holds a thousand of these and the check must cost microseconds.
 */
export function readVerifyItem(raw: unknown): VerifyItem | ItemIssue {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || isExactNumber(raw)) return { path: [], message: 'must be an object' };
  const o = raw as Record<string, unknown>;
  const given = (k: string) => o[k] !== undefined && o[k] !== null && o[k] !== '';
  const item: Partial<VerifyItem> = {};
  for (const f of TEXT_FIELDS) {
    if (!given(f)) continue;
    if (typeof o[f] !== 'string') return { path: [f], message: 'must be a string' };
    item[f] = o[f] as string;
  }
  if (given('type')) {
    item.type = readWord(o.type, TYPE_WORDS);
    if (item.type === undefined) return { path: ['type'], message: `must be one of ${LEDGER_TYPES.join(', ')}` };
  }
  if (given('status')) {
    item.status = readWord(o.status, STATUS_WORDS);
    if (item.status === undefined) return { path: ['status'], message: `must be one of ${LEDGER_STATUSES.join(', ')}` };
  }
  for (const f of [...AMOUNT_FIELDS, 'amount_delta'] as const) {
    if (!given(f)) continue;
    const digits = numberText(o[f]);
    const plain = digits === undefined ? undefined : toPlainDecimal(digits);
    if (plain === undefined) return { path: [f], message: 'must be a number or a decimal string' };
    if (f === 'amount_delta' && plain.startsWith('-')) return { path: [f], message: 'must be a number >= 0' };
    item[f] = plain;
  }
  if (given('time')) {
    item.time = readInteger(o.time, 0, MAX_UNIX_SECONDS);
    if (item.time === undefined) return { path: ['time'], message: `must be an integer from 0 to ${MAX_UNIX_SECONDS} (Unix seconds)` };
  }
  if (given('time_type')) {
    item.time_type = readWord(o.time_type, TIME_TYPE_WORDS);
    if (item.time_type === undefined) return { path: ['time_type'], message: `must be one of ${TIME_TYPES.join(', ')}` };
  }
  if (given('time_delta')) {
    item.time_delta = readInteger(o.time_delta, 0, Number.MAX_SAFE_INTEGER);
    if (item.time_delta === undefined) return { path: ['time_delta'], message: 'must be an integer >= 0' };
  }
  if (item.request_id === undefined && item.transaction_id === undefined && item.hash === undefined) {
    return { path: [], message: 'needs at least one of request_id, transaction_id, hash' };
  }
  if (item.type === 'Deposit' && item.transaction_id === undefined && item.hash === undefined) {
    return { path: ['request_id'], message: 'cannot be the only identifier of a Deposit; give transaction_id or hash' };
  }
  if (FLAG_FIELDS.every((f) => item[f] === undefined)) {
    return { path: [], message: `needs at least one field to compare (${FLAG_FIELDS.join(', ')})` };
  }
  item.amount_delta ??= DEFAULT_AMOUNT_DELTA;
  item.time_type ??= 'Created';
  item.time_delta ??= DEFAULT_TIME_DELTA;
  return item as VerifyItem;
}

export const isItemIssue = (r: VerifyItem | ItemIssue): r is ItemIssue => 'message' in r;

const textProp = (description: string) => ({ type: ['string', 'null'], description });
const amountProp = (description: string) => ({ type: ['number', 'string', 'null'], description });

/** The claim's JSON Schema, for openapi.json: the rules themselves are readVerifyItem's. */
const VERIFY_ITEM_JSON_SCHEMA = {
  type: 'object',
  description:
    'At least one of request_id, transaction_id, hash (a Deposit needs transaction_id or hash) and at least one field to compare. null and "" count as absent.',
  properties: {
    request_id: textProp('Your reference of the transaction'),
    transaction_id: textProp('The service\'s transaction ID (UUID); looked up first'),
    hash: textProp('On-chain hash; looked up (with chain_id when given) when no transaction_id is given'),
    chain_id: textProp('Compared exactly, e.g. ETH, TRON'),
    token_id: textProp('Compared exactly, e.g. TRON_USDT'),
    to: textProp('Destination address: case-insensitive on EVM chains, exact elsewhere'),
    type: { type: ['string', 'null'], enum: [...LEDGER_TYPES, null], description: 'Case-insensitive' },
    status: { type: ['string', 'null'], enum: [...LEDGER_STATUSES, null], description: 'Case-insensitive' },
    amount: amountProp('Compared exactly within amount_delta'),
    fee: amountProp('Compared exactly within amount_delta'),
    amount_actual: amountProp('Compared exactly within amount_delta'),
    amount_delta: amountProp(`Tolerance for amount, fee, amount_actual, >= 0; default ${DEFAULT_AMOUNT_DELTA}`),
    time: { type: ['integer', 'null'], minimum: 0, maximum: MAX_UNIX_SECONDS, description: 'Unix seconds of the moment time_type names' },
    time_type: { type: ['string', 'null'], enum: [...TIME_TYPES, null], description: 'Which recorded moment time is; default Created' },
    time_delta: { type: ['integer', 'null'], minimum: 0, description: `Tolerance for time in seconds; default ${DEFAULT_TIME_DELTA}` },
  },
};



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
    .meta({ maxItems: MAX_BATCH, items: VERIFY_ITEM_JSON_SCHEMA }),
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
