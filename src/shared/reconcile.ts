import { z } from 'zod';
import { ReconcileReport, ReportFile, ReportFormat } from './reports';
import { LEDGER_STATUSES, LEDGER_TYPES, LedgerRecord, TransactionRecord, type LedgerStatus, type LedgerType } from './ledger';
import { addition, Amount, PageQuery, Uuid, intField, isExactNumber, numberText, pageOf, toPlainDecimal } from './primitives';

/** The fields a claim is compared on, in the order `abnormals` lists them (docs/api.md, "Tickets"). */
export const FLAG_FIELDS = ['chain_id', 'token_id', 'to', 'status', 'type', 'amount', 'fee', 'amount_actual', 'time'] as const;
export const FlagField = z.enum(FLAG_FIELDS);
export type FlagField = z.infer<typeof FlagField>;

/** A compared field's flag as the source names it: `amount` -> `amount_match`. */
export type MatchFlag = `${FlagField}_match`;
export const matchFlagOf = (f: FlagField): MatchFlag => `${f}_match`;
/** The flags of a verification result, in the source description's order. */
export const MATCH_FLAGS = FLAG_FIELDS.map(matchFlagOf);

export const IDENTIFIER_FIELDS = ['request_id', 'transaction_id', 'hash'] as const;

export const TIME_TYPES = ['Created', 'Confirmed', 'Completed'] as const;
export type TimeType = (typeof TIME_TYPES)[number];

export const DEFAULT_AMOUNT_DELTA = '0.001';
export const DEFAULT_TIME_DELTA = 10;
export const MAX_BATCH = 1000;
/** 9999-12-31T23:59:59Z: later moments have no ISO 8601 form. */
const MAX_UNIX_SECONDS = 253402300799;

/** null and "" both mean "not given" (docs/api.md, "A claim"). */
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
  /**
   * Books only (never read from a request): the claim gives a day, not a moment. `time` is the
   * day's first second in the books' zone and this the next day's (Unix seconds); time agrees when
   * the recorded moment falls in between, whatever time_delta says.
   */
  time_until?: number;
}

/** Why a claim cannot be read: the field (empty path: the claim as a whole) and a reason. */
export interface ItemIssue {
  path: string[];
  message: string;
}

const wordsOf = <T extends string>(words: readonly T[]) => new Map(words.map((w) => [w.toLowerCase(), w]));

/**
 * One field of a claim: how it is read and how openapi.json describes it. The table below is the
 * only statement of the item's field rules: readVerifyItem checks it and the JSON Schema is made
 * from it, so the two cannot drift.
 */
type ItemField =
  | { name: 'request_id' | 'transaction_id' | 'hash' | 'chain_id' | 'token_id' | 'to'; kind: 'text'; description: string }
  | { name: 'type' | 'status' | 'time_type'; kind: 'word'; words: readonly string[]; description: string }
  | { name: 'amount' | 'fee' | 'amount_actual' | 'amount_delta'; kind: 'amount'; nonNegative?: true; description: string }
  | { name: 'time' | 'time_delta'; kind: 'integer'; min: number; max?: number; unit?: string; description: string };

/** In the order the fields are checked: the first problem answers. */
const ITEM_FIELDS: readonly ItemField[] = [
  { name: 'request_id', kind: 'text', description: 'Your reference of the transaction' },
  { name: 'transaction_id', kind: 'text', description: "The service's transaction ID (UUID); looked up first" },
  { name: 'hash', kind: 'text', description: 'On-chain hash; looked up (with chain_id when given) when no transaction_id is given' },
  { name: 'chain_id', kind: 'text', description: 'Compared exactly, e.g. ETH, TRON' },
  { name: 'token_id', kind: 'text', description: 'Compared exactly, e.g. TRON_USDT' },
  { name: 'to', kind: 'text', description: 'Destination address: case-insensitive on EVM chains, exact elsewhere' },
  { name: 'type', kind: 'word', words: LEDGER_TYPES, description: 'The transaction’s type' },
  { name: 'status', kind: 'word', words: LEDGER_STATUSES, description: 'The transaction’s status' },
  { name: 'amount', kind: 'amount', description: 'Compared exactly within amount_delta' },
  { name: 'fee', kind: 'amount', description: 'Compared exactly within amount_delta' },
  { name: 'amount_actual', kind: 'amount', description: 'Compared exactly within amount_delta' },
  {
    name: 'amount_delta',
    kind: 'amount',
    nonNegative: true,
    description: `Tolerance for amount, fee, amount_actual, >= 0; default ${DEFAULT_AMOUNT_DELTA}`,
  },
  {
    name: 'time',
    kind: 'integer',
    min: 0,
    max: MAX_UNIX_SECONDS,
    unit: 'Unix seconds',
    description: 'Unix seconds of the moment time_type names',
  },
  { name: 'time_type', kind: 'word', words: TIME_TYPES, description: 'Which recorded moment time is; default Created' },
  { name: 'time_delta', kind: 'integer', min: 0, description: `Tolerance for time in seconds; default ${DEFAULT_TIME_DELTA}` },
];

/** What readVerifyItem needs of a field, worked out once: the lower-cased words, the message. */
interface FieldReader {
  name: ItemField['name'];
  kind: ItemField['kind'];
  words?: Map<string, string>;
  /** The words as the contract spells them (read as they are, without a copy in lower case). */
  wordSet?: ReadonlySet<string>;
  min: number;
  max: number;
  nonNegative: boolean;
  message: string;
}

function messageOf(f: ItemField): string {
  switch (f.kind) {
    case 'text':
      return 'must be a string';
    case 'word':
      return `must be one of ${f.words.join(', ')}`;
    case 'amount':
      return 'must be a number or a decimal string';
    case 'integer':
      return `must be an integer from ${f.min} to ${f.max ?? Number.MAX_SAFE_INTEGER}${f.unit ? ` (${f.unit})` : ''}`;
  }
}

const FIELD_READERS: readonly FieldReader[] = ITEM_FIELDS.map((f) => ({
  name: f.name,
  kind: f.kind,
  words: f.kind === 'word' ? wordsOf(f.words) : undefined,
  wordSet: f.kind === 'word' ? new Set(f.words) : undefined,
  min: f.kind === 'integer' ? f.min : 0,
  max: f.kind === 'integer' ? (f.max ?? Number.MAX_SAFE_INTEGER) : 0,
  nonNegative: f.kind === 'amount' && f.nonNegative === true,
  message: messageOf(f),
}));

function readInteger(v: unknown, min: number, max: number): number | undefined {
  const digits = isExactNumber(v) ? v.value : typeof v === 'number' ? String(v) : undefined;
  const n = digits !== undefined && /^-?\d+$/.test(digits) ? Number(digits) : NaN;
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
}

/**
 * Read one claim by the claim rules of docs/api.md, the first problem answering: each field of ITEM_FIELDS
 * in order, then at least one identifier, a Deposit's identifiers, at least one field to compare.
 * null and "" count as absent for every field. Unknown fields are ignored. A loop over the table,
 * not a schema, because a request holds a thousand of these and the check must cost microseconds.
 */
/**
 * Every field of a claim, absent. Each claim read starts as a copy of it, so that all claims have
 * one shape: the matching reads their fields a thousand times a request, and a thousand claims of
 * a dozen shapes (each its own set of fields) made each of those reads a search.
 */
const NO_FIELDS: Record<string, undefined> = Object.fromEntries(ITEM_FIELDS.map((f) => [f.name, undefined]));

export function readVerifyItem(raw: unknown): VerifyItem | ItemIssue {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || isExactNumber(raw))
    return { path: [], message: 'must be an object' };
  const o = raw as Record<string, unknown>;
  const item: Record<string, string | number | undefined> = { ...NO_FIELDS };
  for (const f of FIELD_READERS) {
    const v = o[f.name];
    if (v === undefined || v === null || v === '') continue;
    let read: string | number | undefined;
    switch (f.kind) {
      case 'text':
        read = typeof v === 'string' ? v : undefined;
        break;
      case 'word':
        read = typeof v === 'string' ? (f.wordSet!.has(v) ? v : f.words!.get(v.toLowerCase())) : undefined;
        break;
      case 'amount': {
        const digits = numberText(v);
        read = digits === undefined ? undefined : toPlainDecimal(digits);
        if (read !== undefined && f.nonNegative && read.startsWith('-')) return { path: [f.name], message: 'must be a number >= 0' };
        break;
      }
      case 'integer':
        read = readInteger(v, f.min, f.max);
        break;
    }
    if (read === undefined) return { path: [f.name], message: f.message };
    item[f.name] = read;
  }
  const claim = item as Partial<VerifyItem>;
  if (claim.request_id === undefined && claim.transaction_id === undefined && claim.hash === undefined) {
    return { path: [], message: 'needs at least one of request_id, transaction_id, hash' };
  }
  if (claim.type === 'Deposit') {
    // Source rule 2: request_id does not apply to a Deposit, so it is neither looked up nor compared.
    if (claim.transaction_id === undefined && claim.hash === undefined) {
      return { path: ['request_id'], message: 'cannot be the only identifier of a Deposit; give transaction_id or hash' };
    }
    claim.request_id = undefined;
  }
  if (FLAG_FIELDS.every((f) => claim[f] === undefined)) {
    return { path: [], message: `needs at least one field to compare (${FLAG_FIELDS.join(', ')})` };
  }
  claim.amount_delta ??= DEFAULT_AMOUNT_DELTA;
  claim.time_type ??= 'Created';
  claim.time_delta ??= DEFAULT_TIME_DELTA;
  return claim as VerifyItem;
}

export const isItemIssue = (r: VerifyItem | ItemIssue): r is ItemIssue => 'message' in r;

/** A word in any case, as a JSON Schema pattern (ECMA-262 has no case-insensitive flag there): "Deposit" -> [Dd][Ee]… */
const anyCase = (word: string) =>
  [...word].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toUpperCase()}${c.toLowerCase()}]`)).join('');

/** A JSON number's text (numberText), with an exponent of at most three digits (toPlainDecimal moves digits at most 1000 places). */
const NUMBER_TEXT = '-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]{1,3})?';

/** A field given (not null, not ""): what counts as present for the identifier and compared-field rules. */
function presentSchemaOf(f: ItemField): Record<string, unknown> {
  switch (f.kind) {
    case 'text':
    case 'word':
      return { type: 'string', minLength: 1 };
    case 'amount':
      return { anyOf: [{ type: 'number' }, { type: 'string', minLength: 1 }] };
    case 'integer':
      return { type: 'integer' };
  }
}

/** What a field accepts: null and "" (absent, for every field), or its value as readVerifyItem reads it. */
function jsonSchemaOf(f: ItemField): Record<string, unknown> {
  const absent = [{ type: 'null' }, { const: '' }];
  switch (f.kind) {
    case 'text':
      return { type: ['string', 'null'], description: f.description };
    case 'word':
      return {
        anyOf: [{ type: 'null' }, { type: 'string', pattern: `^(|${f.words.map(anyCase).join('|')})$` }],
        description: `${f.description}: one of ${f.words.join(', ')}, in any case`,
      };
    case 'amount':
      return {
        anyOf: [
          ...absent,
          { type: 'number', ...(f.nonNegative ? { minimum: 0 } : {}) },
          { type: 'string', pattern: f.nonNegative ? `^${NUMBER_TEXT.slice(2)}$` : `^${NUMBER_TEXT}$` },
        ],
        description: `${f.description}; a JSON number, or a decimal string such as "12.5" (an exponent of at most three digits)`,
      };
    case 'integer':
      return {
        anyOf: [...absent, { type: 'integer', minimum: f.min, maximum: f.max ?? Number.MAX_SAFE_INTEGER }],
        description: f.description,
      };
  }
}

const fieldByName = new Map(ITEM_FIELDS.map((f) => [f.name, f]));
const given = (name: ItemField['name']) => ({ required: [name], properties: { [name]: presentSchemaOf(fieldByName.get(name)!) } });

/**
 * The claim's JSON Schema, for openapi.json, made from the same table readVerifyItem reads by: each
 * field's values, and the rules across fields (an identifier, a Deposit's, a field to compare), so
 * that a claim the schema accepts is one the service reads.
 */
export const VERIFY_ITEM_JSON_SCHEMA = {
  type: 'object',
  description:
    'At least one of request_id, transaction_id, hash (a Deposit needs transaction_id or hash) and at least one field to compare. null and "" count as absent. Unknown fields are ignored.',
  properties: Object.fromEntries(ITEM_FIELDS.map((f) => [f.name, jsonSchemaOf(f)])),
  allOf: [
    { anyOf: IDENTIFIER_FIELDS.map(given) },
    { anyOf: FLAG_FIELDS.map(given) },
    {
      if: { required: ['type'], properties: { type: { type: 'string', pattern: `^${anyCase('Deposit')}$` } } },
      then: { anyOf: [given('transaction_id'), given('hash')] },
    },
  ],
};

export const Shape = z.enum(['A', 'B'], { error: 'must be A or B' });
export type Shape = z.infer<typeof Shape>;

/** Query of POST /nps/bill/verify/txs. */
export const VerifyQuery = z.object({
  shape: Shape.default('A').meta({
    description: 'A (default): record under `tx`, times in Unix seconds. B: record under `data`, times as ISO 8601 UTC with milliseconds.',
  }),
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

/**
 * Per-field outcome, keyed as the source names the flags: true when the field agrees or was not
 * given; all false when nothing was found.
 */
export const MatchFlags = z.strictObject(Object.fromEntries(MATCH_FLAGS.map((f) => [f, z.boolean()])) as Record<MatchFlag, z.ZodBoolean>);
export type MatchFlags = z.infer<typeof MatchFlags>;

const secondsOrNull = z.number().int().nullable().meta({ description: 'Unix seconds; null when not recorded' });
const isoOrNull = z.string().nullable().meta({ description: 'ISO 8601 UTC with milliseconds; null when not recorded' });

/** The service's record as Shape A reports it: times in integer Unix seconds (rounded down). */
export const RecordShapeA = TransactionRecord.extend({
  created_at: secondsOrNull,
  confirmed_at: secondsOrNull,
  completed_at: secondsOrNull,
});
export type RecordShapeA = z.infer<typeof RecordShapeA>;
/** The service's record as Shape B reports it: times as ISO 8601 UTC with milliseconds. */
export const RecordShapeB = TransactionRecord.extend({ created_at: isoOrNull, confirmed_at: isoOrNull, completed_at: isoOrNull });
export type RecordShapeB = z.infer<typeof RecordShapeB>;

/** The result's flags and `result`, in the source's order. */
const resultFlags = {
  ...MatchFlags.shape,
  result: z.boolean().meta({ description: 'True only when the record is found and every flag is true' }),
};
const ticketId = z.string().nullable().meta(addition('the ticket this mismatch opened or updated; null when matched or not found'));
/** One result of Shape A: the flags, `result`, the record under `tx`, then the addition `ticket_id`. */
export const VerifyResultA = z.strictObject({ ...resultFlags, tx: RecordShapeA.nullable(), ticket_id: ticketId });
/** One result of Shape B: the record under `data`. */
export const VerifyResultB = z.strictObject({ ...resultFlags, data: RecordShapeB.nullable(), ticket_id: ticketId });
export const VerifyResultsA = z.array(VerifyResultA).meta({ description: 'data[i] answers txs[i]' });
export const VerifyResultsB = z.array(VerifyResultB).meta({ description: 'data[i] answers txs[i]' });
/** The verify answer's `data`, whichever shape was asked for (openapi.json documents both). */
export const VerifyResults = z.union([VerifyResultsA, VerifyResultsB]);
export type VerifyResultA = z.infer<typeof VerifyResultA>;
export type VerifyResultB = z.infer<typeof VerifyResultB>;

const RunSource = z.enum(['api', 'ui', 'cli']);

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
  /** Rows of a books file that could not become a claim (0 for the API and for files without one). */
  rejected_count: z.number().int(),
  /**
   * A two-way run (books): the ledger side was checked too. Its period, Unix ms, both ends
   * inclusive (null: open), the ledger records in it no claim found, and the claims that repeat
   * an earlier claim of the books (counted here only, not in matched / mismatched / not_found).
   */
  two_way: z.boolean(),
  period_from: z.number().int().nullable(),
  period_to: z.number().int().nullable(),
  not_in_books: z.number().int(),
  duplicates: z.number().int(),
});
export type RunSummary = z.infer<typeof RunSummary>;

/** A books row that could not become a claim; it is reported and kept with the run, the rest of the file still runs. */
export const BooksRejectedRow = z.object({ row: z.number().int(), field: z.string(), reason: z.string() });
export type BooksRejectedRow = z.infer<typeof BooksRejectedRow>;
const RejectedRows = z.array(BooksRejectedRow).meta({ description: 'The first 1000 rows of the books file that could not be read' });

const RunItemFilter = z.enum(['all', 'matched', 'mismatched', 'not_found', 'duplicates']);

export const RunItem = z.strictObject({
  idx: z.number().int(),
  /** The item exactly as sent (books run: as mapped from the row). */
  claimed: z.record(z.string(), z.unknown()),
  ...resultFlags,
  /** The record as it stands now in the ledger; null when not found. */
  record: LedgerRecord.nullable(),
  /** The record was updated (an import) after the run started: the marks are the check's, the values today's. */
  record_changed: z.boolean(),
  ticket_id: z.string().nullable(),
  /** A duplicate claim: the idx of the earlier claim it repeats (it found the same record, or looked up the same identifier). */
  duplicate_of: z.number().int().nullable(),
});
export type RunItem = z.infer<typeof RunItem>;

/** A ledger record of a two-way run's period and scope that no claim found, with its exception. */
export const UnbookedItem = z.object({ record: LedgerRecord.nullable(), transaction_id: z.string(), ticket_id: z.string().nullable() });
export type UnbookedItem = z.infer<typeof UnbookedItem>;

/**
 * A period as the user gives it: a date (YYYY-MM-DD: the whole day) or a moment (ISO 8601), read in
 * time_zone when it carries no zone. `from` is the first moment in the period, `to` the last.
 */
const PeriodInput = {
  from: z.string().optional().meta({ description: 'First day (YYYY-MM-DD) or moment (ISO 8601) of the period' }),
  to: z.string().optional().meta({ description: 'Last day (YYYY-MM-DD, the whole day) or moment of the period' }),
  time_zone: z.string().default('UTC').meta({ description: 'IANA zone the dates are read in; default UTC' }),
};

const RunDetail = RunSummary.extend({
  rejected: RejectedRows,
  /** The run's items still stored: item_count, unless data retention removed those that touched no ticket (shared/retention.ts). */
  stored_items: z.number().int(),
  items: pageOf(RunItem),
});
type RunDetail = z.infer<typeof RunDetail>;

/** A books file: a path on this machine, or its text (a file picked in the browser window). */
export const BooksSource = z.union([
  z.object({ path: z.string().min(1) }).strict(),
  z.object({ name: z.string().min(1), text: z.string() }).strict(),
]);
export type BooksSource = z.infer<typeof BooksSource>;

/** Where a books column goes: one of the claim's fields. */
export const VerifyField = z.enum([...IDENTIFIER_FIELDS, ...FLAG_FIELDS]);
export type VerifyField = z.infer<typeof VerifyField>;

/** Columns of a pair: the amount received (Deposit) and the amount sent (Withdrawal); debit and credit are such a pair. */
export const BOOKS_PAIR_FIELDS = ['amount_in', 'amount_out'] as const;
/**
 * Columns kept with each claim as the books wrote them and never compared: the books' own
 * description of the line (Description, Memo, Narrative), shown in the results and the report.
 */
export const BOOKS_KEPT_FIELDS = ['description'] as const;
/** Where a books column goes: a claim field, one side of an In/Out pair, or a column kept beside the claim. */
export const BooksColumnField = z.enum([...IDENTIFIER_FIELDS, ...FLAG_FIELDS, ...BOOKS_PAIR_FIELDS, ...BOOKS_KEPT_FIELDS]);
export type BooksColumnField = z.infer<typeof BooksColumnField>;
/** Fields whose books values may be translated ("Receive" -> Deposit, "Ethereum" -> ETH). */
export const BOOKS_TRANSLATED_FIELDS = ['type', 'status', 'chain_id', 'token_id'] as const;
export const BooksTranslatedField = z.enum(BOOKS_TRANSLATED_FIELDS);
export type BooksTranslatedField = z.infer<typeof BooksTranslatedField>;
/** How a signed amount column gives the type: positive_deposit: +5 is a Deposit of 5, -5 a Withdrawal of 5. */
export const BOOKS_AMOUNT_SIGNS = ['positive_deposit', 'positive_withdrawal'] as const;
const BOOKS_DATE_ORDERS = ['auto', 'day_first', 'month_first'] as const;
const BOOKS_DECIMAL_SEPARATORS = ['auto', '.', ','] as const;
const BOOKS_THOUSANDS_SEPARATORS = ['auto', '', ',', '.', ' ', "'", '_'] as const;

/**
 * How a books CSV becomes claims, read like the ledger's Mapping: each field names the source
 * column it is read from; constants fill fields no column gives (e.g. chain_id "ETH" for a
 * one-chain file), and a non-empty cell beats a constant. Every key added after the first version
 * is optional and its absence means what the first version did, so a saved mapping keeps working.
 *  - amount_in / amount_out (columns): an In/Out (debit/credit) pair; the non-zero one is the amount
 *    and says the type. amount_sign: the amount column is signed and its sign says the type.
 *  - description (column): the books' own words for the line, kept with the claim, never compared.
 *  - translations: per field, a books value -> the value the claim takes (case-insensitive, trimmed).
 *  - decimal_separator: absent is '.', 'auto' decides from the file's first rows.
 *  - date_order (dates with the year last, 11/06/2021): absent or 'auto' decides from the file.
 *  - time_zone (IANA) beats utc_offset for times without a zone.
 */
export const BooksMapping = z.object({
  columns: z
    .partialRecord(BooksColumnField, z.string().min(1))
    .default({})
    .meta({ description: 'verification field (or amount_in / amount_out, or description) -> source column header' }),
  constants: z.partialRecord(VerifyField, z.string()).default({}),
  amount_sign: z.enum(BOOKS_AMOUNT_SIGNS).optional().meta({
    description: 'The amount column is signed: positive_deposit (+ Deposit, - Withdrawal) or positive_withdrawal; absent: not signed',
  }),
  translations: z
    .partialRecord(BooksTranslatedField, z.record(z.string(), z.string()))
    .optional()
    .meta({ description: 'field -> { books value -> claim value }, e.g. { "type": { "Receive": "Deposit", "Send": "Withdrawal" } }' }),
  decimal_separator: z
    .enum(BOOKS_DECIMAL_SEPARATORS)
    .optional()
    .meta({ description: "Decimal separator of amounts; 'auto' decides from the file's first rows; absent: '.'" }),
  thousands_separator: z.enum(BOOKS_THOUSANDS_SEPARATORS).default(''),
  date_order: z
    .enum(BOOKS_DATE_ORDERS)
    .optional()
    .meta({ description: "Day and month order of dates with the year last (11/06/2021); absent or 'auto': from the file" }),
  utc_offset: z
    .string()
    .regex(/^[+-](0\d|1[0-4]):[0-5]\d$/, { error: 'must look like +08:00 or -05:30' })
    .default('+00:00'),
  time_zone: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'IANA zone of times without one (daylight saving included); beats utc_offset' }),
});
export type BooksMapping = z.output<typeof BooksMapping>;

/** What a books file leaves to be chosen (the mapping says 'auto' and its first rows cannot tell). */
export const BooksNeed = z.object({
  field: z.enum(['mapping.decimal_separator', 'mapping.date_order']),
  options: z.array(z.string()),
  reason: z.string(),
});
export type BooksNeed = z.infer<typeof BooksNeed>;

/** How the file's amounts and dates are read: the mapping's choice, or what its first rows decided (null: nothing to decide yet). */
export const BooksReadAs = z.object({
  decimal_separator: z.enum(['.', ',']).nullable(),
  date_order: z.enum(['day_first', 'month_first']).nullable(),
  /** Every time of the first rows is a date alone: each claims its whole day in the books' zone. */
  dates_only: z.boolean(),
  /** The token cells of the first rows that are not token ids, as the catalogue tokens they were read as (USDC -> ETH_USDC). */
  tokens: z.record(z.string(), z.string()),
});
export type BooksReadAs = z.infer<typeof BooksReadAs>;

const BooksDetectInput = z.object({
  source: BooksSource,
  wallet_id: Uuid.optional().meta({ description: "The run's wallet, when chosen: a mapping saved for it is proposed first" }),
});

/** A saved mapping's name: unique ignoring case. */
const MappingName = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(100, { error: 'must be at most 100 characters' })
  .refine((s) => ![...s].some((c) => c < ' ' || c === '\u007f'), { error: 'must not contain control characters (line breaks, tabs)' });

/** What a books run was given besides its mapping: kept with a saved mapping and proposed with it. */
export const SavedRunOptions = z.object({
  amount_delta: z.string().optional(),
  time_type: z.enum(TIME_TYPES).optional(),
  time_delta: z.number().int().min(0).optional(),
  two_way: z.boolean().optional(),
  /** The period of the run it was last used for, as given (YYYY-MM-DD or ISO 8601), and its zone. */
  from: z.string().optional(),
  to: z.string().optional(),
  time_zone: z.string().optional(),
});
export type SavedRunOptions = z.infer<typeof SavedRunOptions>;

/**
 * A books mapping kept for the next file of its layout: its header (the columns as written) and
 * the wallet it was used for (null: every wallet). `named`: the user named it; otherwise a run
 * remembered it under the name of its file. Times are Unix ms; used_at is its last run.
 */
export const SavedMapping = z.object({
  mapping_id: z.string(),
  name: z.string(),
  named: z.boolean(),
  headers: z.array(z.string()),
  wallet_id: z.string().nullable(),
  mapping: BooksMapping,
  options: SavedRunOptions,
  created_at: z.number().int(),
  updated_at: z.number().int(),
  used_at: z.number().int(),
});
export type SavedMapping = z.infer<typeof SavedMapping>;

const SavedMappingListed = SavedMapping.extend({
  /** The file asked about has this mapping's layout (the same columns, ignoring case and spaces around them). */
  same_layout: z.boolean(),
});
export type SavedMappingListed = z.infer<typeof SavedMappingListed>;

const MappingsListInput = z
  .object({
    headers: z.array(z.string()).optional().meta({ description: "A books file's header: its layout's mappings first" }),
    wallet_id: Uuid.optional().meta({ description: "The run's wallet: its mappings of the layout first" }),
  })
  .strict();

const MappingRef = z.object({ mapping: z.string().min(1, { error: 'must name a saved mapping (its name or ID)' }) }).strict();
const MappingGet = MappingRef.extend({
  headers: z
    .array(z.string())
    .optional()
    .meta({ description: "The header of a books file of the mapping's layout: its columns as that file spells them" }),
}).strict();

const MappingSave = z
  .object({
    name: MappingName,
    headers: z.array(z.string()).min(1, { error: "must hold the books file's columns" }),
    wallet_id: Uuid.nullable().optional(),
    mapping: BooksMapping,
    options: SavedRunOptions.optional(),
    /** The name is another mapping's: replace that one (otherwise refused). */
    replace: z.boolean().default(false),
  })
  .strict();

const MappingUpdate = z
  .object({
    mapping_id: z.string().min(1),
    name: MappingName.optional(),
    wallet_id: Uuid.nullable().optional(),
    mapping: BooksMapping.optional(),
  })
  .strict();

export const BooksDetected = z.object({
  headers: z.array(z.string()),
  sample: z.array(z.record(z.string(), z.string())).meta({ description: 'The first rows, keyed by header' }),
  rows_estimate: z.number().int().nullable(),
  suggested: BooksMapping,
  /** How the suggested mapping reads this file, and what it leaves to be chosen. */
  read_as: BooksReadAs,
  needs: z.array(BooksNeed),
  /** A mapping saved for this layout (for the wallet asked about first, else the last used), proposed instead of the guess. */
  saved: SavedMapping.nullable(),
});
export type BooksDetected = z.infer<typeof BooksDetected>;

/** Options of a books run that shape its claims (a preview takes them too). */
const BooksClaimOptions = {
  amount_delta: NonNegativeAmount.optional(),
  time_type: oneOf(TIME_TYPES).optional(),
  time_delta: intField({ min: 0 }).optional(),
};

export const BooksPreviewInput = z.object({
  source: BooksSource,
  mapping: BooksMapping,
  /** The wallet the run will check: its chains decide which token a currency symbol is. */
  wallet_id: Uuid.optional(),
  ...BooksClaimOptions,
});
export type BooksPreviewInput = z.output<typeof BooksPreviewInput>;

/** Why a books row cannot be a claim: the column (or columns, or a field) at fault, why, and the cell as written. */
const BooksRowError = z.object({ column: z.string(), reason: z.string(), value: z.string() });

export const BooksPreviewRow = z.object({
  /** Data rows count from 1 (the header row is not counted), as in a run's rejected rows. */
  row: z.number().int(),
  /** The row's cells, keyed by header. */
  cells: z.record(z.string(), z.string()),
  /** The claim as read: amounts as exact decimal strings, time as ISO 8601 UTC; null when the row has an error. */
  claim: z.record(z.string(), z.union([z.string(), z.number()])).nullable(),
  error: BooksRowError.nullable(),
});
export type BooksPreviewRow = z.infer<typeof BooksPreviewRow>;

export const BooksPreview = z.object({
  read_as: BooksReadAs,
  /** Errors of the whole file under this mapping (a run would refuse with 1002 naming the field); empty when it can run. */
  problems: z.array(z.object({ field: z.string(), reason: z.string() })),
  rows: z.array(BooksPreviewRow).meta({ description: 'The first 20 rows' }),
});
export type BooksPreview = z.infer<typeof BooksPreview>;

export const BooksRunInput = z.object({
  source: BooksSource,
  mapping: BooksMapping,
  wallet_id: Uuid.optional(),
  amount_delta: NonNegativeAmount.optional(),
  time_type: oneOf(TIME_TYPES).optional(),
  time_delta: intField({ min: 0 }).optional(),
  label: z.string().optional(),
  /** The ledger side: records of the wallet (or every wallet) in this period that no claim found are reported. */
  ...PeriodInput,
  /** false: one-way (claims only), as before two-way reconciliation. Default true. */
  two_way: z.boolean().default(true),
  /** Keep the mapping for the next file of this layout and wallet (default), in the entry of that layout and wallet. */
  remember_mapping: z.boolean().default(true),
  /** Keep it under this name (the mapping of that name is replaced). */
  save_mapping_as: MappingName.optional(),
});
export type BooksRunInput = z.output<typeof BooksRunInput>;

export const BooksRunResult = RunSummary.extend({
  rejected: RejectedRows,
  /** Pending exceptions of earlier books runs that this run found put right, and resolved (a two-way run). */
  settled: z.number().int(),
  /** Where the run kept its mapping; null when it was told not to. */
  saved_mapping: SavedMapping.nullable(),
});
export type BooksRunResult = z.infer<typeof BooksRunResult>;

export const reconcileContract = {
  'reconcile-verify-txs': { defersWrites: true, input: VerifyInput, output: VerifyResults },
  'reconcile-books-detect': { readOnly: true, input: BooksDetectInput, output: BooksDetected },
  'reconcile-books-run': { input: BooksRunInput, output: BooksRunResult },
  'reconcile-books-preview': { readOnly: true, input: BooksPreviewInput, output: BooksPreview },
  'books-mappings-list': { readOnly: true, input: MappingsListInput, output: z.array(SavedMappingListed) },
  'books-mapping-get': { readOnly: true, input: MappingGet, output: SavedMapping },
  'books-mapping-save': { input: MappingSave, output: SavedMapping },
  'books-mapping-update': { input: MappingUpdate, output: SavedMapping },
  'books-mapping-remove': { input: MappingRef, output: SavedMapping },
  'runs-list': { readOnly: true, input: z.object({ ...PageQuery }), output: pageOf(RunSummary) },
  'run-report': {
    readOnly: true,
    input: z.object({ run_id: z.string().min(1), limit: z.number().int().min(1).max(100_000).optional() }),
    output: ReconcileReport,
  },
  'run-report-file': {
    readOnly: true,
    input: z.object({ run_id: z.string().min(1), format: ReportFormat }),
    output: ReportFile,
  },
  'run-unbooked': {
    readOnly: true,
    input: z.object({ run_id: z.string().min(1), ...PageQuery }),
    output: pageOf(UnbookedItem),
  },
  'run-get': {
    readOnly: true,
    input: z.object({ run_id: z.string().min(1), ...PageQuery, filter: RunItemFilter.default('all') }),
    output: RunDetail,
  },
};
