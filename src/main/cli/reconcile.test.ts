import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import { REPORT_GROUP_LABELS, REPORT_GROUPS, ReconcileReport } from '../../shared/reports';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

const SAMPLES = join(import.meta.dirname, '../../../resources/samples');

describe('npm run nps -- reconcile', () => {
  const svc = tempService();
  svc.close();
  afterAll(() => svc.dispose());
  const dir = ['--data-dir', svc.dataDir];

  it('reconciles the sample books both ways for a period, prints the groups, exits 1 with work to do', async () => {
    expect((await nps(['import', join(SAMPLES, 'native-ledger.csv'), ...dir])).code).toBe(0);
    const books = join(SAMPLES, 'books/books-2026-01.csv');
    const run = await nps(['reconcile', books, '--from', '2026-01-01', '--to', '2026-01-31', '--json', ...dir]);
    expect(run.err).toBe('');
    expect(run.code).toBe(1);
    const report = ReconcileReport.parse(JSON.parse(run.out));
    // books/README.md: 11 matched, 5 mismatched, 1 not found. The ledger's 30 records, all in
    // January: the 16 the claims found, and 14 nobody booked.
    expect(report.summary).toEqual({ matched: 11, mismatched: 5, not_in_ledger: 1, not_in_books: 14, duplicates: 0 });
    expect(report.groups.not_in_books).toHaveLength(14);
    expect(report.groups.not_in_ledger[0]!.claimed).toMatchObject({ request_id: 'WD-2026-09999' });
    expect(report.period_from).toBe(Date.UTC(2026, 0, 1));
    expect(report.period_to).toBe(Date.UTC(2026, 1, 1) - 1);

    // The auditor's workbook of the same books: the summary, then a sheet per group with its rows.
    const xlsx = join(svc.dataDir, 'january.xlsx');
    const written = await nps(['reconcile', books, '--from', '2026-01-01', '--to', '2026-01-31', '--out', xlsx, ...dir]);
    expect(written.err).toContain(`Report written to ${xlsx}`);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(xlsx);
    expect(wb.worksheets.map((ws) => ws.name)).toEqual([
      'Summary',
      'Matched',
      'Mismatched',
      'Not in ledger',
      'Not in books',
      'Duplicate',
      'Rejected books rows',
    ]);
    const counts = new Map<unknown, unknown>();
    wb.getWorksheet('Summary')!.eachRow((row) => counts.set(row.getCell(1).value, row.getCell(2).value));
    expect(REPORT_GROUPS.map((g) => counts.get(REPORT_GROUP_LABELS[g]))).toEqual([11, 5, 1, 14, 0]);
    // Every row under a group sheet's header is an item (no cut note: nothing was cut).
    const items = (name: string) => wb.getWorksheet(name)!.actualRowCount - 1;
    expect([items('Matched'), items('Mismatched'), items('Not in ledger'), items('Not in books')]).toEqual([11, 5, 1, 14]);
    const bad = await nps(['reconcile', books, '--out', join(svc.dataDir, 'report.pdf'), ...dir]);
    expect(bad.err).toMatch(/^--out: ".*report\.pdf" must end in \.xlsx/);

    // The same books with one row twice, for one wallet, human output.
    const lines = (await import('node:fs')).readFileSync(books, 'utf8').trimEnd().split(/\r?\n/);
    const twice = join(svc.dataDir, 'twice.csv');
    writeFileSync(twice, [...lines, lines[1]].join('\n'));
    const wallet = await nps([
      'reconcile',
      twice,
      '--wallet-id',
      '7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b',
      '--from',
      '2026-01-01',
      '--to',
      '2026-01-31',
      ...dir,
    ]);
    expect(wallet.code).toBe(1);
    expect(wallet.out).toMatch(
      /^Reconciled twice\.csv against wallet 7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b, 2026-01-01T00:00:00Z to 2026-01-31T23:59:59\.999Z\n/,
    );
    expect(wallet.out).toMatch(
      /\n {2}Matched {9}7\n {2}Mismatched {6}3\n {2}Not in ledger {3}7\n {2}Not in books {4}5\n {2}Duplicate {7}1\n/,
    );
    expect(wallet.out).toMatch(/exceptions to work/);
  }, 90_000);

  it('refuses what it cannot read, naming the flag, and runs nothing', async () => {
    const books = join(SAMPLES, 'books/books-2026-01.csv');
    const bad = await nps(['reconcile', books, '--from', '2026-02-30', ...dir]);
    expect(bad).toMatchObject({ code: 1, err: expect.stringMatching(/^error 1002: from: "2026-02-30" is not a calendar date/) });
    const nobody = await nps(['reconcile', books, '--wallet', 'Nobody', ...dir]);
    expect(nobody.err).toMatch(/^WALLET: no wallet is named "Nobody"/);
    const two = await nps(['reconcile', ...dir]);
    expect(two.err).toMatch(/reconcile: give exactly one BOOKS file/);
  }, 90_000);

  it('reconciles a month of a real Etherscan export against books kept by hand: the five groups, no rejected line', async () => {
    const exports = join(import.meta.dirname, '../../../test/fixtures/exports');
    const books = join(import.meta.dirname, '../../../test/fixtures/books');
    const data = ['--data-dir', join(svc.dataDir, 'treasury')];
    const uni = ['tokens', 'add', 'ETH', '--contract', '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984', '--symbol', 'UNI', '--decimal', '18'];
    expect((await nps([...uni, ...data])).code).toBe(0);
    for (const kind of ['txlist', 'internal', 'erc20']) {
      const imported = await nps([
        'import',
        join(exports, `etherscan-0x003dc-${kind}.csv`),
        '--wallet',
        'Treasury',
        '--chain',
        'ETH',
        ...data,
      ]);
      expect(imported.code).toBe(0);
    }
    for (const file of ['treasury-2020-10.csv', 'treasury-2020-10-eu.csv']) {
      const period = ['--wallet', 'Treasury', '--from', '2020-10-01', '--to', '2020-10-31', '--json'];
      const run = await nps(['reconcile', join(books, file), ...period, ...data]);
      // The European file has the same columns: it is read with the mapping the first run kept, which leaves separators and dates to the file.
      expect(run.err).toBe(
        file === 'treasury-2020-10.csv'
          ? ''
          : 'Mapping: the saved mapping "treasury-2020-10.csv" (npm run nps -- mappings show "treasury-2020-10.csv")\n',
      );
      expect(run.code).toBe(1);
      const report = ReconcileReport.parse(JSON.parse(run.out));
      expect(report.summary).toEqual({ matched: 20, mismatched: 1, not_in_ledger: 1, not_in_books: 1, duplicates: 1 });
      expect(report.rejected_rows).toBe(0);
      expect(report.groups.mismatched.map((i) => i.books_row)).toEqual([18]);
      expect(report.groups.duplicates.map((i) => i.books_row)).toEqual([20]);
      expect(report.groups.not_in_ledger.map((i) => i.books_row)).toEqual([21]);
    }
  }, 120_000);
});
