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
  description: '',
  claimed: null,
  record: null,
  note: '',
  ticket_id: null,
  exception: null,
  explorer_tx_url: '',
  ...patch,
});

const DISMISSED = { status: 'Dismissed' as const, settled_by: 'Ana', settled_at: T0 + 5_400_000, reason: 'booked in June' };

/** Every group represented; matched is cut at 2 of 3; one amount with 27 significant digits; hostile text in a claim. */
function sampleReport(): ReconcileReport {
  return ReconcileReport.parse({
    title: 'May 2024 close: Treasury',
    run_id: '01900000-0000-7000-8000-000000000001',
    books: 'books-may.csv',
    books_file: { name: 'books-may.csv', sha256: 'ab'.repeat(32), sha256_of: 'file' },
    period_from: T0,
    period_to: Date.UTC(2024, 4, 31, 23, 59, 59, 999),
    time_zone: 'Europe/Berlin',
    tolerances: { amount_delta: '0.001', time_delta: 10, time_type: 'Created' },
    wallets: [{ wallet_id: record(0).wallet_id, name: 'Treasury' }],
    summary: { matched: 3, mismatched: 1, not_in_ledger: 1, not_in_books: 1, duplicates: 1 },
    claims: 6,
    rejected_rows: 2,
    rejected: [
      { row: 7, field: 'Amount', reason: '"1.2.3" is not a number' },
      { row: 9, field: '(row)', reason: 'needs at least one of request_id, transaction_id, hash' },
    ],
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
    open_exceptions: 3,
    exceptions: { pending: 3, resolved: 0, dismissed: 1 },
    token_decimals: { ETH_ETH: 18 },
    wallet_names: { [record(0).wallet_id]: 'Treasury' },
    run_by: 'Ana',
    run_at: T0 + 3_600_000,
    generated_by: 'Ana',
    generated_at: T0 + 7_200_000,
    groups: {
      matched: [
        item({
          books_row: 1,
          description: 'Customer deposit, invoice 1041',
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
          note: 'Differs in to address, amount',
          ticket_id: '1001',
          exception: { status: 'Pending', settled_by: '', settled_at: null, reason: '' },
          explorer_tx_url: 'https://etherscan.io/tx/0x3',
        }),
      ],
      not_in_ledger: [
        item({
          books_row: 4,
          claimed: claim(99, { hash: '+cmd|calc', amount: '-0.5' }),
          note: 'No record in the ledger',
          ticket_id: '1002',
          exception: DISMISSED,
        }),
      ],
      not_in_books: [
        item({
          record: record(5, { type: 'Withdrawal', amount: '-7' }),
          note: 'No claim in the books',
          ticket_id: '1003',
          exception: { status: 'Pending', settled_by: '', settled_at: null, reason: '' },
          explorer_tx_url: 'https://etherscan.io/tx/0x5',
        }),
      ],
      duplicates: [item({ books_row: 6, claimed: claim(1), record: record(1), note: 'Repeats books row 1', ticket_id: '1004' })],
    },
  });
}

async function readBack(buffer: Buffer): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buffer as unknown as ExcelJS.Buffer);
  return wb;
}

/** The header's column number of a header (1-based). */
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
  it('opens with exceljs: the Summary sheet first, one sheet per group with its items, then the rejected books rows; the counts whole', async () => {
    const report = sampleReport();
    const wb = await readBack(await writeReportXlsx(report));
    expect(wb.worksheets.map((ws) => ws.name)).toEqual([
      'Summary',
      'Matched',
      'Mismatched',
      'Not in ledger',
      'Not in books',
      'Duplicate',
      'Rejected books rows',
    ]);
    const summary = wb.getWorksheet('Summary')!;
    expect(summary.getCell('A1').value).toBe('May 2024 close: Treasury');
    for (const g of REPORT_GROUPS) expect(summaryValue(summary, REPORT_GROUP_LABELS[g])).toBe(report.summary[g]);
    expect(summaryValue(summary, 'Claims read')).toBe(6);
    expect(summaryValue(summary, 'Rows rejected')).toBe(2);
    expect(summaryValue(summary, 'Open exceptions')).toBe(3);
    expect(summaryValue(summary, 'Dismissed')).toBe(1);
    expect(summaryValue(summary, 'Books file')).toBe('books-may.csv');
    expect(summaryValue(summary, 'Books file SHA-256')).toBe('ab'.repeat(32));
    expect(summaryValue(summary, 'Period from (UTC)')).toBe('2024-05-01T00:00:00.000Z');
    expect(summaryValue(summary, 'Period to (UTC)')).toBe('2024-05-31T23:59:59.999Z');
    expect(summaryValue(summary, 'Time zone')).toBe('Europe/Berlin');
    expect(summaryValue(summary, 'Amount tolerance')).toBe('0.001');
    expect(summaryValue(summary, 'Time tolerance (seconds)')).toBe(10);
    expect(summaryValue(summary, 'Time compared with')).toBe("the ledger's created time (Created)");
    expect(summaryValue(summary, 'Wallets')).toBe(`Treasury (${record(0).wallet_id})`);
    expect(summaryValue(summary, 'Run by')).toBe('Ana');
    expect(summaryValue(summary, 'Generated at (UTC)')).toBe('2024-05-01T02:00:00.000Z');
    for (const label of ['Prepared by', 'Reviewed by', 'Date']) expect(summaryValue(summary, label), label).toBeNull();
    // The balances: numbers in the token's places, and the exact text beside those a number cannot hold.
    let balance: unknown[] | undefined;
    let balanceRow: ExcelJS.Row | undefined;
    summary.eachRow((row) => {
      if (row.getCell(1).value === 'Treasury') {
        balance = (row.values as unknown[]).slice(1);
        balanceRow = row;
      }
    });
    expect(balance).toEqual([
      'Treasury',
      record(0).wallet_id,
      'ETH',
      'ETH_ETH',
      10,
      Number(BIG),
      1e-18,
      0,
      Number('123456799.123456789012345677'),
      undefined,
      BIG,
      undefined,
      undefined,
      '123456799.123456789012345677',
    ]);
    expect(balanceRow!.getCell(5).numFmt).toBe(`#,##0.${'0'.repeat(18)}`);
    expect(wb.creator).toBe('Ana');
    expect(wb.created.toISOString()).toBe('2024-05-01T02:00:00.000Z');

    // Each group sheet: a header and one row per item; the cut group says so under its rows.
    const rowsOf = (name: string) => wb.getWorksheet(name)!.actualRowCount - 1;
    expect(rowsOf('Mismatched')).toBe(1);
    expect(rowsOf('Not in ledger')).toBe(1);
    expect(rowsOf('Not in books')).toBe(1);
    expect(rowsOf('Duplicate')).toBe(1);
    expect(wb.getWorksheet('Matched')!.getCell('A5').value).toBe(
      'Showing the first 2 of 3 items; the counts on the Summary sheet are whole.',
    );
    expect(wb.getWorksheet('Mismatched')!.getCell('A4').value).toBeNull();
    const rejected = wb.getWorksheet('Rejected books rows')!;
    expect(rejected.getRow(1).values).toEqual([undefined, 'Books row', 'Column', 'Reason']);
    expect(rejected.getRow(2).values).toEqual([undefined, 7, 'Amount', '"1.2.3" is not a number']);
    expect(rejected.getRow(3).getCell(1).value).toBe(9);
  });

  it('puts claimed and recorded values side by side under headers in words; amounts as numbers in the token’s places, exact text beside', async () => {
    const wb = await readBack(await writeReportXlsx(sampleReport()));
    const ws = wb.getWorksheet('Matched')!;
    const head = (ws.getRow(1).values as unknown[]).slice(1) as string[];
    expect(head.slice(0, 8)).toEqual([
      'Books row',
      'Description (books)',
      'Time (books, UTC)',
      'Time (ledger, UTC)',
      'Type (books)',
      'Type (ledger)',
      'Status (books)',
      'Status (ledger)',
    ]);
    expect(head.every((h) => !/[._]/.test(h.replace('SHA-256', '')))).toBe(true);
    expect(head).toEqual(expect.arrayContaining(['Amount (books)', 'Amount (books), exact', 'Amount (ledger)', 'Amount (ledger), exact']));
    expect(head.indexOf('Amount (ledger)')).toBe(head.indexOf('Amount (books), exact') + 1);
    // 27 significant digits: the number is rounded, so its exact text stands beside it.
    const amount = ws.getCell(2, columnOf(ws, 'Amount (ledger)'));
    expect(amount.type).toBe(ExcelJS.ValueType.Number);
    expect(amount.value).toBe(Number(BIG));
    expect(amount.numFmt).toBe(`#,##0.${'0'.repeat(18)}`);
    expect(ws.getCell(2, columnOf(ws, 'Amount (ledger), exact')).value).toBe(BIG);
    expect(ws.getCell(2, columnOf(ws, 'Amount (books), exact')).value).toBe(BIG);
    // 1.5 needs no exact text: the number holds it.
    expect(ws.getCell(3, columnOf(ws, 'Amount (books)')).value).toBe(1.5);
    expect(ws.getCell(3, columnOf(ws, 'Amount (books), exact')).value).toBeNull();
    expect(ws.getCell(3, columnOf(ws, 'Fee (ledger)')).value).toBe(0.000021);
    expect(ws.getCell(2, columnOf(ws, 'Description (books)')).value).toBe('Customer deposit, invoice 1041');
    expect(ws.getCell(2, columnOf(ws, 'Time (ledger, UTC)')).value).toBe('2024-05-01T00:00:01.000Z');
    expect(ws.getCell(2, columnOf(ws, 'Time (books, UTC)')).value).toBe('2024-05-01T00:00:01.000Z');
    expect(ws.getCell(2, columnOf(ws, 'Books row')).value).toBe(1);
    expect(ws.getCell(2, columnOf(ws, 'Wallet (ledger)')).value).toBe('Treasury');
    const link = ws.getCell(2, columnOf(ws, 'Explorer link'));
    expect(link.type).toBe(ExcelJS.ValueType.Hyperlink);
    expect(link.hyperlink).toBe('https://etherscan.io/tx/0x1');
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.autoFilter).toBeTruthy();
    const mismatched = wb.getWorksheet('Mismatched')!;
    expect(mismatched.getCell(2, columnOf(mismatched, 'Finding')).value).toBe('Differs in to address, amount');
    expect(mismatched.getCell(2, columnOf(mismatched, 'Exception ID')).value).toBe('1001');
    expect(mismatched.getCell(2, columnOf(mismatched, 'Exception status')).value).toBe('Pending');
    // A dismissed exception: who, when and why.
    const nil = wb.getWorksheet('Not in ledger')!;
    expect(nil.getCell(2, columnOf(nil, 'Exception status')).value).toBe('Dismissed');
    expect(nil.getCell(2, columnOf(nil, 'Settled by')).value).toBe('Ana');
    expect(nil.getCell(2, columnOf(nil, 'Settled at (UTC)')).value).toBe('2024-05-01T01:30:00.000Z');
    expect(nil.getCell(2, columnOf(nil, 'Reason')).value).toBe('booked in June');
    const dup = wb.getWorksheet('Duplicate')!;
    expect(dup.getCell(2, columnOf(dup, 'Finding')).value).toBe('Repeats books row 1');
  });

  it('guards text a spreadsheet would run as a formula; a negative amount keeps its sign', async () => {
    const wb = await readBack(await writeReportXlsx(sampleReport()));
    const mismatched = wb.getWorksheet('Mismatched')!;
    const to = mismatched.getCell(2, columnOf(mismatched, 'To address (books)'));
    expect(to.value).toBe(`'=HYPERLINK("http://evil")`);
    expect(to.type).toBe(ExcelJS.ValueType.String);
    const nil = wb.getWorksheet('Not in ledger')!;
    expect(nil.getCell(2, columnOf(nil, 'Hash (books)')).value).toBe("'+cmd|calc");
    expect(nil.getCell(2, columnOf(nil, 'Amount (books)')).value).toBe(-0.5);
    const nib = wb.getWorksheet('Not in books')!;
    expect(nib.getCell(2, columnOf(nib, 'Amount (ledger)')).value).toBe(-7);
  });
});

describe('writeReportCsv', () => {
  it('parses back with papaparse: the workbook’s columns after a Group column, exact amounts, the rejected rows last', () => {
    const report = sampleReport();
    const text = writeReportCsv(report);
    const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields?.[0]).toBe('Group');
    expect(parsed.data.map((r) => r.Group)).toEqual([
      'Matched',
      'Matched',
      'Mismatched',
      'Not in ledger',
      'Not in books',
      'Duplicate',
      'Rejected books row',
      'Rejected books row',
    ]);
    const [first, , mismatched, notInLedger, notInBooks, duplicate, rejected] = parsed.data;
    expect(first).toMatchObject({
      'Books row': '1',
      'Description (books)': 'Customer deposit, invoice 1041',
      'Amount (books)': BIG,
      'Amount (books), exact': BIG,
      'Amount (ledger)': BIG,
      'Time (ledger, UTC)': '2024-05-01T00:00:01.000Z',
      'Time (books, UTC)': '2024-05-01T00:00:01.000Z',
      'Explorer link': 'https://etherscan.io/tx/0x1',
    });
    expect(mismatched).toMatchObject({
      Finding: 'Differs in to address, amount',
      'Exception ID': '1001',
      'To address (books)': `'=HYPERLINK("http://evil")`,
    });
    expect(notInLedger).toMatchObject({
      'Hash (books)': "'+cmd|calc",
      'Amount (books)': '-0.5',
      'Amount (books), exact': '',
      'Transaction ID (ledger)': '',
      'Exception status': 'Dismissed',
      'Settled by': 'Ana',
      Reason: 'booked in June',
    });
    expect(notInBooks).toMatchObject({
      'Books row': '',
      'Amount (ledger)': '-7',
      'Type (ledger)': 'Withdrawal',
      'Transaction ID (books)': '',
    });
    expect(duplicate!.Finding).toBe('Repeats books row 1');
    expect(rejected).toMatchObject({ 'Books row': '7', Finding: 'Not read: Amount: "1.2.3" is not a number' });
    expect(text.endsWith('\r\n')).toBe(true);
  });
});
