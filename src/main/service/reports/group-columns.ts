import { toPlainDecimal, numberText } from '../../../shared/primitives';
import type { ReconcileReport, ReportGroup, ReportItem } from '../../../shared/reports';
import { REPORT_GROUP_LABELS } from '../../../shared/reports';
import { decimalsFormat, isoOfClaimTime, isoUtc, numberHoldsDecimal, textOf, type TableColumn } from './cells';

/*
 * The columns of a group sheet (and of the CSV report, after its Group column), headed in words
 * for the auditor: where the claim came from (the books row and the books' own description), then
 * each field as the books claim it beside what the ledger records, then the finding, the exception
 * as it stands (who settled it, when, why) and the explorer link. Amounts are numbers in the
 * token's decimal places that a spreadsheet adds up, each with a column of its exact text beside
 * it, filled wherever a number cannot hold every digit.
 */

type Side = 'books' | 'ledger';

/** The compared fields in the order an auditor reads a line, each in words. */
const FIELDS = [
  ['type', 'Type'],
  ['status', 'Status'],
  ['chain_id', 'Chain'],
  ['token_id', 'Token'],
] as const;
const AMOUNTS = [
  ['amount', 'Amount'],
  ['fee', 'Fee'],
  ['amount_actual', 'Amount after fee'],
] as const;
const IDENTIFIERS = [
  ['to', 'To address', 44],
  ['hash', 'Hash', 68],
  ['transaction_id', 'Transaction ID', 38],
  ['request_id', 'Request ID', 24],
] as const;

/** The recorded moment a claim's time is compared with: its own time_type, else the run's. */
const TIME_FIELD = { Created: 'created_at', Confirmed: 'confirmed_at', Completed: 'completed_at' } as const;

/** A claimed or recorded value as cell text. */
function valueOf(item: ReportItem, side: Side, field: string): string {
  if (side === 'books') return textOf(item.claimed?.[field]);
  return item.record ? textOf(item.record[field as keyof typeof item.record]) : '';
}

/** An amount as a plain decimal, or undefined when the cell holds something else (kept as written in the exact column). */
function decimalOf(item: ReportItem, side: Side, field: string): { plain?: string; text: string } {
  const raw = side === 'books' ? item.claimed?.[field] : item.record?.[field as 'amount'];
  const digits = numberText(raw);
  const plain = digits === undefined ? undefined : toPlainDecimal(digits);
  return { plain, text: plain ?? textOf(raw) };
}

/** The token an amount is in, on this side (the other side's when this one does not say). */
function tokenOf(item: ReportItem, side: Side): string {
  const books = typeof item.claimed?.token_id === 'string' ? item.claimed.token_id : '';
  const ledger = item.record?.token_id ?? '';
  return side === 'ledger' ? ledger || books : books || ledger;
}

const sideWord = (side: Side) => (side === 'books' ? 'books' : 'ledger');

/** The group sheets' and the CSV's columns for this report (amounts formatted by its tokens' decimal places). */
export function groupColumns(report: Pick<ReconcileReport, 'token_decimals' | 'tolerances' | 'wallet_names'>): TableColumn<ReportItem>[] {
  const formatOf = (side: Side) => (item: ReportItem) => decimalsFormat(report.token_decimals[tokenOf(item, side)]);
  const pair = (field: string, words: string, width: number): TableColumn<ReportItem>[] =>
    (['books', 'ledger'] as const).map((side) => ({
      key: `${side}.${field}`,
      header: `${words} (${sideWord(side)})`,
      width,
      kind: 'text',
      value: (item) => valueOf(item, side, field),
    }));
  const amounts = (field: string, words: string): TableColumn<ReportItem>[] =>
    (['books', 'ledger'] as const).flatMap((side): TableColumn<ReportItem>[] => [
      {
        key: `${side}.${field}`,
        header: `${words} (${sideWord(side)})`,
        width: 22,
        kind: 'decimal',
        value: (item) => decimalOf(item, side, field).plain ?? '',
        format: formatOf(side),
      },
      {
        key: `${side}.${field}.exact`,
        header: `${words} (${sideWord(side)}), exact`,
        width: 30,
        kind: 'amount',
        value: (item) => {
          const { plain, text } = decimalOf(item, side, field);
          return plain === undefined ? text : numberHoldsDecimal(plain) ? '' : plain;
        },
      },
    ]);
  const ledgerTime = (item: ReportItem): string => {
    if (!item.record) return '';
    const claimedType = item.claimed?.time_type;
    const type = claimedType === 'Confirmed' || claimedType === 'Completed' ? claimedType : report.tolerances.time_type;
    return isoUtc(item.record[TIME_FIELD[type]]);
  };
  return [
    { key: 'books_row', header: 'Books row', width: 10, kind: 'count', value: (item) => item.books_row ?? '' },
    { key: 'description', header: 'Description (books)', width: 36, kind: 'text', value: (item) => item.description },
    {
      key: 'books.time',
      header: 'Time (books, UTC)',
      width: 25,
      kind: 'time',
      value: (item) => isoOfClaimTime(item.claimed?.time, item.claimed?.time_until),
    },
    { key: 'ledger.time', header: 'Time (ledger, UTC)', width: 25, kind: 'time', value: (item) => ledgerTime(item) },
    ...FIELDS.flatMap(([field, words]) => pair(field, words, field === 'token_id' ? 18 : 13)),
    ...AMOUNTS.flatMap(([field, words]) => amounts(field, words)),
    ...IDENTIFIERS.flatMap(([field, words, width]) => pair(field, words, width)),
    {
      key: 'wallet',
      header: 'Wallet (ledger)',
      width: 24,
      kind: 'text',
      value: (item) => (item.record ? report.wallet_names[item.record.wallet_id] || item.record.wallet_id : ''),
    },
    { key: 'finding', header: 'Finding', width: 40, kind: 'text', value: (item) => item.note },
    { key: 'exception', header: 'Exception ID', width: 38, kind: 'text', value: (item) => item.ticket_id ?? '' },
    { key: 'exception.status', header: 'Exception status', width: 16, kind: 'text', value: (item) => item.exception?.status ?? '' },
    { key: 'exception.by', header: 'Settled by', width: 22, kind: 'text', value: (item) => item.exception?.settled_by ?? '' },
    {
      key: 'exception.at',
      header: 'Settled at (UTC)',
      width: 25,
      kind: 'time',
      value: (item) => isoUtc(item.exception?.settled_at),
    },
    { key: 'exception.reason', header: 'Reason', width: 40, kind: 'text', value: (item) => item.exception?.reason ?? '' },
    { key: 'explorer', header: 'Explorer link', width: 60, kind: 'link', value: (item) => item.explorer_tx_url },
  ];
}

/** The group's name as the files write it (the CSV's Group column, the sheets' names). */
export const groupWords = (group: ReportGroup): string => REPORT_GROUP_LABELS[group];
