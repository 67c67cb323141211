import { join } from 'node:path';
import { openScreen, samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });
// A row of resources/samples/native-ledger.csv: 250.123456789012345678 BSC_USDT to a customer wallet.
const HASH = '0x4869a019bc4c7329ecb41e27243d6897c89c417b55ec3e1dcb882b0abf8c38e6';

test('an empty ledger says how to start', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Ledger');
  await expect(page.getByText('The ledger is empty')).toBeVisible();
  await shot(page, 'ledger-empty');
});

test('import the sample ledger: preset detected, first rows as read, columns mapped with samples, preview, import, report', async ({
  nps,
}) => {
  const { page } = await session(nps);
  await page.getByRole('button', { name: 'Import a ledger file' }).first().click();
  await expect(page.getByRole('button', { name: /Drop a ledger file here/ })).toBeVisible();
  await shot(page, 'ledger-import-choose');

  await page.getByTestId('file-input').setInputFiles(join(samples, 'native-ledger.csv'));
  await expect(page.getByTestId('detected-preset')).toContainText('NPS ledger (native)');
  await expect(page.getByLabel('Column for amount', { exact: true })).toHaveValue('amount');
  await expect(page.locator('tr', { has: page.getByLabel('Column for amount', { exact: true }) })).toContainText('2.5E+3');
  // The first rows as they will be stored: the exact amount, and the file's text beside it where it differs.
  const second = page.getByRole('table', { name: 'First rows as read' }).getByRole('row').nth(2);
  await expect(second).toContainText('2500');
  await expect(second).toContainText('file: 2.5E+3');
  // Its time is a Unix timestamp: the digits are not put beside the date (written dates are).
  await expect(second).toContainText('2026-01-05T08:07:00Z');
  await expect(second).not.toContainText('file: 1767600420000');
  await page.getByText('Column mapping', { exact: true }).click();
  await expect(page.getByRole('table', { name: 'Column mapping' })).toBeVisible();
  await shot(page, 'ledger-import-mapping');

  await page.getByRole('button', { name: 'Preview the import' }).click();
  await expect(page.getByTestId('preview-message')).toContainText('30 would be added');
  // The button went with its step: the new step holds the focus, so the keyboard goes on from there.
  await expect(page.getByRole('group', { name: 'Step 3 of 4: Preview' })).toBeFocused();
  await shot(page, 'ledger-import-preview');

  await page.getByRole('button', { name: 'Import 30 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('Import finished');
  await expect(page.getByRole('group', { name: 'Step 4 of 4: Report' })).toBeFocused();
  await expect(page.getByTestId('import-result')).toContainText('30 added');
  await shot(page, 'ledger-import-report');
});

test('the transactions: 30 rows, exact amounts, filters', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('button', { name: 'Show the transactions' }).click();
  await expect(page.getByTestId('tx-count')).toHaveText('30 transactions');
  const grid = page.getByRole('grid', { name: 'Transactions' });
  await expect(grid).toContainText('TRON_USDT');
  await shot(page, 'ledger-transactions');

  await page.getByLabel('Chain', { exact: true }).selectOption('BSC_BNB');
  await expect(page.getByTestId('tx-count')).toHaveText('5 transactions');
  await page.getByLabel('Type', { exact: true }).selectOption('Withdrawal');
  await expect(page.getByTestId('tx-count')).toHaveText('2 transactions');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page.getByTestId('tx-count')).toHaveText('30 transactions');
});

test('find a transaction by its hash and open it, with its explorer link', async ({ nps }) => {
  const { page } = await session(nps);
  // 0x hashes are found whatever their case.
  await page.getByLabel('Search by hash, transaction ID or request ID').fill(HASH.toUpperCase().replace('0X', '0x'));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('tx-count')).toHaveText('1 transaction');
  const grid = page.getByRole('grid', { name: 'Transactions' });
  await expect(grid.getByRole('row')).toHaveCount(2);
  await expect(grid).toContainText('250.123456789012345678');

  // On its first cell: the hash and the address in the row are links to the explorer.
  await grid.getByRole('row').nth(1).getByRole('gridcell').first().click();
  await page.keyboard.press('Enter');
  const detail = page.getByRole('complementary', { name: 'Transaction detail' });
  await expect(detail).toContainText('9db00239-e310-4a24-a95b-cba544765e3f');
  await expect(detail).toContainText('250.123456789012345678');
  await expect(detail.getByRole('link', { name: HASH })).toHaveAttribute('href', `https://bscscan.com/tx/${HASH}`);
  await shot(page, 'ledger-transaction-detail');
  await page.keyboard.press('Escape');
  await expect(detail).toBeHidden();
});

test('search as you type: the first characters of a hash, a transaction ID or a request ID find their records, no Enter', async ({
  nps,
}) => {
  const { page } = await session(nps);
  const box = page.getByLabel('Search by hash, transaction ID or request ID');
  const count = page.getByTestId('tx-count');
  await box.fill('');
  await expect(count).toHaveText('30 transactions');
  await box.pressSequentially(HASH.slice(0, 8), { delay: 40 });
  await expect(count).toHaveText('1 transaction');
  await expect(page.getByRole('grid', { name: 'Transactions' })).toContainText('250.123456789012345678');
  await box.fill('26A4B538-05');
  await expect(count).toHaveText('1 transaction');
  // A request ID as written: WD-2026-01060 to -01069.
  await box.fill('WD-2026-0106');
  await expect(count).toHaveText('10 transactions');
  // A Tron hash has no 0x; an EVM hash is found with or without it.
  await box.fill('1faf');
  await expect(count).toHaveText('1 transaction');
  await expect(page.getByRole('grid', { name: 'Transactions' })).toContainText('TRON');
  await box.fill('1fee');
  await expect(count).toHaveText('1 transaction');
  await expect(page.getByRole('grid', { name: 'Transactions' })).toContainText('MATIC_USDT');
  await box.fill('0x1fee');
  await expect(count).toHaveText('1 transaction');
  // Fewer than 4 characters find an identifier equal to them only.
  await box.fill('1f');
  await expect(page.getByText('No transactions match these filters')).toBeVisible();
  await shot(page, 'ledger-search-as-you-type');
  await box.fill('');
  await expect(count).toHaveText('30 transactions');
});

test('the import is in the history, and importing the same file again changes nothing', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('tab', { name: 'Import history' }).click();
  const table = page.getByRole('table', { name: 'Imports' });
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).toContainText('native-ledger.csv');

  await page.getByRole('tab', { name: 'Import', exact: true }).click();
  await page.getByRole('button', { name: 'Import another file' }).click();
  await page.getByTestId('file-input').setInputFiles(join(samples, 'native-ledger.csv'));
  await page.getByRole('button', { name: 'Preview the import' }).click();
  await expect(page.getByTestId('preview-message')).toContainText('30 unchanged');
  await expect(page.getByRole('button', { name: 'Nothing to import' })).toBeDisabled();
  await page.getByRole('tab', { name: 'Import history' }).click();
  await expect(table.getByRole('row')).toHaveCount(2);
  await shot(page, 'ledger-import-history');
});
