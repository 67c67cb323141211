import { type Page } from '@playwright/test';
import ExcelJS from 'exceljs';
import { join } from 'node:path';
import { importLedger } from './support/ledger';
import { openScreen, samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

/*
 * An accountant closes January 2026: imports the month's ledger and names its wallets, reconciles
 * the books both ways for the month, works every exception in bulk with reasons under their own
 * name, checks a balance against the custodian's statement, and hands the auditor one XLSX file.
 * The figures are the sample files' (resources/samples/README.md and books/README.md).
 */

test.describe.configure({ mode: 'serial' });
const DEPOSITS = '7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b';
const TREASURY = '3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6f';
const ME = 'Grace Hopper';

const rows = (page: Page) => page.getByTestId('ticket-queue').locator('tbody tr');
async function matching(page: Page): Promise<number> {
  const text = (await page.getByRole('navigation', { name: 'Pages' }).locator('.pager-range').textContent()) ?? '';
  return Number(/of ([\d,]+)/.exec(text)?.[1]?.replace(/,/g, '') ?? 'NaN');
}

async function nameWallet(page: Page, walletId: string, name: string): Promise<void> {
  const row = page
    .getByRole('table', { name: 'Wallets' })
    .getByRole('row')
    .filter({ has: page.locator(`[title="${walletId}"]`) });
  await row.getByRole('button', { name: 'Name it' }).click();
  await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill(name);
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog')).toBeHidden();
  await expect(row).toContainText(name);
}

/** Every Pending exception of a kind, chosen and moved at once with a reason. */
async function workAll(page: Page, kind: string, action: 'Resolve' | 'Dismiss', reason: string, count: number): Promise<void> {
  await page.getByRole('combobox', { name: 'Kind' }).selectOption({ label: kind });
  await expect.poll(() => matching(page)).toBe(count);
  await page.getByTestId('ticket-queue').getByRole('checkbox', { name: 'Select every ticket on this page' }).check();
  await expect(page.getByTestId('tq-chosen')).toHaveText(`${count} ticket${count === 1 ? '' : 's'} chosen`);
  await page
    .getByRole('toolbar', { name: 'Bulk actions' })
    .getByRole('button', { name: `${action}…` })
    .click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Reason').fill(reason);
  await dialog.getByRole('button', { name: new RegExp(`^${action} ${count} ticket`) }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('No tickets match these filters')).toBeVisible();
}

test('January: my name once in Settings, then import the ledger and name its wallets', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Settings');
  const you = page.getByRole('form', { name: 'Your name' });
  await you.getByLabel('Name', { exact: true }).fill(ME);
  await you.getByRole('button', { name: 'Save name' }).click();
  await expect(you.getByRole('status')).toHaveText('Saved.');
  await importLedger(page, join(samples, 'native-ledger.csv'), 30);
  await openScreen(page, 'Wallets');
  await nameWallet(page, DEPOSITS, 'Customer deposits');
  await nameWallet(page, TREASURY, 'Treasury');
});

test('reconcile the books both ways for January: the five groups', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByTestId('file-input').setInputFiles(join(samples, 'books', 'books-2026-01.csv'));
  await expect(page.getByLabel('Column for amount', { exact: true })).toHaveValue('Amount');
  await expect(page.getByLabel('Check both ways')).toBeChecked();
  await page.getByLabel('From (UTC)').fill('2026-01-01');
  await page.getByLabel('To (UTC)').fill('2026-01-31');
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  const stats = page.getByRole('group', { name: 'Filter results' });
  await expect(stats.getByRole('button', { name: /^\d+ Matched/ })).toContainText('11');
  await expect(stats.getByRole('button', { name: /Mismatched/ })).toContainText('5');
  await expect(stats.getByRole('button', { name: /Not in ledger/ })).toContainText('1');
  await expect(stats.getByRole('button', { name: /Not in books/ })).toContainText('14');
  await expect(stats.getByRole('button', { name: /Duplicate/ })).toContainText('0');
  await expect(page.getByText(/two-way, period 2026-01-01 00:00:00 to 2026-01-31 23:59:59 UTC/)).toBeVisible();
  await stats.getByRole('button', { name: /Not in books/ }).click();
  const unbooked = page.getByRole('table', { name: 'In the ledger, not in the books' });
  await expect(unbooked.locator('tbody tr')).toHaveCount(14);
  // Wallets by name: the Treasury's withdrawals nobody booked.
  await expect(unbooked).toContainText('Treasury');
  await shot(page, 'close-month-reconciled');
});

test('work every exception in bulk, each with a reason, under my name', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Tickets');
  await expect.poll(() => matching(page)).toBe(20);
  await expect(page.getByTestId('acting-as')).toContainText(ME);
  await page.getByRole('combobox', { name: 'Kind' }).selectOption({ label: 'Not in books' });
  await expect.poll(() => matching(page)).toBe(14);
  await page.getByTestId('ticket-queue').getByRole('checkbox', { name: 'Select every ticket on this page' }).check();
  await page.getByRole('toolbar', { name: 'Bulk actions' }).getByRole('button', { name: 'Dismiss…' }).click();
  const first = page.getByRole('dialog');
  await first.getByLabel('Reason').fill('Booked in the February books (cut-off)');
  await shot(page, 'close-month-bulk-dismiss');
  await first.getByRole('button', { name: /^Dismiss 14 tickets/ }).click();
  await expect(first).toBeHidden();

  await workAll(page, 'Mismatched', 'Resolve', 'Corrected in the books, journal JE-2026-014', 5);
  await workAll(page, 'Not in ledger', 'Resolve', 'Reversed by the bank on 2026-02-02', 1);
  await page.getByRole('combobox', { name: 'Kind' }).selectOption({ label: 'All kinds' });
  await expect(page.getByText('No pending tickets')).toBeVisible();

  // Every change names the user and the reason.
  await page.getByRole('radio', { name: 'Resolved' }).click();
  await rows(page).first().click();
  const history = page.getByTestId('ticket-detail');
  await expect(history).toContainText(ME);
  await expect(history).toContainText(/Corrected in the books|Reversed by the bank/);
});

test("check the closing balance against the custodian's statement", async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Balances');
  await page.getByLabel('From (UTC day)').fill('2026-01-01');
  await page.getByLabel('To (UTC day, inclusive)').fill('2026-01-31');
  await page.getByRole('button', { name: 'Show' }).click();
  const table = page.getByRole('table', { name: 'Balances' });
  // Customer deposits on TRON_USDT: 1500 and 2.5E+3 Completed; 320 still Confirming moves nothing.
  const usdt = table.getByRole('row').filter({ hasText: 'Customer deposits' }).filter({ hasText: 'TRON_USDT' });
  await expect(usdt.getByRole('cell').nth(7)).toHaveText('4,000');
  await usdt.click();
  const check = page.getByRole('region', { name: 'Check against statement' });
  await check.getByLabel('Statement date').fill('2026-01-31');
  await check.getByLabel('Closing balance on the statement').fill('4000.00');
  await check.getByRole('button', { name: 'Check' }).click();
  await expect(check.getByTestId('check-result')).toContainText('The statement agrees with the ledger');
  await shot(page, 'close-month-balance');
});

test('hand the auditor one XLSX file: the summary, every group, nothing left open', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'Results' }).click();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Report (XLSX)' }).click()]);
  expect(download.suggestedFilename()).toBe('reconciliation-books-2026-01-2026-01-01_2026-01-31.xlsx');
  const file = join(dataDir, download.suggestedFilename());
  await download.saveAs(file);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  expect(wb.worksheets.map((ws) => ws.name)).toEqual([
    'Summary',
    'Matched',
    'Mismatched',
    'Not in ledger',
    'Not in books',
    'Duplicate',
    'Rejected books rows',
  ]);
  const summary = new Map<unknown, unknown>();
  wb.getWorksheet('Summary')!.eachRow((row) => summary.set(row.getCell(1).value, row.getCell(2).value));
  expect(summary.get('Matched')).toBe(11);
  expect(summary.get('Not in books')).toBe(14);
  expect(summary.get('Open exceptions')).toBe(0);
  expect(summary.get('Run by')).toBe(ME);
  expect(wb.getWorksheet('Not in books')!.actualRowCount).toBe(15);
  // The work done is in the file: each exception's status, who settled it and why, beside the books' description.
  const unbooked = wb.getWorksheet('Not in books')!;
  const head = unbooked.getRow(1).values as unknown[];
  const cell = (ws: ExcelJS.Worksheet, row: number, header: string) => ws.getRow(row).getCell(head.indexOf(header)).value;
  expect(cell(unbooked, 2, 'Exception status')).toBe('Dismissed');
  expect(cell(unbooked, 2, 'Settled by')).toBe(ME);
  expect(cell(unbooked, 2, 'Reason')).toBe('Booked in the February books (cut-off)');
  expect(typeof cell(unbooked, 2, 'Amount (ledger)')).toBe('number');
  const matched = wb.getWorksheet('Matched')!;
  expect(cell(matched, 2, 'Description (books)')).toBe('Customer deposit, January batch');
  expect(summary.get('Books file')).toBe('books-2026-01.csv');
  expect(summary.get('Books file SHA-256')).toMatch(/^[0-9a-f]{64}$/);
});
