import { DateTime } from 'luxon';
import { LEDGER_STATUSES, LEDGER_TYPES, type LedgerType } from '../../../shared/ledger';
import {
  BOOKS_PAIR_FIELDS,
  BOOKS_TRANSLATED_FIELDS,
  FLAG_FIELDS,
  IDENTIFIER_FIELDS,
  isItemIssue,
  readVerifyItem,
  type BooksColumnField,
  type BooksMapping,
  type BooksNeed,
  type BooksReadAs,
  type BooksSource,
  type BooksTranslatedField,
  type VerifyItem,
  type TimeType,
  type VerifyField,
} from '../../../shared/reconcile';
import { compileTimeReader, detectDateOrder } from '../ledger/dates';
import { compileDecimalReader, detectDecimalSeparator } from '../ledger/numbers';
import { contradicts, ORDER_WORDS, SEPARATOR_WORDS } from '../ledger/values';
import { readZone } from '../ledger/period';
import { CellError } from '../ledger/values';
import { invalidParam } from '../errors';
import { EXTRA_CELLS, openBooks } from './books-head';

/*
 * The accountant's books, row by row, into claims: pure functions (but for reading the head of a
 * run's file), so the mapping rules are tested without a store. Books come in many shapes: one
 * amount and a type column; an In/Out (debit/credit) pair whose non-zero side is the amount and
 * says the type; a signed amount whose sign says it; words of their own ("Receive") translated to
 * the claim's; dates day-first or month-first; decimal commas. What the mapping leaves to the file
 * (decimal separator, date order) is decided from its first rows, as the ledger import decides it
 * (ledger/numbers.ts, ledger/dates.ts), and a file that cannot tell must be told.
 */

/** A books token cell (a token id or a currency symbol) as the catalogue token it names on the row's chain, or why not. */
export type TokenResolver = (value: string, chainId: string | undefined) => string | CellError;

export interface BooksOptions {
  mapping: BooksMapping;
  /** Reads the token column's ids and symbols against the catalogue; without one the cells are taken as token ids. */
  resolveToken?: TokenResolver;
  amount_delta?: string;
  time_type?: TimeType;
  time_delta?: number;
  /** The file a run reads: its first rows decide what the mapping leaves to the file. */
  source?: BooksSource;
}

/** A claim, or why the row cannot be one: the column(s) or field at fault, the reason, the cell as written. */
export type BooksRowOutcome = { item: VerifyItem; claimed: Record<string, unknown> } | { field: string; reason: string; value: string };

/**
 * A row with cells past the header's width that hold something (the reader keeps them under
 * EXTRA_CELLS) is refused, never read by position: it is what a file gives when a cell holds an
 * unquoted separator, and reading it would book the wrong cells. Empty extra cells (a trailing
 * comma) are harmless and dropped by the reader.
 */
function extraCells(row: Record<string, unknown>): { field: string; reason: string; value: string } | null {
  const extra = row[EXTRA_CELLS];
  if (!Array.isArray(extra) || extra.every((c) => String(c ?? '').trim() === '')) return null;
  return {
    field: '(row)',
    reason: `has ${extra.length} more cell${extra.length === 1 ? '' : 's'} than the header: a cell holds an unquoted separator (or the header lacks a column)`,
    value: extra
      .map((c) => String(c ?? ''))
      .join(', ')
      .slice(0, 200),
  };
}

/**
 * Books name a token by its catalogue id (ETH_USDC) or by its currency symbol (USDC, ETH). A symbol
 * is the token of that symbol on the row's chain (its chain_id), else on the wallet's chains, when
 * exactly one fits; several, or none, refuse the row saying which, never a guess and never a
 * mismatch. `walletChains` is asked once, when a symbol first needs it.
 */
export function compileTokenResolver(
  tokens: readonly { token_id: string; chain_id: string; symbol: string }[],
  walletChains: () => readonly string[],
): TokenResolver {
  const byId = new Map(tokens.map((t) => [t.token_id.toLowerCase(), t]));
  const bySymbol = new Map<string, (typeof tokens)[number][]>();
  for (const t of tokens) {
    const k = t.symbol.toLowerCase();
    bySymbol.set(k, [...(bySymbol.get(k) ?? []), t]);
  }
  let chains: readonly string[] | undefined;
  return (value, chainId) => {
    const k = value.trim().toLowerCase();
    const on = chainId !== undefined ? [chainId] : (chains ??= walletChains());
    const id = byId.get(k);
    if (id !== undefined && (on.length === 0 || on.includes(id.chain_id))) return id.token_id;
    const all = bySymbol.get(k) ?? [];
    const fits = on.length === 0 ? all : all.filter((t) => on.includes(t.chain_id));
    if (fits.length === 1) return fits[0]!.token_id;
    const translate = `translate it to one in the mapping (mapping.translations.token_id)`;
    if (fits.length > 1)
      return new CellError(
        `${q(value)} is the symbol of ${fits.length} tokens (${fits.map((t) => `${t.token_id} on ${t.chain_id}`).join(', ')}): give the chain (a chain column, or the wallet), or ${translate}`,
      );
    // A token id of another chain than the wallet's: named outright, so taken as named.
    if (id !== undefined) return id.token_id;
    const where = on.length ? ` on ${on.join(', ')}` : '';
    return new CellError(
      `unknown token: ${q(value)} is neither a token id nor the symbol of a token${where} in the catalogue; add the token to the catalogue, or ${translate}`,
    );
  };
}

const GAS_WHY = 'the row has a fee and no amount: the gas of its transaction, a Withdrawal of 0 as the ledger books it';

/**
 * A time cell that gives a date alone: no time of day (no "10:21", no "3 pm"), or a whole Excel
 * serial day. Unix seconds and milliseconds are moments.
 */
export function isDateOnly(cell: string): boolean {
  const t = cell.trim();
  if (/^\d+$/.test(t)) return Number(t) < 100_000;
  if (/^\d+[.,]\d+$/.test(t)) return false;
  return !/\d:\d/.test(t) && !/\d\s*[ap]\.?m\.?(?![a-z])/i.test(t);
}

/** The first moment (Unix ms) of the day after the one `ms` falls in, in the zone. */
function nextDay(ms: number, zone: string): number {
  return DateTime.fromMillis(ms, { zone }).plus({ days: 1 }).startOf('day').toMillis();
}

/** The rows that decide the decimal separator and the date order (all of them when the file is shorter). */
export const DECIDING_ROWS = 1000;

const FIELDS: readonly VerifyField[] = [...IDENTIFIER_FIELDS, ...FLAG_FIELDS];
const AMOUNT_FIELDS = new Set<VerifyField>(['amount', 'fee', 'amount_actual']);
const AMOUNT_COLUMNS: readonly BooksColumnField[] = ['amount', 'fee', 'amount_actual', ...BOOKS_PAIR_FIELDS];
const TRANSLATED = new Set<string>(BOOKS_TRANSLATED_FIELDS);
const WORDS: Partial<Record<VerifyField, readonly string[]>> = { type: LEDGER_TYPES, status: LEDGER_STATUSES };
const DECIMAL_HINT = 'choose the decimal separator (mapping.decimal_separator "." or ",")';

const q = (s: string) => JSON.stringify(s);
const isZero = (plain: string) => plain === '0';
const key = (value: string) => value.trim().toLowerCase();

interface Problem {
  field: string;
  reason: string;
}

/** How a mapping reads a file: what the file decided, what it leaves to be chosen, and what cannot be read at all. */
export interface BooksPlan {
  read_as: BooksReadAs;
  needs: BooksNeed[];
  problems: Problem[];
}

/** The mapping's own checks against the file's header: each a whole-file problem naming the mapping's field. */
function mappingProblems(headers: readonly string[], mapping: BooksMapping): Problem[] {
  const problems: Problem[] = [];
  const known = new Set(headers);
  for (const [field, column] of Object.entries(mapping.columns)) {
    if (column !== undefined && !known.has(column)) {
      problems.push({
        field: `mapping.columns.${field}`,
        reason: `no column ${q(column)} in the file (it has ${headers.map(q).join(', ')})`,
      });
    }
  }
  const { amount_in, amount_out, amount } = mapping.columns;
  if ((amount_in === undefined) !== (amount_out === undefined)) {
    const missing = amount_in === undefined ? 'amount_in' : 'amount_out';
    problems.push({
      field: `mapping.columns.${missing}`,
      reason: 'an In/Out pair needs both columns: amount_in (Deposit) and amount_out (Withdrawal)',
    });
  }
  if (amount_in !== undefined && amount_in === amount_out)
    problems.push({ field: 'mapping.columns.amount_out', reason: `is the same column as amount_in (${q(amount_in)})` });
  if (amount_in !== undefined && amount !== undefined)
    problems.push({
      field: 'mapping.columns.amount',
      reason: 'the In/Out pair gives the amount: map either amount or amount_in and amount_out',
    });
  if (mapping.amount_sign !== undefined && amount === undefined)
    problems.push({ field: 'mapping.amount_sign', reason: 'a signed amount needs the amount column (mapping.columns.amount)' });
  if (mapping.time_zone !== undefined) {
    try {
      readZone(mapping.time_zone, 'mapping.time_zone');
    } catch (err) {
      problems.push({ field: 'mapping.time_zone', reason: (err as Error).message.replace(/^mapping\.time_zone: /, '') });
    }
  }
  const decimal = mapping.decimal_separator ?? '.';
  if (decimal !== 'auto' && decimal === mapping.thousands_separator)
    problems.push({ field: 'mapping.thousands_separator', reason: `is the decimal separator too (${q(decimal)}): they must differ` });
  for (const [field, table] of Object.entries(mapping.translations ?? {})) {
    const words = WORDS[field as VerifyField];
    for (const [from, to] of Object.entries(table ?? {})) {
      if (words !== undefined && !words.some((w) => w.toLowerCase() === key(to)))
        problems.push({
          field: `mapping.translations.${field}`,
          reason: `${q(from)} -> ${q(to)}: ${q(to)} is not a ${field} (${words.join(', ')})`,
        });
    }
  }
  return problems;
}

/** Cells of the mapped columns in the rows. */
function* cellsOf(rows: readonly Record<string, string>[], columns: readonly (string | undefined)[]): Generator<string> {
  for (const row of rows) for (const c of columns) if (c !== undefined && row[c]) yield row[c]!;
}

/**
 * How the mapping reads this file: its decimal separator and date order, from the mapping when it
 * states them, else from the file's first rows (`rows`); what those rows cannot tell is a need,
 * rows that disagree are a problem, as are the mapping's own faults.
 */
export function planBooks(headers: readonly string[], mapping: BooksMapping, rows: readonly Record<string, string>[]): BooksPlan {
  const problems = mappingProblems(headers, mapping);
  const needs: BooksNeed[] = [];
  const times = [...cellsOf(rows, [mapping.columns.time])];
  const read_as: BooksReadAs = {
    decimal_separator: null,
    date_order: null,
    dates_only: times.length > 0 && times.every(isDateOnly),
    tokens: {},
  };

  const decimal = mapping.decimal_separator ?? '.';
  const foundSeparator = detectDecimalSeparator(
    cellsOf(
      rows,
      AMOUNT_COLUMNS.map((f) => mapping.columns[f]),
    ),
  );
  if (decimal !== 'auto') {
    read_as.decimal_separator = decimal;
    // Stated against what the file's amounts show: its other amounts would be read wrong ("1.035" as 1.035 among "0,5").
    const contradiction = contradicts(decimal, foundSeparator.separator, foundSeparator, SEPARATOR_WORDS);
    if (contradiction) problems.push({ field: 'mapping.decimal_separator', reason: contradiction });
  } else {
    const found = foundSeparator;
    if (found.conflict)
      problems.push({
        field: 'mapping.decimal_separator',
        reason: `the amounts disagree on the decimal separator (${q(found.examples[0]!)} has a point, ${q(found.examples[1]!)} a comma)`,
      });
    else if (found.separator !== null) read_as.decimal_separator = found.separator;
    else if (found.examples.length)
      needs.push({
        field: 'mapping.decimal_separator',
        options: ['.', ','],
        reason: `amounts like ${found.examples.map(q).join(', ')} can be read with a decimal point or a decimal comma, and no amount in the first rows tells which: choose the decimal separator`,
      });
  }

  const order = mapping.date_order ?? 'auto';
  const foundOrder = detectDateOrder(cellsOf(rows, [mapping.columns.time]));
  if (order !== 'auto') {
    read_as.date_order = order;
    const contradiction = contradicts(order, foundOrder.order, foundOrder, ORDER_WORDS);
    if (contradiction) problems.push({ field: 'mapping.date_order', reason: contradiction });
  } else {
    const found = foundOrder;
    if (found.conflict)
      problems.push({
        field: 'mapping.date_order',
        reason: `the dates disagree on the order of day and month (${found.examples.map(q).join(', ')})`,
      });
    else if (found.order !== null) read_as.date_order = found.order;
    else if (found.examples.length)
      needs.push({
        field: 'mapping.date_order',
        options: ['day_first', 'month_first'],
        reason: `dates like ${found.examples.map(q).join(', ')} can be day first or month first, and no date in the first rows tells which: choose the date order`,
      });
  }
  return { read_as, needs, problems };
}

/**
 * A reader of one books row (cells keyed by header) for a run. The mapping's faults, and what the
 * file leaves to be chosen, refuse the whole run before anything is stored (1002 naming the
 * mapping's field); a row that cannot become a claim is reported with the column at fault.
 */
export function compileBooksRow(
  headers: readonly string[],
  opts: BooksOptions,
): (row: Record<string, string | undefined>) => BooksRowOutcome {
  const rows = opts.source !== undefined ? openBooks(opts.source, DECIDING_ROWS).rows : [];
  const plan = planBooks(headers, opts.mapping, rows);
  const first = plan.problems[0] ?? plan.needs[0];
  if (first !== undefined) throw invalidParam(first.field, first.reason);
  return readBooksRow(headers, opts, plan.read_as);
}

/** A guess at what a books word means, for the hint of an error: "Receive" is probably a Deposit. */
const GUESSES: Record<'type' | 'status', readonly [RegExp, string][]> = {
  type: [
    [/^(in|incoming|inbound|receive[ds]?|receiving|deposit(s|ed)?|credit(ed)?|top.?up|buy|bought|inflow|transfer.?in)$/, 'Deposit'],
    [
      /^(out|outgoing|outbound|sen[dt]|sending|withdraw(al|n|als)?|debit(ed)?|payout|pay|paid|sell|sold|outflow|transfer.?out)$/,
      'Withdrawal',
    ],
  ],
  status: [
    [/^(success(ful)?|succeeded|ok|done|complete|confirmed|settled|finished|final)$/, 'Completed'],
    [/^(fail|error|errored|reverted|dropped)$/, 'Failed'],
    [/^(processing|in.?progress|submitted|queued|waiting|new|created|unconfirmed)$/, 'Pending'],
    [/^(cancell?ed|declined|refused|rejection)$/, 'Rejected'],
  ],
};

function guessWord(field: 'type' | 'status', value: string): string | undefined {
  const k = key(value);
  return GUESSES[field].find(([re]) => re.test(k))?.[1];
}

type Translator = (text: string) => string;

function translatorsOf(mapping: BooksMapping): Partial<Record<BooksTranslatedField, Translator>> {
  const out: Partial<Record<BooksTranslatedField, Translator>> = {};
  for (const [field, table] of Object.entries(mapping.translations ?? {})) {
    const byKey = new Map(Object.entries(table ?? {}).map(([from, to]) => [key(from), to.trim()]));
    if (byKey.size) out[field as BooksTranslatedField] = (text) => byKey.get(key(text)) ?? text;
  }
  return out;
}

/** Why a word cell is not one of its field's words, with the translation that would read it. */
function wordReason(field: 'type' | 'status', value: string, column: string): string {
  const words = WORDS[field]!;
  const guess = guessWord(field, value);
  const fix = guess
    ? `add the translation ${q(value)} -> ${guess} (mapping.translations.${field})`
    : `add a translation of ${q(value)} to one of them (mapping.translations.${field})`;
  return `${q(value)} in ${column} is not a ${field} (${words.join(', ')}): ${fix}`;
}

/** The reader of a planned mapping: the plan's decisions are taken as made (nothing is checked against the header). */
export function readBooksRow(
  headers: readonly string[],
  opts: BooksOptions,
  readAs: BooksReadAs,
): (row: Record<string, string | undefined>) => BooksRowOutcome {
  const { mapping } = opts;
  const columns = mapping.columns;
  const readTime = compileTimeReader({
    format: 'auto',
    order: readAs.date_order ?? 'auto',
    utc_offset: mapping.utc_offset,
    ...(mapping.time_zone !== undefined ? { time_zone: readZone(mapping.time_zone, 'mapping.time_zone') } : {}),
  });
  const zone = mapping.time_zone ?? (mapping.utc_offset === '+00:00' ? 'UTC' : `UTC${mapping.utc_offset}`);
  const thousands = mapping.thousands_separator;
  const readNumber = compileDecimalReader(
    { decimal_separator: readAs.decimal_separator ?? 'auto', thousands_separator: thousands === '_' ? '' : thousands },
    DECIMAL_HINT,
  );
  // The number reader knows no underscore: one between groups of three digits goes before it reads.
  const readAmount = thousands === '_' ? (cell: string) => readNumber(cell.replace(/(?<=\d)_(?=\d{3}(?:\D|$))/g, '')) : readNumber;
  const translate = translatorsOf(mapping);
  const wordOf = Object.fromEntries(
    Object.entries(WORDS).map(([f, words]) => [f, new Map(words.map((w) => [w.toLowerCase(), w]))]),
  ) as Record<'type' | 'status', Map<string, string>>;
  const pair =
    columns.amount_in !== undefined && columns.amount_out !== undefined ? { in: columns.amount_in, out: columns.amount_out } : null;
  const sign = mapping.amount_sign;

  return (row) => {
    const extra = extraCells(row);
    if (extra !== null) return extra;
    const claimed: Record<string, unknown> = {};
    const label: Partial<Record<VerifyField, string>> = {};
    const raw: Partial<Record<VerifyField, string>> = {};
    /** The type the amount's layout says (pair or sign), and where it says it. */
    let direction: { type: LedgerType; column: string; why: string } | undefined;
    let signedZero: { field: string; reason: string; value: string } | undefined;
    for (const field of FIELDS) {
      const column = columns[field];
      const cell = column === undefined ? '' : (row[column] ?? '').trim();
      const fromCell = cell !== '';
      const written = fromCell ? cell : (mapping.constants[field] ?? '').trim();
      if (written === '') continue;
      const where = fromCell ? `column ${q(column!)}` : `constants.${field}`;
      label[field] = fromCell ? column! : `constants.${field}`;
      raw[field] = written;
      const fail = (reason: string) => ({ field: label[field]!, reason, value: written });
      const text = TRANSLATED.has(field) ? (translate[field as BooksTranslatedField]?.(written) ?? written) : written;
      if (AMOUNT_FIELDS.has(field)) {
        const plain = readAmount(text);
        if (plain instanceof CellError) return fail(plain.reason);
        if (field === 'amount' && sign !== undefined) {
          if (isZero(plain)) {
            // Zero with a fee is a gas line (the fee is read below); zero alone says nothing.
            signedZero = fail(`${q(written)} is zero: a signed amount's sign says the type, and zero has none`);
            claimed.amount = '0';
            continue;
          }
          const negative = plain.startsWith('-');
          const deposit = negative !== (sign === 'positive_deposit');
          direction = {
            type: deposit ? 'Deposit' : 'Withdrawal',
            column: label[field]!,
            why: `${q(written)} in ${where} is ${negative ? 'negative' : 'positive'} (a ${deposit ? 'Deposit' : 'Withdrawal'})`,
          };
          claimed.amount = negative ? plain.slice(1) : plain;
        } else claimed[field] = plain;
      } else if (field === 'time') {
        const ms = readTime(text);
        if (ms instanceof CellError) return fail(ms.reason);
        claimed.time = Math.floor(Number(ms) / 1000);
        // A date alone claims the whole day in the books' zone, not its first second.
        if (isDateOnly(text)) claimed.time_until = nextDay(Number(ms), zone) / 1000;
      } else if (field === 'type' || field === 'status') {
        const word = wordOf[field].get(key(text));
        if (word === undefined) return fail(wordReason(field, written, where));
        claimed[field] = word;
      } else if (field === 'token_id' && opts.resolveToken !== undefined) {
        const token = opts.resolveToken(text, claimed.chain_id as string | undefined);
        if (token instanceof CellError) return fail(token.reason);
        claimed.token_id = token;
      } else {
        claimed[field] = text;
      }
    }
    const fee = claimed.fee as string | undefined;
    const paysFee = fee !== undefined && !isZero(fee.replace(/^-/, ''));
    if (signedZero !== undefined && !paysFee) return signedZero;
    if (pair !== null) {
      const read = readPair(row, pair, readAmount);
      if ('reason' in read) {
        if (!(paysFee && read.noAmount)) return read;
        // In and Out empty (or zero), a fee: the gas of the row's transaction, as the ledger books it.
        claimed.amount = '0';
        direction = { type: 'Withdrawal', column: label.fee!, why: GAS_WHY };
      } else {
        claimed.amount = read.amount;
        direction = read.direction;
      }
    } else if (paysFee && (claimed.amount === undefined || isZero(claimed.amount as string))) {
      claimed.amount = '0';
      direction = { type: 'Withdrawal', column: label.fee!, why: GAS_WHY };
    }
    if (direction !== undefined) {
      if (claimed.type !== undefined && claimed.type !== direction.type) {
        return {
          field: label.type!,
          reason: `says ${claimed.type as string}, but ${direction.why}`,
          value: raw.type!,
        };
      }
      claimed.type = direction.type;
      label.type = direction.column;
    }
    // Kept with the claim's stored text as the books wrote it; readVerifyItem reads no such field, so it is never compared.
    const description = columns.description === undefined ? '' : (row[columns.description] ?? '').trim();
    if (description !== '') claimed.description = description;
    if (opts.amount_delta !== undefined) claimed.amount_delta = opts.amount_delta;
    if (opts.time_type !== undefined) claimed.time_type = opts.time_type;
    if (opts.time_delta !== undefined) claimed.time_delta = opts.time_delta;
    const item = readVerifyItem(claimed);
    if (!isItemIssue(item)) {
      if (claimed.time_until !== undefined) item.time_until = claimed.time_until as number;
      return { item, claimed };
    }
    const field = item.path[0] as VerifyField | undefined;
    return {
      field: field !== undefined ? (label[field] ?? columns[field] ?? `constants.${field}`) : '(row)',
      reason: item.message,
      value: field !== undefined ? (raw[field] ?? '') : '',
    };
  };
}

/**
 * An In/Out pair: the non-zero side is the amount, In a Deposit, Out a Withdrawal. A minus sign is
 * taken in the Out column (banks write money out as -50.00) and refused in the In column, where it
 * would mean money out written as money in.
 */
function readPair(
  row: Record<string, string | undefined>,
  pair: { in: string; out: string },
  readAmount: (cell: string) => string | CellError,
):
  | { amount: string; direction: { type: LedgerType; column: string; why: string } }
  | { field: string; reason: string; value: string; noAmount?: true } {
  const both = `${pair.in} / ${pair.out}`;
  const sides: { column: string; written: string; plain: string }[] = [];
  for (const column of [pair.in, pair.out]) {
    const written = (row[column] ?? '').trim();
    if (written === '') continue;
    const plain = readAmount(written);
    if (plain instanceof CellError) return { field: column, reason: plain.reason, value: written };
    if (plain.startsWith('-') && column === pair.in)
      return {
        field: column,
        reason: `${q(written)} is negative: the In column holds money received; money out goes in ${q(pair.out)}`,
        value: written,
      };
    if (!isZero(plain)) sides.push({ column, written, plain: plain.replace(/^-/, '') });
  }
  const cells = `${q((row[pair.in] ?? '').trim())} / ${q((row[pair.out] ?? '').trim())}`;
  if (sides.length === 2)
    return {
      field: both,
      reason: `both ${q(pair.in)} and ${q(pair.out)} have an amount: a row is money in or money out, not both`,
      value: cells,
    };
  if (sides.length === 0)
    return {
      field: both,
      reason: `neither ${q(pair.in)} nor ${q(pair.out)} has an amount other than zero (nor is there a fee, which would make it a gas line)`,
      value: cells,
      noAmount: true,
    };
  const side = sides[0]!;
  const deposit = side.column === pair.in;
  return {
    amount: side.plain,
    direction: {
      type: deposit ? 'Deposit' : 'Withdrawal',
      column: side.column,
      why: `the amount is in ${q(side.column)} (${deposit ? 'In: a Deposit' : 'Out: a Withdrawal'})`,
    },
  };
}

/** A claim as the preview shows it: the compared fields as read, the time as ISO 8601 UTC. */
export function claimOf(item: VerifyItem): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const f of FIELDS) {
    const v = item[f];
    if (v === undefined) continue;
    out[f] = f === 'time' ? timeOf(item) : v;
  }
  return out;
}

/**
 * A claim's time for a person: the moment as ISO 8601 UTC, or a day as its date. The date is the
 * UTC date of the day's middle, which is the books' own date in any zone within twelve hours of UTC.
 */
function timeOf(item: VerifyItem): string {
  if (item.time_until === undefined) return new Date(item.time! * 1000).toISOString().replace('.000Z', 'Z');
  return `${new Date(((item.time! + item.time_until) / 2) * 1000).toISOString().slice(0, 10)} (all day)`;
}

/** Common names of books columns, normalised (lower case, letters and digits only). */
const SYNONYMS: Record<VerifyField, readonly string[]> = {
  transaction_id: ['transactionid', 'txid', 'transaction', 'id'],
  request_id: ['requestid', 'reference', 'ref', 'orderid', 'externalid', 'clientid'],
  hash: ['hash', 'txhash', 'transactionhash', 'txnhash', 'tx'],
  chain_id: ['chainid', 'chain', 'network', 'blockchain'],
  token_id: ['tokenid', 'token', 'asset', 'currency', 'coin', 'symbol'],
  to: ['to', 'toaddress', 'recipient', 'destination', 'address', 'receiver'],
  type: ['type', 'direction', 'kind', 'side', 'transactiontype', 'txtype'],
  status: ['status', 'state'],
  amount: ['amount', 'value', 'quantity', 'grossamount', 'gross'],
  fee: ['fee', 'fees', 'txnfee', 'networkfee', 'gasfee'],
  amount_actual: ['amountactual', 'actualamount', 'netamount', 'net', 'received', 'amountreceived'],
  time: ['time', 'timestamp', 'date', 'datetime', 'createdat', 'created', 'dateutc', 'datetimeutc', 'time(utc)'],
};

/**
 * In/Out pairs as books name them: [money in, money out]. In an accountant's books the wallet is an
 * asset account, so a debit is money in and a credit money out (a bank's own statement says it the
 * other way: swap the columns in the mapping).
 */
const PAIRS: readonly [string, string][] = [
  ['in', 'out'],
  ['amountin', 'amountout'],
  ['moneyin', 'moneyout'],
  ['paidin', 'paidout'],
  ['received', 'sent'],
  ['receive', 'send'],
  ['amountreceived', 'amountsent'],
  ['incoming', 'outgoing'],
  ['inflow', 'outflow'],
  ['deposit', 'withdrawal'],
  ['deposits', 'withdrawals'],
  ['debit', 'credit'],
  ['debitamount', 'creditamount'],
  ['dr', 'cr'],
];

/** How books name their own words for a line, normalised as SYNONYMS are. */
const DESCRIPTIONS = [
  'description',
  'memo',
  'narrative',
  'note',
  'notes',
  'details',
  'particulars',
  'comment',
  'comments',
  'reference text',
].map((n) => n.replace(/[^a-z0-9]/g, ''));

/** Amount columns that carry their sign as the direction. */
const SIGNED = ['amountsigned', 'signedamount', 'netchange', 'change', 'amountchange', 'balancechange'];

const normal = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * A first guess at a mapping: an In/Out pair when the file has one, a signed amount column when
 * it is named so, then each field takes the first column named like it; translations for the type
 * and status words of the first rows that are not the claim's own; the decimal separator and date
 * order left to the file.
 */
export function suggestBooksMapping(headers: readonly string[], rows: readonly Record<string, string>[] = []): BooksMapping {
  const columns: Partial<Record<BooksColumnField, string>> = {};
  const taken = new Set<string>();
  const find = (name: string) => headers.find((h) => !taken.has(h) && normal(h) === name);
  for (const [inName, outName] of PAIRS) {
    const a = find(inName);
    const b = find(outName);
    if (a !== undefined && b !== undefined) {
      columns.amount_in = a;
      columns.amount_out = b;
      taken.add(a).add(b);
      break;
    }
  }
  let amountSign: BooksMapping['amount_sign'];
  if (columns.amount_in === undefined) {
    const signed = SIGNED.map(find).find((h) => h !== undefined);
    if (signed !== undefined) {
      columns.amount = signed;
      taken.add(signed);
      amountSign = 'positive_deposit';
    }
  }
  for (const field of FIELDS) {
    if (field === 'amount' && (columns.amount !== undefined || columns.amount_in !== undefined)) continue;
    for (const name of SYNONYMS[field].map(normal)) {
      const hit = find(name);
      if (hit !== undefined) {
        columns[field] = hit;
        taken.add(hit);
        break;
      }
    }
  }
  const description = DESCRIPTIONS.map(find).find((h) => h !== undefined);
  if (description !== undefined) columns.description = description;
  const translations: NonNullable<BooksMapping['translations']> = {};
  for (const field of ['type', 'status'] as const) {
    const column = columns[field];
    if (column === undefined) continue;
    const words = new Set(WORDS[field]!.map((w) => w.toLowerCase()));
    const table: Record<string, string> = {};
    for (const r of rows) {
      const v = (r[column] ?? '').trim();
      if (v === '' || words.has(v.toLowerCase()) || v in table) continue;
      const guess = guessWord(field, v);
      if (guess !== undefined) table[v] = guess;
    }
    if (Object.keys(table).length) translations[field] = table;
  }
  return {
    columns,
    constants: {},
    ...(amountSign !== undefined ? { amount_sign: amountSign } : {}),
    ...(Object.keys(translations).length ? { translations } : {}),
    decimal_separator: 'auto',
    thousands_separator: 'auto',
    date_order: 'auto',
    utc_offset: '+00:00',
  };
}
