import Big from 'big.js';
import ExcelJS from 'exceljs';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_GROUP_LABELS, REPORT_GROUPS } from '../../../shared/reports';
import { evmHash, good, text, W } from '../ledger/native-rows.test-support';
import { tempService } from '../test-support';

/*
 * The auditor's workbook of a month worked to the end: books with a description of each line and
 * two rows that cannot be read, reconciled both ways, the records the books leave out dismissed
 * together with a reason, then the report read back with exceljs (and the CSV with papaparse), as
 * the auditor's spreadsheet reads it.
 */

const ui = { actor: 'ui' as const };
const at = (day: number) => Date.UTC(2026, 0, day, 10);
const time = (day: number) => new Date(at(day)).toISOString().replace('T', ' ').slice(0, 19);
const usdt = { chain_id: 'ETH', token_id: 'ETH_USDT' };
const eth = { chain_id: 'ETH', token_id: 'ETH' };

const LEDGER = [
  good(1, { ...usdt, amount: '1500.25', created_at: String(at(2)) }),
  good(2, { ...usdt, amount: '0.1', created_at: String(at(3)) }),
  good(3, { ...usdt, amount: '0.2', created_at: String(at(4)) }),
  // Nineteen significant digits: more than a spreadsheet's number holds.
  good(4, { ...eth, amount: '0.449205855000000001', created_at: String(at(5)) }),
  good(5, { ...usdt, type: 'Withdrawal', amount: '250', fee: '1', created_at: String(at(6)) }),
  // Nobody booked these two.
  good(6, { ...usdt, amount: '42', created_at: String(at(7)) }),
  good(7, { ...usdt, amount: '7', created_at: String(at(8)) }),
];

const BOOKS = [
  'Date,Tx Hash,Memo,Type,Currency,Amount',
  `${time(2)},${evmHash(1)},"Customer deposit, invoice 1041",Deposit,ETH_USDT,1500.25`,
  `${time(3)},${evmHash(2)},Interest,Deposit,ETH_USDT,0.1`,
  `${time(4)},${evmHash(3)},Interest,Deposit,ETH_USDT,0.2`,
  `${time(5)},${evmHash(4)},Gas top-up,Deposit,ETH,0.449205855000000001`,
  `${time(6)},${evmHash(5)},Supplier payment,Withdrawal,ETH_USDT,250.5`,
  `${time(9)},${evmHash(9)},Unknown transfer,Deposit,ETH_USDT,99`,
  `${time(3)},${evmHash(2)},Interest (booked twice),Deposit,ETH_USDT,0.1`,
  `${time(10)},${evmHash(10)},Typo,Deposit,ETH_USDT,1.2.3`,
  `${time(11)},,No hash,Deposit,ETH_USDT,5`,
].join('\r\n');

describe("the auditor's workbook", () => {
  const svc = tempService();
  afterAll(() => svc.close());
  let runId: string;
  let books: string;

  beforeAll(async () => {
    await svc.invoke('app-user-set', { name: 'Grace Hopper' }, ui);
    const imported = await svc.invoke('ledger-import', { source: text(LEDGER) }, ui);
    expect(imported.rejected, JSON.stringify(imported.rejections)).toBe(0);
    books = join(svc.dataDir, 'books-2026-01.csv');
    writeFileSync(books, `\uFEFF${BOOKS}\r\n`);
    // The Memo column is proposed as the lines' description.
    const detected = await svc.invoke('reconcile-books-detect', { source: { path: books } }, ui);
    expect(detected.suggested.columns).toMatchObject({ description: 'Memo', hash: 'Tx Hash', amount: 'Amount' });
    const run = await svc.invoke(
      'reconcile-books-run',
      {
        source: { path: books },
        mapping: {
          columns: { time: 'Date', hash: 'Tx Hash', description: 'Memo', type: 'Type', token_id: 'Currency', amount: 'Amount' },
        },
        wallet_id: W,
        from: '2026-01-01',
        to: '2026-01-31',
      },
      ui,
    );
    expect(run).toMatchObject({ matched: 4, mismatched: 1, not_found: 1, duplicates: 1, not_in_books: 2, rejected_count: 2 });
    runId = run.run_id;
    // The records the books leave out, dismissed together with one reason.
    const open = await svc.invoke('tickets-list', { kind: 'not_in_books', status: 'Pending', page_size: 50 }, ui);
    expect(open.total).toBe(2);
    await svc.invoke(
      'tickets-transition',
      { ticket_ids: open.list.map((t) => t.ticket_id), to: 'Dismissed', note: 'Booked in February (journal 2026-02-03)' },
      ui,
    );
  });

  const workbook = async () => {
    const file = await svc.invoke('run-report-file', { run_id: runId, format: 'xlsx' }, ui);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(file.base64, 'base64') as unknown as ExcelJS.Buffer);
    return wb;
  };

  /** A sheet's rows under its header, keyed by header. */
  const rowsOf = (ws: ExcelJS.Worksheet): Record<string, ExcelJS.Cell>[] => {
    const head = (ws.getRow(1).values as unknown[]).slice(1) as string[];
    const out: Record<string, ExcelJS.Cell>[] = [];
    ws.eachRow((row, n) => {
      if (n > 1) out.push(Object.fromEntries(head.map((h, i) => [h, row.getCell(i + 1)])));
    });
    return out;
  };

  it('names the books file by its name and SHA-256, with the period, zone, tolerances, exceptions by status and rejected rows', async () => {
    const wb = await workbook();
    expect(wb.worksheets.map((ws) => ws.name)).toEqual([
      'Summary',
      ...REPORT_GROUPS.map((g) => REPORT_GROUP_LABELS[g]),
      'Rejected books rows',
    ]);
    const summary = new Map<unknown, unknown>();
    wb.getWorksheet('Summary')!.eachRow((row) => summary.set(row.getCell(1).value, row.getCell(2).value));
    const { readFileSync } = await import('node:fs');
    expect(summary.get('Books file')).toBe('books-2026-01.csv');
    expect(summary.get('Books file SHA-256')).toBe(createHash('sha256').update(readFileSync(books)).digest('hex'));
    expect(summary.get('Period from (UTC)')).toBe('2026-01-01T00:00:00.000Z');
    expect(summary.get('Time zone')).toBe('UTC');
    expect(summary.get('Amount tolerance')).toBe('0.001');
    expect(summary.get('Time tolerance (seconds)')).toBe(10);
    expect(summary.get('Rows rejected')).toBe(2);
    // The report is made after the exceptions were worked: it shows them as they stand.
    expect(summary.get('Open exceptions')).toBe(3);
    expect(summary.get('Dismissed')).toBe(2);
    expect(summary.get('Run by')).toBe('Grace Hopper');

    const rejected = rowsOf(wb.getWorksheet('Rejected books rows')!);
    expect(rejected.map((r) => [r['Books row']!.value, r.Column!.value])).toEqual([
      [8, 'Amount'],
      [9, '(row)'],
    ]);
    expect(String(rejected[0]!.Reason!.value)).toContain('1.2.3');
    expect(String(rejected[1]!.Reason!.value)).toMatch(/needs at least one of request_id, transaction_id, hash/);
  });

  it('group sheets: headers in words, descriptions, amounts a SUM adds up with the exact text beside, each exception’s state', async () => {
    const wb = await workbook();
    for (const g of REPORT_GROUPS) {
      const head = (wb.getWorksheet(REPORT_GROUP_LABELS[g])!.getRow(1).values as unknown[]).slice(1) as string[];
      // Words, not API paths such as claim.amount or record.created_at.
      for (const h of head) expect(h, h).not.toMatch(/\.|_/);
    }
    const matched = rowsOf(wb.getWorksheet('Matched')!);
    expect(matched.map((r) => r['Description (books)']!.value)).toEqual([
      'Customer deposit, invoice 1041',
      'Interest',
      'Interest',
      'Gas top-up',
    ]);
    // Every amount is a number; the USDT ones add up to the exact total, as a spreadsheet's SUM shows it (15 digits).
    for (const r of matched) {
      expect(r['Amount (books)']!.type).toBe(ExcelJS.ValueType.Number);
      expect(r['Amount (ledger)']!.type).toBe(ExcelJS.ValueType.Number);
    }
    const usdtRows = matched.filter((r) => r['Token (ledger)']!.value === 'ETH_USDT');
    const sum = usdtRows.reduce((s, r) => s + (r['Amount (ledger)']!.value as number), 0);
    expect(new Big(sum.toPrecision(15)).eq('1500.55')).toBe(true);
    expect(usdtRows[0]!['Amount (ledger)']!.numFmt).toBe('#,##0.000000');
    expect(usdtRows.every((r) => r['Amount (ledger), exact']!.value === null)).toBe(true);
    // The ETH amount has more digits than a number holds: its exact text stands beside it.
    const ether = matched.find((r) => r['Token (ledger)']!.value === 'ETH')!;
    expect(ether['Amount (ledger)']!.value).toBe(0.449205855);
    expect(ether['Amount (ledger), exact']!.value).toBe('0.449205855000000001');
    expect(ether['Amount (books), exact']!.value).toBe('0.449205855000000001');
    expect(ether['Explorer link']!.hyperlink).toBe(`https://etherscan.io/tx/${evmHash(4)}`);
    expect(ether['Books row']!.value).toBe(4);

    const mismatched = rowsOf(wb.getWorksheet('Mismatched')!);
    expect(mismatched).toHaveLength(1);
    expect(mismatched[0]!['Amount (books)']!.value).toBe(250.5);
    expect(mismatched[0]!['Amount (ledger)']!.value).toBe(250);
    expect(mismatched[0]!.Finding!.value).toBe('Differs in amount');
    expect(mismatched[0]!['Exception status']!.value).toBe('Pending');
    expect(mismatched[0]!['Settled by']!.value).toBeNull();

    const notInBooks = rowsOf(wb.getWorksheet('Not in books')!);
    expect(notInBooks.map((r) => r['Amount (ledger)']!.value).sort()).toEqual([42, 7]);
    for (const r of notInBooks) {
      expect(r['Exception status']!.value).toBe('Dismissed');
      expect(r['Settled by']!.value).toBe('Grace Hopper');
      expect(r.Reason!.value).toBe('Booked in February (journal 2026-02-03)');
      expect(r['Settled at (UTC)']!.value).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    }
    const duplicates = rowsOf(wb.getWorksheet('Duplicate')!);
    expect(duplicates.map((r) => [r['Books row']!.value, r['Description (books)']!.value, r.Finding!.value])).toEqual([
      [7, 'Interest (booked twice)', 'Repeats books row 2'],
    ]);
  });

  it('the CSV carries the same columns, the exact amounts and the same states', async () => {
    const wb = await workbook();
    const file = await svc.invoke('run-report-file', { run_id: runId, format: 'csv' }, ui);
    const parsed = Papa.parse<Record<string, string>>(Buffer.from(file.base64, 'base64').toString('utf8'), {
      header: true,
      skipEmptyLines: true,
    });
    expect(parsed.errors).toEqual([]);
    const sheetHead = (wb.getWorksheet('Matched')!.getRow(1).values as unknown[]).slice(1);
    expect(parsed.meta.fields).toEqual(['Group', ...sheetHead]);
    const of = (group: string) => parsed.data.filter((r) => r.Group === group);
    expect(of('Matched').map((r) => r['Amount (ledger)'])).toEqual(['1500.25', '0.1', '0.2', '0.449205855000000001']);
    expect(of('Not in books').map((r) => [r['Exception status'], r['Settled by'], r.Reason])).toEqual([
      ['Dismissed', 'Grace Hopper', 'Booked in February (journal 2026-02-03)'],
      ['Dismissed', 'Grace Hopper', 'Booked in February (journal 2026-02-03)'],
    ]);
    expect(of('Rejected books row').map((r) => r['Books row'])).toEqual(['8', '9']);
    expect(of('Matched')[0]!['Description (books)']).toBe('Customer deposit, invoice 1041');
  });

  it('keeps the description with the claim for the results screen, never compared', async () => {
    const run = await svc.invoke('run-get', { run_id: runId, page: 1, page_size: 50, filter: 'all' }, ui);
    expect(run.items.list.map((i) => i.claimed.description)).toEqual([
      'Customer deposit, invoice 1041',
      'Interest',
      'Interest',
      'Gas top-up',
      'Supplier payment',
      'Unknown transfer',
      'Interest (booked twice)',
    ]);
    // A description that differs from anything in the ledger changes nothing: row 1 matched.
    expect(run.items.list[0]!.result).toBe(true);
  });
});
