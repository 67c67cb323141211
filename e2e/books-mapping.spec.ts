import { join } from 'node:path';
import { importLedger } from './support/ledger';
import { openScreen, root, samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

/*
 * Books in a shape of their own: In/Out columns, "Receive"/"Send" for the type, dates like
 * 05/01/2026 that cannot tell day from month. The mapping step shows the rows as they will be read
 * before anything runs, and updates as the mapping changes.
 */

test.describe.configure({ mode: 'serial' });
const BOOKS = join(root, 'test', 'fixtures', 'books', 'in-out-2026-01.csv');

test('the ledger holds the sample', async ({ nps }) => {
  const { page } = await session(nps);
  await importLedger(page, join(samples, 'native-ledger.csv'), 30);
});

test('In/Out columns become the pair, Receive and Send are translated, the preview says what the file leaves open', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByTestId('file-input').setInputFiles(BOOKS);
  await expect(page.getByLabel('Column for amount_in', { exact: true })).toHaveValue('In');
  await expect(page.getByLabel('Column for amount_out', { exact: true })).toHaveValue('Out');
  await expect(page.getByLabel('Column for amount', { exact: true })).toHaveValue('');
  await expect(page.getByLabel('Column for type', { exact: true })).toHaveValue('Type');
  // The type words of the first rows, translated by a first guess the user can change.
  const translations = page.getByRole('table', { name: 'Translations of type' });
  await expect(translations.getByLabel('type for Receive')).toHaveValue('Deposit');
  await expect(translations.getByLabel('type for Send')).toHaveValue('Withdrawal');
  await expect(translations.getByLabel('type for Treasury move')).toHaveValue('');

  // 05/01/2026 is the 5th of January or the 1st of May: the file cannot tell, so the run waits for the choice.
  const preview = page.getByRole('table', { name: 'Books preview' });
  await expect(page.locator('.books-preview')).toContainText('mapping.date_order: dates like "05/01/2026 08:00"');
  await expect(page.getByRole('button', { name: 'Run reconciliation' })).toBeDisabled();
  await page.getByLabel('Dates like 03/01/2026').selectOption('day_first');
  await expect(preview.getByRole('row').nth(1)).toContainText('2026-01-05T08:00:00Z');
  await expect(page.locator('.books-preview')).not.toContainText('mapping.date_order');

  // The row whose word has no translation says so, with the translation to add.
  const treasury = preview.getByRole('row').nth(5);
  await expect(treasury).toContainText('"Treasury move" in column "Type" is not a type (Deposit, Withdrawal)');
  await expect(page.getByRole('button', { name: 'Run reconciliation' })).toBeEnabled();
  await translations.getByLabel('type for Treasury move').selectOption('Withdrawal');
  await expect(treasury).toContainText('Withdrawal');
  await expect(treasury).toContainText('10000');

  // Values as read beside the cells as written: the pair's side, thousands separators dropped, the sign of money out.
  await expect(preview.getByRole('row').nth(2)).toContainText('2500');
  await expect(preview.getByRole('row').nth(2)).toContainText('2,500.00');
  await expect(preview.getByRole('row').nth(6)).toContainText('WithdrawalSend1.25-1.25');
  await expect(page.locator('.books-preview')).toContainText('7 of 7 rows read · decimal point, dates day first');
  await page.locator('.books-preview').scrollIntoViewIfNeeded();
  await shot(page, 'reconcile-books-preview');
});

test('run it: the rows as previewed are checked', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  const grid = page.getByRole('table', { name: 'Reconciliation results' });
  await expect(grid).toBeVisible();
  const stats = page.getByRole('group', { name: 'Filter results' });
  await expect(stats.getByRole('button', { name: /^\d+ Matched/ })).toContainText('6');
  await expect(stats.getByRole('button', { name: /Mismatched/ })).toContainText('1');
  await expect(grid.getByRole('row').filter({ hasText: '249.9' })).toContainText('249.99');
  await shot(page, 'reconcile-books-results');
});
