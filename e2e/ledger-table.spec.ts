import type { Page } from '@playwright/test';
import ExcelJS from 'exceljs';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { importLedger } from './support/ledger';
import { shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

/*
 * The Ledger table as an accountant works it before a close: sort by amount (exactly: two amounts a
 * float cannot tell apart keep their order), read the totals per token for the filters, and save
 * what is shown as CSV and XLSX.
 */

test.describe.configure({ mode: 'serial' });
const dir = mkdtempSync(join(tmpdir(), 'nps-ledger-table-'));
const WALLET = '11111111-2222-4333-8444-555555555555';
const HEADER = 'transaction_id,wallet_id,type,status,amount,fee,chain_id,token_id,hash,created_at';
const row = (n: number, type: string, amount: string, token = 'ETH', fee = '0.000000000000000001') =>
  [
    `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    WALLET,
    type,
    'Completed',
    amount,
    fee,
    'ETH',
    token,
    `0x${String(n).padStart(64, 'a')}`,
    String(Date.UTC(2024, 4, n, 12)),
  ].join(',');
const FILE = join(dir, 'may-ledger.csv');
writeFileSync(
  FILE,
  [
    HEADER,
    row(1, 'Deposit', '0.100000000000000001'),
    row(2, 'Deposit', '0.1'),
    row(3, 'Deposit', '0.100000000000000002'),
    row(4, 'Withdrawal', '2.5'),
    row(5, 'Deposit', '1500.25', 'ETH_USDT', '0'),
    row(6, 'Withdrawal', '0.75', 'ETH_USDT', '1'),
  ].join('\n') + '\n',
);

/** The amount column's text of the table's rows, top to bottom. */
async function amounts(page: Page): Promise<string[]> {
  const grid = page.getByRole('grid', { name: 'Transactions' });
  const cells = grid.getByRole('row').filter({ has: page.getByRole('gridcell') });
  return cells.evaluateAll((rows) =>
    rows.map((r) => r.querySelectorAll('[role=gridcell]')[3]?.querySelector('.amount')?.getAttribute('title') ?? ''),
  );
}

test('sort the ledger by amount, exactly, both ways', async ({ nps }) => {
  const { page } = await session(nps);
  await importLedger(page, FILE, 6);
  await page.getByRole('tab', { name: 'Transactions', exact: true }).click();
  await expect(page.getByTestId('tx-count')).toHaveText('6 transactions');
  const amountHead = page.getByRole('columnheader').filter({ has: page.getByTestId('sort-amount') });
  await expect(amountHead).toHaveAttribute('aria-sort', 'none');

  await page.getByTestId('sort-amount').click();
  await expect(amountHead).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(() => amounts(page)).toEqual(['1500.25', '2.5', '0.75', '0.100000000000000002', '0.100000000000000001', '0.1']);
  await page.getByTestId('sort-amount').click();
  await expect(amountHead).toHaveAttribute('aria-sort', 'ascending');
  await expect.poll(() => amounts(page)).toEqual(['0.1', '0.100000000000000001', '0.100000000000000002', '0.75', '2.5', '1500.25']);
});

test('see the totals per token and type for the filters', async ({ nps }) => {
  const { page } = await session(nps);
  const totals = page.locator('.tx-totals');
  await expect(totals.getByTestId('total-ETH-Deposit')).toContainText('0.300000000000000003');
  await expect(totals.getByTestId('total-ETH-Deposit')).toContainText('3');
  await expect(totals.getByTestId('total-ETH-Withdrawal')).toContainText('2.5');
  await expect(totals.getByTestId('total-ETH_USDT-Deposit')).toContainText('1,500.25');
  await shot(page, 'ledger-table-sorted-totals');
  await page.screenshot({ path: '/tmp/ledger-table-1280.png' });

  await page.getByLabel('Token').selectOption('ETH_USDT');
  await expect(page.getByTestId('tx-count')).toHaveText('2 transactions');
  await expect(totals.getByTestId('total-ETH-Deposit')).toHaveCount(0);
  await expect(totals.getByTestId('total-ETH_USDT-Withdrawal')).toContainText('0.75');
  await page.getByLabel('Token').selectOption('');
});

test('export what is shown as CSV and XLSX', async ({ nps }) => {
  const { page } = await session(nps);
  await expect(page.getByTestId('tx-count')).toHaveText('6 transactions');

  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(csv.suggestedFilename()).toMatch(/^ledger-\d{8}-\d{6}Z\.csv$/);
  const csvPath = join(dir, csv.suggestedFilename());
  await csv.saveAs(csvPath);
  const parsed = Papa.parse<Record<string, string>>(readFileSync(csvPath, 'utf8'), { header: true, skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  // In the table's sort (amount, ascending), the amounts exact, the times ISO 8601 UTC.
  expect(parsed.data.map((r) => r.amount)).toEqual(['0.1', '0.100000000000000001', '0.100000000000000002', '0.75', '2.5', '1500.25']);
  expect(parsed.data[0]!.created_at).toBe('2024-05-02T12:00:00.000Z');

  const [xlsx] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export XLSX' }).click()]);
  expect(xlsx.suggestedFilename()).toMatch(/\.xlsx$/);
  const xlsxPath = join(dir, xlsx.suggestedFilename());
  await xlsx.saveAs(xlsxPath);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(xlsxPath);
  expect(wb.worksheets.map((w) => w.name)).toEqual(['Ledger', 'Totals']);
  const ledger = wb.getWorksheet('Ledger')!;
  expect(ledger.rowCount).toBe(7);
  const amountCol = (ledger.getRow(1).values as unknown[]).indexOf('amount');
  expect([2, 3, 4].map((r) => ledger.getRow(r).getCell(amountCol).value)).toEqual(['0.1', '0.100000000000000001', '0.100000000000000002']);
  const totals = wb.getWorksheet('Totals')!;
  expect(totals.getRow(2).values).toEqual([undefined, 'ETH', 'ETH', 'Deposit', 3, 0, '0.300000000000000003', '0.000000000000000003']);
});

test('totals leave Failed and Rejected records out but for the fee a failed withdrawal paid on chain, and say so; filtered on Failed, they total those', async ({
  nps,
}) => {
  const { page } = await session(nps);
  // A withdrawal of 63.5 ETH that failed on chain (it paid its fee) and a deposit the custodian rejected: neither moved any ETH.
  const failed = join(dir, 'may-failed.csv');
  const status = (line: string, s: string) => line.replace(',Completed,', `,${s},`);
  writeFileSync(
    failed,
    [HEADER, status(row(7, 'Withdrawal', '63.5'), 'Failed'), status(row(8, 'Deposit', '10', 'ETH_USDT', '0'), 'Rejected')].join('\n') +
      '\n',
  );
  await importLedger(page, failed, 2);
  await page.getByRole('button', { name: 'Show the transactions' }).click();
  await expect(page.getByTestId('tx-count')).toHaveText('8 transactions');
  const totals = page.locator('.tx-totals');
  const caption = page.getByTestId('totals-caption');
  await expect(caption).toHaveText(
    'Totals per token for these filters, without 1 Rejected record. A failed withdrawal that reached the chain (it has a hash) moved no amount but paid its fee, which counts; other failed and rejected records count nothing, as Balances and the reconciliation report count them (filter Status to total failed records as recorded).',
  );
  const withdrawals = totals.getByTestId('total-ETH-Withdrawal');
  await expect(withdrawals.getByRole('cell').nth(2)).toHaveText('1 + 1 failed, fee only');
  await expect(withdrawals.getByRole('cell').nth(3)).toHaveText('2.5');
  await expect(withdrawals.getByRole('cell').nth(4)).toHaveText('0.000000000000000002');
  await expect(totals.getByTestId('total-ETH_USDT-Deposit').getByRole('cell').nth(3)).toHaveText('1,500.25');
  await shot(page, 'ledger-table-totals-left-out');

  await page.getByLabel('Status').selectOption('Failed');
  await expect(page.getByTestId('tx-count')).toHaveText('1 transaction');
  await expect(caption).toContainText('Totals per token of the Failed records these filters select, amounts and fees as recorded');
  await expect(withdrawals.getByRole('cell').nth(3)).toHaveText('63.5');
  await page.getByLabel('Status').selectOption('Completed');
  await expect(caption).toHaveText('Totals per token for these filters');
  await page.getByLabel('Status').selectOption('');
});
