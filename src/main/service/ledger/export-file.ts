import {
  FAILED_FEE_RULE,
  MAX_EXPORT_RECORDS,
  RECORD_FIELDS,
  RECORD_TIME_FIELDS,
  type LedgerFileQuery,
  type LedgerRecord,
  type TokenTotal,
} from '../../../shared/ledger';
import type { ReportFile } from '../../../shared/reports';
import type { Db } from '../db/open';
import { invalidParam } from '../errors';
import { addTableSheet, APP_NAME, csvOf, CSV_MIME, isoUtc, streamedXlsx, textOf, XLSX_MIME, type TableColumn } from '../reports';
import { countTransactions, eachTransaction, sumTransactions, walletNames } from './repository';

/*
 * The Ledger screen's export: the records its filters select, in its sort, as CSV (one table) or
 * XLSX (the records, then their totals per token and type with the filters that chose them). The
 * cells are the report's (reports/): times ISO 8601 UTC, amounts as their exact decimal text.
 */

const AMOUNT_FIELDS = new Set<string>(['amount', 'fee_ratio', 'fee_fixed', 'fee', 'er', 'amount_actual']);
const TIME_FIELDS = new Set<string>(RECORD_TIME_FIELDS);

function recordColumns(names: Map<string, string>): TableColumn<LedgerRecord>[] {
  const columns: TableColumn<LedgerRecord>[] = RECORD_FIELDS.map((f) => ({
    key: f,
    header: f,
    width: AMOUNT_FIELDS.has(f) ? 30 : TIME_FIELDS.has(f) ? 25 : f === 'hash' ? 68 : f.endsWith('_id') || f === 'to' ? 40 : 14,
    kind: AMOUNT_FIELDS.has(f) ? 'amount' : TIME_FIELDS.has(f) ? 'time' : 'text',
    value: (r) => (TIME_FIELDS.has(f) ? isoUtc(r[f] as number | null) : textOf(r[f])),
  }));
  // The wallet's name beside its ID: what the accountant knows it by.
  const at = RECORD_FIELDS.indexOf('wallet_id') + 1;
  columns.splice(at, 0, { key: 'wallet_name', header: 'wallet_name', width: 24, kind: 'text', value: (r) => names.get(r.wallet_id) ?? '' });
  return columns;
}

const TOTAL_COLUMNS: TableColumn<TokenTotal>[] = [
  { key: 'chain_id', header: 'chain_id', width: 14, kind: 'text', value: (t) => t.chain_id },
  { key: 'token_id', header: 'token_id', width: 20, kind: 'text', value: (t) => t.token_id },
  { key: 'type', header: 'type', width: 12, kind: 'text', value: (t) => t.type },
  { key: 'count', header: 'records', width: 12, kind: 'count', value: (t) => t.count },
  { key: 'fee_only', header: 'fee_only', width: 12, kind: 'count', value: (t) => t.fee_only },
  { key: 'amount', header: 'amount', width: 34, kind: 'amount', value: (t) => t.amount },
  { key: 'fee', header: 'fee', width: 30, kind: 'amount', value: (t) => t.fee },
];

/** The filters in words, for the file's totals sheet ("all records" when none). */
function filtersText(query: LedgerFileQuery): string {
  const parts = (['wallet_id', 'chain_id', 'token_id', 'type', 'status', 'search'] as const)
    .filter((f) => query[f] !== undefined)
    .map((f) => `${f} = ${query[f]}`);
  if (query.from !== undefined) parts.push(`created_at >= ${isoUtc(query.from)}`);
  if (query.to !== undefined) parts.push(`created_at < ${isoUtc(query.to)}`);
  return `${parts.length ? parts.join(', ') : 'all records'}; sorted by ${query.sort} ${query.order === 'asc' ? 'ascending' : 'descending'}`;
}

/** "ledger-20240531-235959Z.xlsx": when, in UTC. */
const fileNameOf = (now: number, format: string): string =>
  `ledger-${new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace('T', '-')
    .replace(/\.\d+Z$/, 'Z')}.${format}`;

export async function exportLedgerFile(db: Db, query: LedgerFileQuery, now: number): Promise<ReportFile> {
  const count = countTransactions(db, query);
  if (count > MAX_EXPORT_RECORDS)
    throw invalidParam(
      'filters',
      `select at most ${MAX_EXPORT_RECORDS.toLocaleString('en-US')} records to export (these filters select ${count.toLocaleString('en-US')}); narrow them, or export the whole ledger with nps ledger export`,
    );
  const columns = recordColumns(walletNames(db));
  const file_name = fileNameOf(now, query.format);
  if (query.format === 'csv') {
    const text = csvOf(columns, eachTransaction(db, query));
    return { file_name, mime: CSV_MIME, base64: Buffer.from(text, 'utf8').toString('base64') };
  }
  const { totals, left_out } = sumTransactions(db, query);
  // The sums count failed records as balances do (FAILED_FEE_RULE): the sheet says so, and how many were left out.
  const leftOut =
    query.status === undefined
      ? ` The sums count by the rule of balances: ${FAILED_FEE_RULE} (fee_only: such withdrawals, their fee in fee).${
          left_out.length
            ? ` Left out of the sums: ${left_out.map((l) => `${l.count} ${l.status}`).join(', ')} record${left_out.reduce((n, l) => n + l.count, 0) === 1 ? '' : 's'}.`
            : ''
        }`
      : '';
  const bytes = await streamedXlsx(APP_NAME, new Date(now), (wb) => {
    wb.title = 'Ledger';
    wb.subject = filtersText(query);
    addTableSheet(wb, 'Ledger', columns, eachTransaction(db, query));
    addTableSheet(wb, 'Totals', TOTAL_COLUMNS, totals, `Filters: ${filtersText(query)}.${leftOut} Exported at ${isoUtc(now)}.`);
  });
  return { file_name, mime: XLSX_MIME, base64: bytes.toString('base64') };
}
