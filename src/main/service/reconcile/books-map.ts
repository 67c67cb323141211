import {
  FLAG_FIELDS,
  IDENTIFIER_FIELDS,
  isItemIssue,
  readVerifyItem,
  type BooksMapping,
  type VerifyItem,
  type TimeType,
  type VerifyField,
} from '../../../shared/reconcile';
import { offsetMinutes, readTime } from '../ledger/dates';
import { CellError, readDecimal } from '../ledger/values';
import { invalidParam } from '../errors';

/*
 * The accountant's books, row by row, into claims: pure functions, so the mapping rules are
 * tested without files or a store.
 */

export interface BooksOptions {
  mapping: BooksMapping;
  amount_delta?: string;
  time_type?: TimeType;
  time_delta?: number;
}

export type BooksRowOutcome = { item: VerifyItem; claimed: Record<string, unknown> } | { field: string; reason: string };

const FIELDS: readonly VerifyField[] = [...IDENTIFIER_FIELDS, ...FLAG_FIELDS];
const AMOUNT_FIELDS = new Set<VerifyField>(['amount', 'fee', 'amount_actual']);

/**
 * A reader of one books row (cells keyed by header). A mapped column missing from the file is an
 * error of the whole run (1002 naming it); a row that cannot become a claim is reported with the
 * column (or field) at fault.
 */
export function compileBooksRow(
  headers: readonly string[],
  opts: BooksOptions,
): (row: Record<string, string | undefined>) => BooksRowOutcome {
  const { mapping } = opts;
  const known = new Set(headers);
  for (const [field, column] of Object.entries(mapping.columns)) {
    if (column !== undefined && !known.has(column)) {
      throw invalidParam(
        `mapping.columns.${field}`,
        `no column ${JSON.stringify(column)} in the file (it has ${headers.map((h) => JSON.stringify(h)).join(', ')})`,
      );
    }
  }
  const offset = offsetMinutes(mapping.utc_offset);
  const numberFormat = { decimal_separator: '.' as const, thousands_separator: mapping.thousands_separator };
  const labelOf = (field: VerifyField) => mapping.columns[field] ?? `constants.${field}`;

  return (row) => {
    const claimed: Record<string, unknown> = {};
    for (const field of FIELDS) {
      const column = mapping.columns[field];
      const cell = column === undefined ? '' : (row[column] ?? '').trim();
      const text = cell !== '' ? cell : (mapping.constants[field] ?? '').trim();
      if (text === '') continue;
      if (AMOUNT_FIELDS.has(field)) {
        const plain = readDecimal(text, numberFormat);
        if (plain instanceof CellError) return { field: labelOf(field), reason: plain.reason };
        claimed[field] = plain;
      } else if (field === 'time') {
        const ms = readTime(text, 'auto', offset);
        if (ms instanceof CellError) return { field: labelOf(field), reason: ms.reason };
        claimed.time = Math.floor(ms / 1000);
      } else {
        claimed[field] = text;
      }
    }
    if (opts.amount_delta !== undefined) claimed.amount_delta = opts.amount_delta;
    if (opts.time_type !== undefined) claimed.time_type = opts.time_type;
    if (opts.time_delta !== undefined) claimed.time_delta = opts.time_delta;
    const item = readVerifyItem(claimed);
    if (!isItemIssue(item)) return { item, claimed };
    const field = item.path[0];
    return {
      field: field !== undefined && (FIELDS as readonly string[]).includes(field) ? labelOf(field as VerifyField) : '(row)',
      reason: item.message,
    };
  };
}

/** Common names of books columns, normalised (lower case, letters and digits only). */
const SYNONYMS: Record<VerifyField, readonly string[]> = {
  transaction_id: ['transactionid', 'txid', 'transaction', 'id'],
  request_id: ['requestid', 'reference', 'ref', 'orderid', 'externalid', 'clientid'],
  hash: ['hash', 'txhash', 'transactionhash', 'txnhash', 'tx'],
  chain_id: ['chainid', 'chain', 'network', 'blockchain'],
  token_id: ['tokenid', 'token', 'asset', 'currency', 'coin', 'symbol'],
  to: ['to', 'toaddress', 'recipient', 'destination', 'address', 'receiver'],
  type: ['type', 'direction', 'kind', 'side'],
  status: ['status', 'state'],
  amount: ['amount', 'value', 'quantity', 'grossamount', 'gross'],
  fee: ['fee', 'fees', 'txnfee', 'networkfee', 'gasfee'],
  amount_actual: ['amountactual', 'actualamount', 'netamount', 'net', 'received', 'amountreceived'],
  time: ['time', 'timestamp', 'date', 'datetime', 'createdat', 'created', 'dateutc', 'datetimeutc', 'time(utc)'],
};

const normal = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A first guess at a mapping: each field takes the first column named like it. */
export function suggestBooksMapping(headers: readonly string[]): BooksMapping {
  const columns: Partial<Record<VerifyField, string>> = {};
  const taken = new Set<string>();
  for (const field of FIELDS) {
    const names = SYNONYMS[field].map(normal);
    for (const name of names) {
      const hit = headers.find((h) => !taken.has(h) && normal(h) === name);
      if (hit !== undefined) {
        columns[field] = hit;
        taken.add(hit);
        break;
      }
    }
  }
  return { columns, constants: {}, thousands_separator: '', utc_offset: '+00:00' };
}
