import { z } from 'zod';
import { addition, isExactNumber, pageOf, queryInt, Uuid } from './primitives';
import { ReportFile, ReportFormat } from './files';

/* The service's own records (docs/ledger.md) and their import. */

export const LEDGER_TYPES = ['Deposit', 'Withdrawal'] as const;
export const LEDGER_STATUSES = ['Pending', 'Confirming', 'Completed', 'Failed', 'Rejected'] as const;
export const LedgerType = z.enum(LEDGER_TYPES);
export type LedgerType = z.infer<typeof LedgerType>;
export const LedgerStatus = z.enum(LEDGER_STATUSES);
export type LedgerStatus = z.infer<typeof LedgerStatus>;

const msOrNull = z.number().int().nullable();

/**
 * The transaction record: the source description's sixteen fields in its order (docs/api.md,
 * "Resources", Transaction record), then the additions transaction_id and request_id.
 * This object is the one list of the record's fields: the ledger table's columns (db/schema.ts),
 * the statement that reads a record (main's db/record-sql.ts), both wire shapes of the verify answer
 * (reconcile.ts), openapi.json and the Ledger screen's columns are all made from it.
 * A text field is "" when the ledger does not record it; a time is Unix milliseconds, or null.
 */
export const TransactionRecord = z.strictObject({
  wallet_id: z.string(),
  type: LedgerType,
  status: LedgerStatus,
  amount: z.string(),
  to: z.string(),
  fee_ratio: z.string(),
  fee_fixed: z.string(),
  fee: z.string(),
  er: z.string(),
  amount_actual: z.string(),
  hash: z.string(),
  chain_id: z.string(),
  token_id: z.string(),
  created_at: msOrNull,
  confirmed_at: msOrNull,
  completed_at: msOrNull,
  transaction_id: z.string().meta(addition("the service's transaction identifier (UUID)")),
  request_id: z.string().meta(addition('the request identifier of a withdrawal; "" when not recorded')),
});
export type TransactionRecord = z.infer<typeof TransactionRecord>;
export type RecordField = keyof TransactionRecord;

/** The record's fields in the contract's order. */
export const RECORD_FIELDS = Object.keys(TransactionRecord.shape) as RecordField[];
export const RECORD_TIME_FIELDS = ['created_at', 'confirmed_at', 'completed_at'] as const satisfies readonly RecordField[];

/** A record as the store keeps it: the record, and the import that last added or changed it. */
export const LedgerRecord = TransactionRecord.extend({
  import_id: z.string().nullable(),
  updated_at: z.number().int(),
  /**
   * Which movement of its transaction this is: 0 the native transfer, 1 + n the n-th internal
   * transfer, 1,000,000 + n the token transfer of log index (or position among the hash's transfers) n.
   */
  movement: z.number().int(),
});
export type LedgerRecord = z.infer<typeof LedgerRecord>;

/**
 * The native format's columns: exactly the record's fields, in any order in a file. Listed here
 * with transaction_id first, the order the import keeps a row's values in.
 */
export const LEDGER_FIELDS = ['transaction_id', ...RECORD_FIELDS.filter((f) => f !== 'transaction_id')] as [
  'transaction_id',
  ...Exclude<RecordField, 'transaction_id'>[],
];
export const LedgerField = z.enum(RECORD_FIELDS as [RecordField, ...RecordField[]]);
export type LedgerField = RecordField;

/** A native file must carry these columns (wallet_id may instead come from --wallet-id / a mapping constant). */
export const REQUIRED_FIELDS = ['transaction_id', 'wallet_id', 'type', 'status', 'amount', 'chain_id', 'token_id'] as const;

/**
 * Inputs a mapping can read besides the record's fields, for exports that are not ours:
 * `from` (sender; with the constant wallet_address it decides Deposit or Withdrawal),
 * `amount_in` / `amount_out` (Etherscan's Value_IN / Value_OUT: whichever is non-zero is the
 * amount and decides the type), `token_contract` / `token_symbol` (the token is looked up in the
 * catalogue on the row's chain; an empty contract means the chain's native coin; a symbol alone never
 * picks a token), `token_name` (named in the report of unknown tokens), `log_index` (the transfer's
 * position in its transaction, where the export has it), `error` (an explorer's error cell, such as
 * ErrCode or Tron's contractRet: any text but SUCCESS makes the record Failed, whatever the status
 * column says), `created_contract` (a transactions export's ContractAddress: the contract a creation
 * made, which is where a row with an empty `to` went).
 */
export const MAPPING_EXTRA_INPUTS = [
  'from',
  'amount_in',
  'amount_out',
  'token_contract',
  'token_symbol',
  'token_name',
  'log_index',
  'error',
  'created_contract',
] as const;
export const MappingInput = z.enum([...LEDGER_FIELDS, ...MAPPING_EXTRA_INPUTS]);
export type MappingInput = z.infer<typeof MappingInput>;

/** Constants: a record field with the same value on every row, or the address the export was made for. */
export const MappingConstant = z.enum([...LEDGER_FIELDS, 'wallet_address']);
export type MappingConstant = z.infer<typeof MappingConstant>;

/**
 * Time cell formats. 'auto' reads each of the others from the cell's shape: Unix seconds or
 * milliseconds, ISO 8601, "YYYY-MM-DD HH:mm:ss", "YYYY/MM/DD HH:mm:ss", Excel serial day numbers,
 * dates with month names, and dates with the year last ("11/06/2021 10:21"), whose day and month
 * order comes from `order`.
 */
const DATE_FORMATS = ['auto', 'unix_s', 'unix_ms', 'iso', 'YYYY-MM-DD HH:mm:ss', 'YYYY/MM/DD HH:mm:ss', 'excel'] as const;
/** Day and month order of dates with the year last: 'auto' decides from the file (a day above 12), and refuses when it cannot. */
const DATE_ORDERS = ['auto', 'day_first', 'month_first'] as const;
const DateOrder = z.enum(DATE_ORDERS);

/** Decimal separator of amounts: 'auto' decides from the file's numbers (0,5 or 1.234,56: comma), and refuses when it cannot. */
const DecimalSeparator = z.enum(['auto', '.', ',']);

/**
 * How to read a file that is not in the native format. Given as JSON (`--map mapping.json`, or
 * built in the import dialog); every part is optional.
 */
export const Mapping = z
  .object({
    /**
     * For each field (or extra input), the source column it is read from. One column may feed
     * several fields (e.g. a block time as both created_at and confirmed_at).
     */
    columns: z
      .partialRecord(MappingInput, z.string().min(1))
      .default({})
      .meta({ description: 'field -> source column header (exact, after trimming)' }),
    /** Same value on every row; a constant wins over a column for the same field. */
    constants: z.partialRecord(MappingConstant, z.string()).default({}),
    /**
     * Value maps for type and status: source value -> ledger value. Matched exactly, then
     * case-insensitively after trimming; "" matches an empty cell, "*" any other value.
     * Values not in the map are read as the ledger's own words (case-insensitive).
     */
    values: z
      .object({
        type: z.record(z.string(), LedgerType).optional(),
        status: z.record(z.string(), LedgerStatus).optional(),
      })
      .default({}),
    /**
     * Number format of amount cells: "1.234,56" is decimal ',' thousands '.'. 'auto' (the default)
     * decides the decimal separator from the file's numbers, the thousands separator then being the
     * other of ',' and '.' (or a space or apostrophe); a thousands separator is only read between
     * groups of three digits, so "0,5" is never 5. Scientific notation is always accepted.
     */
    number: z
      .object({
        decimal_separator: DecimalSeparator.default('auto'),
        thousands_separator: z.enum(['auto', '', ',', '.', ' ', "'", '_']).default('auto'),
        /** Amount cells may end with this coin after a space ("0.5 ETH"); a cell naming another is rejected. */
        unit: z.string().min(1).optional(),
        /**
         * Whether amounts may be in scientific notation ("6.0E-7", as Binance writes them; read
         * exactly). The explorer presets say false: an explorer never writes it, so such a cell has
         * been through a spreadsheet, which may have rounded it, and its row is rejected.
         */
        scientific: z.boolean().optional(),
        /**
         * Amounts are written to their token's full precision (Tronscan's quant: "679.470000" for
         * a token of 6 decimal places). An amount written with another number of decimal places
         * is of another token, and its row is rejected: in a file that names no token, that is
         * the only sign of a row of another token.
         */
        token_places: z.boolean().optional(),
      })
      .refine((n) => n.decimal_separator === 'auto' || n.decimal_separator !== n.thousands_separator, {
        error: 'decimal and thousands separators must differ',
      })
      .default({ decimal_separator: 'auto', thousands_separator: 'auto' }),
    /**
     * Time cells (DATE_FORMATS): 'auto' takes integers below 100,000,000,000 as Unix seconds and
     * larger ones as Unix milliseconds, numbers below 100,000 as Excel serial days, and text dates
     * by their shape. A time without a zone is read in time_zone when given (an IANA name such as
     * Europe/Berlin, daylight saving included), else in utc_offset (explorers export UTC).
     * Stored as Unix milliseconds.
     */
    date: z
      .object({
        format: z.enum(DATE_FORMATS).default('auto'),
        order: DateOrder.default('auto'),
        utc_offset: z
          .string()
          .regex(/^[+-](0\d|1[0-4]):[0-5]\d$/, { error: 'must look like +08:00 or -05:30' })
          .default('+00:00'),
        time_zone: z.string().min(1).optional(),
      })
      .default({ format: 'auto', order: 'auto', utc_offset: '+00:00' }),
    /**
     * When no transaction_id column is mapped, the id is derived (UUID v5) from wallet_id, chain_id
     * and these fields, so importing the same export again finds the same records.
     */
    id_fields: z.array(MappingInput).min(1).default(['hash']),
    /** 'Withdrawal': a fee column counts only on withdrawals (an explorer shows the sender's fee on deposits too). */
    fee_on: z.enum(['all', 'Withdrawal']).default('all'),
    /** Amounts carry a sign: a negative amount is a Withdrawal of its absolute value, a positive one a Deposit. */
    signed_amounts: z.boolean().default(false),
    /**
     * Whether a row's symbol may pick its token where the file has no contract column (a user's
     * own spreadsheet, an exchange's history). The explorer presets say false: scam tokens reuse
     * popular symbols, so there a row naming a symbol other than the chain's coin, and no
     * contract, is rejected (a file of one token is given --token).
     */
    token_by_symbol: z.boolean().optional(),
    /**
     * Which movement of a transaction the rows are, so that one hash's native transfer, internal
     * transfers and token transfers are records of their own: 'native' (one record per hash, as
     * id_fields say), 'internal' (an explorer's internal transactions) or 'token' (token transfers;
     * several of one hash with the same id_fields are told apart by their position or log_index).
     */
    movement: z.enum(['native', 'internal', 'token']).default('native'),
  })
  .strict();
export type Mapping = z.output<typeof Mapping>;
export type MappingInputJson = z.input<typeof Mapping>;

/** Where a ledger comes from: a file path (desktop, CLI) or the file's text (browser-mode UI). */
export const LedgerSource = z.union([
  z.object({ path: z.string().min(1, { error: 'must not be empty' }) }).strict(),
  z.object({ name: z.string().min(1, { error: 'must not be empty' }), text: z.string() }).strict(),
]);
export type LedgerSource = z.infer<typeof LedgerSource>;

export const Rejection = z.object({
  /** 1-based data row: the header line is not counted (for JSON, the index in the array plus one). */
  row_number: z.number().int(),
  column: z.string(),
  reason: z.string(),
  /** The cell's text as the file has it ("" for a problem of the whole row). */
  value: z.string().default(''),
});
export type Rejection = z.infer<typeof Rejection>;

export const RowUpdate = z.object({
  row_number: z.number().int(),
  transaction_id: z.string(),
  /** Fields whose value differs from the stored record. */
  fields: z.array(z.string()),
  /** Each of those fields as the record held it and as the row has it (null: not recorded; times in Unix ms). */
  changes: z.array(z.object({ field: z.string(), before: z.string().nullable(), after: z.string().nullable() })),
});
export type RowUpdate = z.infer<typeof RowUpdate>;

export const MAX_REPORTED_UPDATES = 1000;

/** A token the rows name by contract that the catalogue lacks: its rows were rejected, and it can be added (`nps tokens add`). */
export const UnknownToken = z.object({
  chain_id: z.string(),
  contract_address: z.string(),
  /** As the file names it ("" when it does not). */
  symbol: z.string(),
  name: z.string(),
  /** Rows rejected for it. */
  rows: z.number().int(),
  /** The most decimal places its amounts show: the token has at least this many. */
  decimal_hint: z.number().int(),
});
export type UnknownToken = z.infer<typeof UnknownToken>;

/**
 * What the user states about a file that does not say it (CLI flags --chain, --token,
 * --decimal-separator, --date-order; the import dialog's choices). Each wins over the preset's or
 * mapping's setting; a row that disagrees with it is rejected.
 */
export const ImportChoices = z.object({
  /** The chain of every row (an Etherscan-family export of a chain whose coin is ETH: Ethereum, Arbitrum, Optimism or Base). */
  chain_id: z.string().min(1).optional(),
  /** The token of every row (exports that name no token, such as old Tronscan TRC-20 files). */
  token_id: z.string().min(1).optional(),
  decimal_separator: z.enum(['.', ',']).optional(),
  date_order: z.enum(['day_first', 'month_first']).optional(),
  /**
   * The zone of the file's times written without one: UTC, an offset (+08:00) or an IANA name
   * (Europe/Berlin). Explorers write UTC; Tronscan's older export names no zone, and is asked.
   */
  time_zone: z.string().min(1).optional(),
});
export type ImportChoices = z.infer<typeof ImportChoices>;

/** A choice the file leaves open and the import needs: what to give, and why. */
export const NeededChoice = z.object({
  /** wallet_id: the wallet every row goes to (the CLI's --wallet NAME or --wallet-id W; the request's wallet_name or wallet_id). */
  field: z.enum(['chain_id', 'token_id', 'decimal_separator', 'date_order', 'time_zone', 'wallet_address', 'wallet_id']),
  /** The CLI flag that gives it, e.g. "--chain". */
  flag: z.string(),
  reason: z.string(),
  /** The values to choose from, where they are few (chains of the file's coin, tokens of the file's chain, the two separators). */
  options: z.array(z.string()),
  /**
   * A chain_id need of an explorer export: what the file says of a chain to add when the chain it
   * was exported from is not in the catalogue (catalogue-chain-add's fields; native_decimal null
   * where the family does not fix it). With no options, no chain of the catalogue fits the file
   * (none has its coin) and adding one is the only answer. Absent on other needs.
   */
  add_chain: z
    .object({
      chain_id: z.string(),
      chain_identifier: z.string(),
      native_symbol: z.string(),
      native_decimal: z.number().int().nullable(),
    })
    .optional(),
});
export type NeededChoice = z.infer<typeof NeededChoice>;

/** How a file was read: what it did not say, decided from its rows or stated (chain, decimal separator, date order, time zone, the wallet's address). */
const ReadAs = z.object({
  chain_id: z.string().nullable(),
  decimal_separator: z.enum(['.', ',']).nullable(),
  date_order: z.enum(['day_first', 'month_first']).nullable(),
  wallet_address: z.string().nullable(),
  time_zone: z.string(),
});

export const ImportReport = z.object({
  /** null when nothing was written: a preview, or a file without one valid row. */
  import_id: z.string().nullable(),
  dry_run: z.boolean(),
  file_name: z.string(),
  /** Preset used ('native', 'etherscan', 'tronscan'), or 'custom' for a mapping. */
  preset: z.string(),
  format: z.enum(['csv', 'json']),
  rows_total: z.number().int(),
  added: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  rejected: z.number().int(),
  /** Every rejected row, in file order. */
  rejections: z.array(Rejection),
  /** The first MAX_REPORTED_UPDATES updated rows (`updated` has the full count). */
  updates: z.array(RowUpdate),
  /** Wallets that did not exist before this file. */
  wallets_created: z.array(z.string()),
  /** Tokens the rows name by contract that the catalogue lacks (their rows are among the rejected). */
  unknown_tokens: z.array(UnknownToken),
  /** What was read as the file did not say it: the chain, the decimal separator, the date order, the wallet's address. */
  read_as: ReadAs,
  /** One or two sentences for a person: what happened, and that row numbers exclude the header. */
  message: z.string(),
  duration_ms: z.number().int(),
});
export type ImportReport = z.infer<typeof ImportReport>;

const LedgerImportRequest = ImportChoices.extend({
  source: LedgerSource,
  /** A preset name; absent: detected from the header. Ignored when a mapping is given. */
  preset: z.string().min(1).optional(),
  mapping: Mapping.optional(),
  /** Wallet of every row (required for foreign exports, which have no wallet_id column). */
  wallet_id: Uuid.optional(),
  /** The wallet by its name instead (wallets.ts): a wallet of that name, else one created with it. */
  wallet_name: z.string().trim().min(1, { error: 'must not be empty' }).optional(),
  /** The address the export was made for (decides Deposit/Withdrawal for Tronscan-like files). */
  wallet_address: z.string().min(1).optional(),
}).strict();
export type LedgerImportRequest = z.output<typeof LedgerImportRequest>;

/** Detect with what the user chose so far (an import's request): the answer says what is still needed, and reads the first rows with it. */
const LedgerDetectRequest = LedgerImportRequest;

/** One of the first rows as the import would read it: the record's values, or why it is rejected. */
export const ParsedRow = z.object({
  row_number: z.number().int(),
  /** The values read (record fields, amounts as exact decimal strings, times as Unix ms text), or null when rejected. */
  values: z.record(z.string(), z.string()).nullable(),
  /** The raw text of the cells the amount was read from, to show beside the parsed amount. */
  raw_amount: z.string(),
  /** The raw text of the cell the shown time was read from (created_at's, else confirmed_at's, else completed_at's), to show beside it. */
  raw_time: z.string(),
  problem: z.object({ column: z.string(), reason: z.string(), value: z.string() }).nullable(),
});
export type ParsedRow = z.infer<typeof ParsedRow>;

export const LedgerDetectResult = z.object({
  file_name: z.string(),
  file_size: z.number().int(),
  format: z.enum(['csv', 'json']),
  headers: z.array(z.string()),
  /** The first rows (up to 20), cells as text. */
  sample: z.array(z.record(z.string(), z.string())),
  /** The preset whose header fits, or null. */
  preset: z.string().nullable(),
  /** A mapping to start from: the preset's, or one matching columns named like the record's fields. */
  mapping: Mapping,
  /** Header columns no mapping input reads. */
  unmapped: z.array(z.string()),
  /** Rows in the file, estimated from the sample's bytes per row (exact for a fully read file). */
  row_estimate: z.number().int().nullable(),
  /** The text encoding the file was read in. */
  encoding: z.string(),
  /** Choices the import still needs (empty: it can run). */
  needs: z.array(NeededChoice),
  /** A problem with the file as mapped that no choice fixes (a missing column, an invalid mapping), or null. */
  problem: z.string().nullable(),
  /** What the import would read as the file does not say it (see ImportReport.read_as). */
  read_as: ImportReport.shape.read_as,
  /** The first rows as the import would read them (empty while choices are needed or there is a problem). */
  parsed: z.array(ParsedRow),
  /** Unknown tokens among the first rows. */
  unknown_tokens: z.array(UnknownToken),
});
export type LedgerDetectResult = z.infer<typeof LedgerDetectResult>;

export const LedgerPreset = z.object({
  name: z.string(),
  label: z.string(),
  description: z.string(),
  /** The header columns that identify the preset. */
  detect: z.array(z.string()),
  mapping: Mapping,
});
export type LedgerPreset = z.infer<typeof LedgerPreset>;

/** Unix milliseconds: a number, or its decimal digits (query strings). */
const optionalMs = z
  .unknown()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === null || v === '') return undefined;
    const text = isExactNumber(v) ? v.value : typeof v === 'number' ? String(v) : typeof v === 'string' ? v : '';
    const n = /^-?\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n)) {
      ctx.addIssue({ code: 'custom', message: 'must be Unix milliseconds (an integer)' });
      return z.NEVER;
    }
    return n;
  })
  .meta({ type: 'integer', description: 'Unix milliseconds' });

/** A ledger search this long (a hash's 0x not counted) also finds the identifiers it begins. */
export const PARTIAL_SEARCH_MIN = 4;

/** A filter left empty (a cleared search box, "all" in a select) is no filter. */
const blankIsAbsent = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v), schema.optional());
const optionalText = blankIsAbsent(z.string().trim());

/** What the ledger's list, its totals and its file export select by. */
const transactionFilters = {
  wallet_id: blankIsAbsent(Uuid),
  chain_id: optionalText,
  token_id: optionalText,
  type: blankIsAbsent(LedgerType),
  status: blankIsAbsent(LedgerStatus),
  /** created_at >= from (Unix ms) */
  from: optionalMs,
  /** created_at < to (Unix ms) */
  to: optionalMs,
  /**
   * A transaction_id, request_id or hash equal to it (hex hashes and IDs case-insensitively, a
   * request_id as written) and, from PARTIAL_SEARCH_MIN characters (a hash's 0x not counted), every
   * one that begins with it.
   */
  search: optionalText,
};
export const TransactionFilters = z.object(transactionFilters);
export type TransactionFilters = z.output<typeof TransactionFilters>;

/** The columns the ledger sorts by; amount in exact decimal order, ties by created_at (newest first). */
export const TRANSACTION_SORTS = ['created_at', 'amount', 'type', 'status', 'token_id', 'chain_id'] as const;
export const TransactionSort = z.enum(TRANSACTION_SORTS, { error: `must be one of ${TRANSACTION_SORTS.join(', ')}` });
export type TransactionSort = z.infer<typeof TransactionSort>;
const transactionOrder = {
  sort: blankIsAbsent(TransactionSort).default('created_at'),
  order: blankIsAbsent(z.enum(['asc', 'desc'], { error: 'must be asc or desc' })).default('desc'),
};

export const TransactionListQuery = z.object({
  page: queryInt({ min: 1, default: 1, description: '1-based page number' }),
  page_size: queryInt({ min: 1, max: 500, default: 50, description: 'rows per page' }),
  ...transactionFilters,
  ...transactionOrder,
});
export type TransactionListQuery = z.output<typeof TransactionListQuery>;
const TransactionPage = pageOf(LedgerRecord);

export const ImportSummary = z.object({
  import_id: z.string(),
  file_name: z.string(),
  file_sha256: z.string(),
  file_size: z.number().int(),
  format: z.string(),
  preset: z.string(),
  rows_total: z.number().int(),
  added: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  rejected: z.number().int(),
  started_at: z.number().int(),
  finished_at: z.number().int(),
  /** The wallet every row went to, for a file without a wallet_id column (null otherwise, and for imports recorded before it was kept). */
  wallet_id: z.string().nullable(),
  /** How the file was read (null for imports recorded before it was kept). */
  read_as: ReadAs.nullable(),
});
export type ImportSummary = z.infer<typeof ImportSummary>;
/** An import as the history lists it: its summary, and whether it was undone (when, and by whom), null while it stands. */
export const ImportListed = ImportSummary.extend({
  undone_at: z.number().int().nullable(),
  undone_by: z.string().nullable(),
});
export type ImportListed = z.infer<typeof ImportListed>;
export const ImportDetail = ImportListed.extend({ rejections: z.array(Rejection) });
export type ImportDetail = z.infer<typeof ImportDetail>;

/**
 * What undoing an import changes (import-undo-preview) or changed (import-undo): the records it
 * added are removed, the records it updated get their earlier version back, and the Pending
 * tickets of the removed records are dismissed. blocked_by: the later imports (not undone) that
 * changed records of this one; while there is one, the import cannot be undone (undo those first).
 */
export const ImportUndo = z.object({
  import_id: z.string(),
  file_name: z.string(),
  finished_at: z.number().int(),
  /** Records the import added, removed by the undo. */
  remove: z.number().int(),
  /** Records the import updated, put back as they were before it. */
  restore: z.number().int(),
  /** Pending tickets (any kind) on the records removed, dismissed by the undo. */
  tickets: z.number().int(),
  blocked_by: z.array(z.object({ import_id: z.string(), file_name: z.string() })),
  /** Set once undone (import-undo's answer). */
  undone_at: z.number().int().nullable(),
  undone_by: z.string().nullable(),
});
export type ImportUndo = z.infer<typeof ImportUndo>;
const ImportRef = z.object({ import_id: z.string().min(1) }).strict();

/** A page of the ledger in the native format's fields, in the order records were stored (`nps ledger export`). */
const LedgerExportQuery = z
  .object({
    wallet_id: blankIsAbsent(Uuid),
    chain_id: optionalText,
    token_id: optionalText,
    /** The cursor: the `next` of the page before (0 for the first page). */
    after: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(10_000).default(5000),
  })
  .strict();
export const LedgerExportPage = z.object({
  records: z.array(TransactionRecord),
  /** The cursor of the next page, or null after the last. */
  next: z.number().int().nullable(),
});
export type LedgerExportPage = z.infer<typeof LedgerExportPage>;

/** Sum of one token's records of one type under the ledger's filters, as exact decimal strings. */
export const TokenTotal = z.object({
  chain_id: z.string(),
  token_id: z.string(),
  type: LedgerType,
  /** Records whose amount and fee are summed. */
  count: z.number().int(),
  /** Failed withdrawals that reached the chain: their fee is in `fee`, their amount (which moved nothing) is not in `amount`. */
  fee_only: z.number().int(),
  amount: z.string(),
  fee: z.string(),
});
export type TokenTotal = z.infer<typeof TokenTotal>;
/** Statuses whose records moved no amount (docs/ledger.md, "Balances"): the totals leave them out unless the status filter names one. */
export const UNSUMMED_STATUSES = ['Failed', 'Rejected'] as const satisfies readonly LedgerStatus[];

/**
 * How failed records count, in words, the same on every screen and file that sums the ledger
 * (Ledger totals, Balances, the reconciliation report): the rule of docs/ledger.md, "Balances".
 */
export const FAILED_FEE_RULE =
  'a failed withdrawal that reached the chain (it has a hash) moved no amount but paid its fee, which counts; other failed and rejected records count nothing';

export const LedgerTotals = z.object({
  /** Every record the filters select (those left out of the sums too). */
  total: z.number().int(),
  /** Sums per chain_id, token_id and type of the records selected, less those left out. */
  totals: z.array(TokenTotal),
  /**
   * Records selected but not summed at all, per status (UNSUMMED_STATUSES; only those with
   * records): a Failed or Rejected record moved no amount, as balances count it (a failed withdrawal
   * that reached the chain is summed for its fee: `fee_only`). Empty when the status filter asks for
   * such records, which are then summed.
   */
  left_out: z.array(z.object({ status: LedgerStatus, count: z.number().int() })),
});
export type LedgerTotals = z.infer<typeof LedgerTotals>;

/** The most records one file export holds; more: narrow the filters, or `nps ledger export` (every record, streamed). */
export const MAX_EXPORT_RECORDS = 100_000;
const LedgerFileQuery = z.object({ ...transactionFilters, ...transactionOrder, format: ReportFormat }).strict();
export type LedgerFileQuery = z.output<typeof LedgerFileQuery>;

export const ledgerContract = {
  'ledger-export': { readOnly: true, input: LedgerExportQuery, output: LedgerExportPage },
  'ledger-detect': { readOnly: true, input: LedgerDetectRequest, output: LedgerDetectResult },
  'ledger-presets-list': { readOnly: true, input: z.object({}).strict(), output: z.array(LedgerPreset) },
  'ledger-preview': { input: LedgerImportRequest, output: ImportReport },
  'ledger-import': { input: LedgerImportRequest, output: ImportReport },
  'transactions-list': { readOnly: true, input: TransactionListQuery, output: TransactionPage },
  'transactions-totals': { readOnly: true, input: TransactionFilters.strict(), output: LedgerTotals },
  'ledger-export-file': { readOnly: true, input: LedgerFileQuery, output: ReportFile },
  'transaction-get': { readOnly: true, input: z.object({ transaction_id: z.string().min(1) }).strict(), output: LedgerRecord },
  'imports-list': {
    readOnly: true,
    input: z.object({
      page: queryInt({ min: 1, default: 1, description: '1-based page number' }),
      page_size: queryInt({ min: 1, max: 100, default: 20, description: 'items per page' }),
    }),
    output: pageOf(ImportListed),
  },
  'import-get': { readOnly: true, input: ImportRef, output: ImportDetail },
  'import-undo-preview': { readOnly: true, input: ImportRef, output: ImportUndo },
  'import-undo': { input: ImportRef, output: ImportUndo },
};
