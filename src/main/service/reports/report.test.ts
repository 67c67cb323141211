import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { LedgerRecord } from '../../../shared/ledger';
import { REPORT_GROUP_LABELS, REPORT_GROUPS, ReconcileReport, type ReportItem } from '../../../shared/reports';
import { writeReportCsv, writeReportXlsx } from './index';

const BIG = '123456789.123456789012345678'; // 27 significant digits: a float keeps 15-17
const T0 = Date.UTC(2024, 4, 1, 0, 0, 0);

const record = (n: number, patch: Partial<LedgerRecord> = {}): LedgerRecord => ({
  wallet_id: '0b1e8f9c-2f4a-4c38-9a59-5f0c1d2e3f40',
  type: 'Deposit',
  status: 'Completed',
  amount: '1.5',
  to: '0x00000000000000000000000000000000000000aa',
  fee_ratio: '',
  fee_fixed: '',
  fee: '0.000021',
  er: '',
  amount_actual: '1.5',
  hash: `0x${String(n).padStart(64, '0')}`,
  chain_id: 'ETH',
  token_id: 'ETH_ETH',
  created_at: T0 + n * 1000,
  confirmed_at: T0 + n * 1000 + 500,
  completed_at: null,
  transaction_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  request_id: '',
  import_id: null,
  updated_at: T0,
  movement: 0,
  ...patch,
});

const claim = (n: number, patch: Record<string, unknown> = {}) => ({
  transaction_id: record(n).transaction_id,
  chain_id: 'ETH',
  token_id: 'ETH_ETH',
  type: 'Deposit',
  amount: '1.5',
  time: (T0 + n * 1000) / 1000,
  ...patch,
});

const item = (patch: Partial<ReportItem>): ReportItem => ({
  books_row: null,
  claimed: null,
  record: null,
  note: '',
  ticket_id: null,
  explorer_tx_url: '',
  ...patch,
});

/** Every group represented; matched is cut at 2 of 3; one amount with 18 decimal places; hostile text in a claim. */
function sampleReport(): ReconcileReport {
  return ReconcileReport.parse({
    title: 'May 2024 close: Treasury',
    run_id: '01900000-0000-7000-8000-000000000001',
    books: 'books-may.csv',
    period_from: T0,
    period_to: Date.UTC(2024, 4, 31, 23, 59, 59, 999),
    wallets: [{ wallet_id: record(0).wallet_id, name: 'Treasury' }],
    summary: { matched: 3, mismatched: 1, not_in_ledger: 1, not_in_books: 1, duplicates: 1 },
    claims: 6,
    rejected_rows: 2,
    balances: [
      {
        wallet_id: record(0).wallet_id,
        wallet_name: 'Treasury',
        chain_id: 'ETH',
        token_id: 'ETH_ETH',
        opening: '10',
        inflow: BIG,
        outflow: '0.000000000000000001',
        fees: '0',
        closing: '123456799.123456789012345677',
        movements: 2,
      },
    ],
    open_exceptions: 4,
    run_by: 'Ana',
    run_at: T0 + 3_600_000,
    generated_by: 'Ana',
    generated_at: T0 + 7_200_000,
    groups: {
      matched: [
        item({
          books_row: 1,
          claimed: claim(1, { amount: BIG }),
          record: record(1, { amount: BIG }),
          explorer_tx_url: 'https://etherscan.io/tx/0x1',
        }),
        item({ books_row: 2, claimed: claim(2), record: record(2) }),
      ],
      mismatched: [
        item({
          books_row: 3,
          claimed: claim(3, { amount: '2', to: '=HYPERLINK("http://evil")' }),
          record: record(3),
          note: 'amount,to',
          ticket_id: '1001',
          explorer_tx_url: 'https://etherscan.io/tx/0x3',
        }),
      ],
      not_in_ledger: [item({ books_row: 4, claimed: claim(99, { hash: '+cmd|calc', amount: '-0.5' }), note: '', ticket_id: '1002' })],
      not_in_books: [
        item({
          record: record(5, { type: 'Withdrawal', amount: '-7' }),
          ticket_id: '1003',
          explorer_tx_url: 'https://etherscan.io/tx/0x5',
        }),
      ],
      duplicates: [item({ books_row: 6, claimed: claim(1), record: record(1), note: 'repeats books row 1', ticket_id: '1004' })],
    },
  });
}

async function readBack(buffer: Buffer): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buffer as unknown as ExcelJS.Buffer);
  return wb;
}

/** The header's column number of a field name (1-based). */
const columnOf = (ws: ExcelJS.Worksheet, header: string): number => {
  const values = ws.getRow(1).values as unknown[];
  const at = values.indexOf(header);
  expect(at, header).toBeGreaterThan(0);
  return at;
};

/** The Summary sheet's value (column B) beside a label (column A). */
const summaryValue = (ws: ExcelJS.Worksheet, label: string): unknown => {
  let found: unknown;
  ws.eachRow((row) => {
    if (row.getCell(1).value === label && found === undefined) found = row.getCell(2).value;
  });
  return found;
};

describe('writeReportXlsx', () => {
  it('opens with exceljs: the Summary sheet first, then one sheet per group with its items, the counts whole', async () => {
    const report = sampleReport();
    const wb = await readBack(await writeReportXlsx(report));
    expect(wb.worksheets.map((ws) => ws.name)).toEqual([
      'Summary',
      'Matched',
      'Mismatched',
      'Claimed, not in ledger',
      'In ledger, not in books',
      'Duplicate claims',
    ]);
    const summary = wb.getWorksheet('Summary')!;
    expect(summary.getCell('A1').value).toBe('May 2024 close: Treasury');
    for (const g of REPORT_GROUPS) expect(summaryValue(summary, REPORT_GROUP_LABELS[g])).toBe(report.summary[g]);
    expect(summaryValue(summary, 'Claims read')).toBe(6);
    expect(summaryValue(summary, 'Rows rejected')).toBe(2);
    expect(summaryValue(summary, 'Open exceptions')).toBe(4);
    expect(summaryValue(summary, 'Books file')).toBe('books-may.csv');
    expect(summaryValue(summary, 'Period from (UTC)')).toBe('2024-05-01T00:00:00.000Z');
    expect(summaryValue(summary, 'Period to (UTC)')).toBe('2024-05-31T23:59:59.999Z');
    expect(summaryValue(summary, 'Wallets')).toBe(`Treasury (${record(0).wallet_id})`);
    expect(summaryValue(summary, 'Run by')).toBe('Ana');
    expect(summaryValue(summary, 'Generated at (UTC)')).toBe('2024-05-01T02:00:00.000Z');
    for (const label of ['Prepared by', 'Reviewed by', 'Date']) expect(summaryValue(summary, label), label).toBeNull();
    // The balances table: amounts as the exact text.
    let balance: unknown[] | undefined;
    summary.eachRow((row) => {
      if (row.getCell(1).value === 'Treasury') balance = (row.values as unknown[]).slice(1);
    });
    expect(balance!.slice(1)).toEqual([
      record(0).wallet_id,
      'ETH',
      'ETH_ETH',
      '10',
      BIG,
      '0.000000000000000001',
      '0',
      '123456799.123456789012345677',
    ]);

    expect(wb.creator).toBe('Ana');
    expect(wb.created.toISOString()).toBe('2024-05-01T02:00:00.000Z');

    // Each group sheet: a header and one row per item; the cut group says so under its rows.
    const rowsOf = (name: string) => {
      const ws = wb.getWorksheet(name)!;
      const col = columnOf(ws, 'record.transaction_id');
      const claimCol = columnOf(ws, 'claim.transaction_id');
      let n = 0;
      ws.eachRow((row, i) => {
        if (i > 1 && (row.getCell(col).value || row.getCell(claimCol).value)) n++;
      });
      return n;
    };
    expect(rowsOf('Matched')).toBe(2);
    expect(rowsOf('Mismatched')).toBe(1);
    expect(rowsOf('Claimed, not in ledger')).toBe(1);
    expect(rowsOf('In ledger, not in books')).toBe(1);
    expect(rowsOf('Duplicate claims')).toBe(1);
    expect(wb.getWorksheet('Matched')!.getCell('A5').value).toBe(
      'Showing the first 2 of 3 items; the counts on the Summary sheet are whole.',
    );
    expect(wb.getWorksheet('Mismatched')!.getCell('A4').value).toBeNull();
  });

  it('keeps amounts as exact text, right-aligned; times as ISO 8601 UTC; the explorer link a hyperlink; the header frozen and filtered', async () => {
    const wb = await readBack(await writeReportXlsx(sampleReport()));
    const ws = wb.getWorksheet('Matched')!;
    const amount = ws.getCell(2, columnOf(ws, 'record.amount'));
    expect(amount.value).toBe(BIG);
    expect(amount.type).toBe(ExcelJS.ValueType.String);
    expect(amount.alignment?.horizontal).toBe('right');
    expect(ws.getCell(2, columnOf(ws, 'claim.amount')).value).toBe(BIG);
    expect(ws.getCell(2, columnOf(ws, 'record.created_at')).value).toBe('2024-05-01T00:00:01.000Z');
    expect(ws.getCell(2, columnOf(ws, 'record.confirmed_at')).value).toBe('2024-05-01T00:00:01.500Z');
    expect(ws.getCell(2, columnOf(ws, 'claim.time')).value).toBe('2024-05-01T00:00:01.000Z');
    expect(ws.getCell(2, columnOf(ws, 'record.completed_at')).value).toBeNull();
    expect(ws.getCell(2, columnOf(ws, 'books_row')).value).toBe(1);
    const link = ws.getCell(2, columnOf(ws, 'explorer_tx_url'));
    expect(link.type).toBe(ExcelJS.ValueType.Hyperlink);
    expect(link.hyperlink).toBe('https://etherscan.io/tx/0x1');
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.autoFilter).toBeTruthy();
    expect(ws.getColumn(columnOf(ws, 'record.amount')).width).toBeGreaterThanOrEqual(30);

    const mismatched = wb.getWorksheet('Mismatched')!;
    expect(mismatched.getCell(2, columnOf(mismatched, 'note')).value).toBe('amount,to');
    expect(mismatched.getCell(2, columnOf(mismatched, 'ticket_id')).value).toBe('1001');
    const dup = wb.getWorksheet('Duplicate claims')!;
    expect(dup.getCell(2, columnOf(dup, 'note')).value).toBe('repeats books row 1');
  });

  it('guards text a spreadsheet would run as a formula; a negative amount keeps its sign', async () => {
    const wb = await readBack(await writeReportXlsx(sampleReport()));
    const mismatched = wb.getWorksheet('Mismatched')!;
    const to = mismatched.getCell(2, columnOf(mismatched, 'claim.to'));
    expect(to.value).toBe(`'=HYPERLINK("http://evil")`);
    expect(to.type).toBe(ExcelJS.ValueType.String);
    const nil = wb.getWorksheet('Claimed, not in ledger')!;
    expect(nil.getCell(2, columnOf(nil, 'claim.hash')).value).toBe("'+cmd|calc");
    expect(nil.getCell(2, columnOf(nil, 'claim.amount')).value).toBe('-0.5');
    const nib = wb.getWorksheet('In ledger, not in books')!;
    expect(nib.getCell(2, columnOf(nib, 'record.amount')).value).toBe('-7');
  });
});

describe('writeReportCsv', () => {
  it('parses back with papaparse into the same rows: a group column, exact amounts, ISO times, guarded text', () => {
    const report = sampleReport();
    const text = writeReportCsv(report);
    const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields?.[0]).toBe('group');
    expect(parsed.data.map((r) => r.group)).toEqual(['matched', 'matched', 'mismatched', 'not_in_ledger', 'not_in_books', 'duplicates']);
    const [first, , mismatched, notInLedger, notInBooks, duplicate] = parsed.data;
    expect(first).toMatchObject({
      books_row: '1',
      'claim.amount': BIG,
      'record.amount': BIG,
      'record.created_at': '2024-05-01T00:00:01.000Z',
      'claim.time': '2024-05-01T00:00:01.000Z',
      'record.completed_at': '',
      explorer_tx_url: 'https://etherscan.io/tx/0x1',
    });
    expect(mismatched).toMatchObject({ note: 'amount,to', ticket_id: '1001', 'claim.to': `'=HYPERLINK("http://evil")` });
    expect(notInLedger).toMatchObject({ 'claim.hash': "'+cmd|calc", 'claim.amount': '-0.5', 'record.transaction_id': '' });
    expect(notInBooks).toMatchObject({ books_row: '', 'record.amount': '-7', 'record.type': 'Withdrawal', 'claim.transaction_id': '' });
    expect(duplicate!.note).toBe('repeats books row 1');
    expect(text.endsWith('\r\n')).toBe(true);
  });
});
