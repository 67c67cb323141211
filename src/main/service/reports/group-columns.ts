import type { LedgerRecord } from '../../../shared/ledger';
import type { ReportItem } from '../../../shared/reports';
import { isoOfClaimTime, isoUtc, textOf, type CellKind, type TableColumn } from './cells';

/*
 * The columns of a group sheet (and of the CSV report, after its `group` column): where the claim
 * came from, the claim's fields as the books gave them, the ledger record's, then what the service
 * says about the pair. Claim and record columns carry the source's field names after "claim." or
 * "record.", so an auditor reads one against the other.
 */

/** The verification request item's fields, in the source description's order (the books' native header). */
const CLAIM_FIELDS = [
  'request_id',
  'transaction_id',
  'hash',
  'chain_id',
  'token_id',
  'to',
  'type',
  'amount',
  'fee',
  'amount_actual',
  'status',
  'time',
] as const;

const RECORD_FIELDS_SHOWN = [
  'transaction_id',
  'wallet_id',
  'hash',
  'chain_id',
  'token_id',
  'to',
  'type',
  'status',
  'amount',
  'fee',
  'amount_actual',
  'created_at',
  'confirmed_at',
  'completed_at',
] as const satisfies readonly (keyof LedgerRecord)[];

const AMOUNTS = new Set<string>(['amount', 'fee', 'amount_actual']);
const TIMES = new Set<string>(['created_at', 'confirmed_at', 'completed_at']);

const kindOf = (field: string): CellKind => (AMOUNTS.has(field) ? 'amount' : TIMES.has(field) || field === 'time' ? 'time' : 'text');

/** Widths in characters: an 18-decimal amount, an ISO time, a UUID, a 0x hash. */
const widthOf = (field: string): number =>
  AMOUNTS.has(field)
    ? 30
    : TIMES.has(field) || field === 'time'
      ? 25
      : field === 'hash'
        ? 68
        : field === 'transaction_id' || field === 'wallet_id'
          ? 38
          : field === 'to'
            ? 44
            : 14;

const claimColumns: TableColumn<ReportItem>[] = CLAIM_FIELDS.map((f) => ({
  key: `claim.${f}`,
  header: `claim.${f}`,
  width: widthOf(f),
  kind: kindOf(f),
  value: (item) => (f === 'time' ? isoOfClaimTime(item.claimed?.[f]) : textOf(item.claimed?.[f])),
}));

const recordColumns: TableColumn<ReportItem>[] = RECORD_FIELDS_SHOWN.map((f) => ({
  key: `record.${f}`,
  header: `record.${f}`,
  width: widthOf(f),
  kind: kindOf(f),
  value: (item) => {
    if (!item.record) return '';
    return TIMES.has(f) ? isoUtc(item.record[f] as number | null) : textOf(item.record[f]);
  },
}));

export const GROUP_COLUMNS: readonly TableColumn<ReportItem>[] = [
  { key: 'books_row', header: 'books_row', width: 10, kind: 'count', value: (item) => item.books_row ?? '' },
  ...claimColumns,
  ...recordColumns,
  { key: 'note', header: 'note', width: 40, kind: 'text', value: (item) => item.note },
  { key: 'ticket_id', header: 'ticket_id', width: 38, kind: 'text', value: (item) => item.ticket_id ?? '' },
  { key: 'explorer_tx_url', header: 'explorer_tx_url', width: 60, kind: 'link', value: (item) => item.explorer_tx_url },
];
