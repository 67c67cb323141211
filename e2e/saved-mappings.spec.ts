import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importLedger } from './support/ledger';
import { openScreen, root, samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

/*
 * The books mapping is not set up again each month: the run keeps the mapping it used (the
 * translations, the date order, the tolerances, the wallet), and next month's file with the same
 * columns opens with it, its period the month after. Saved mappings are named, edited and removed.
 */

test.describe.configure({ mode: 'serial' });
const JANUARY = join(root, 'test', 'fixtures', 'books', 'in-out-2026-01.csv');
const dir = mkdtempSync(join(tmpdir(), 'nps-e2e-books-'));
/** February's books: the same layout, the header saved again by a spreadsheet in other capitals. */
const FEBRUARY = join(dir, 'in-out-2026-02.csv');
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the ledger holds the sample', async ({ nps }) => {
  const { page } = await session(nps);
  writeFileSync(FEBRUARY, readFileSync(JANUARY, 'utf8').replace(/^Date,Reference,Tx hash/, 'DATE,Reference,TX HASH'));
  await importLedger(page, join(samples, 'native-ledger.csv'), 30);
});

test("January's books mapped once, and run", async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByTestId('file-input').setInputFiles(JANUARY);
  await expect(page.getByTestId('saved-mapping-status')).toHaveText('A first guess from the columns: check it against the preview below.');
  await expect(page.getByLabel('Use saved mapping')).toHaveValue('');
  await page.getByLabel('Dates like 03/01/2026').selectOption('day_first');
  await page.getByRole('table', { name: 'Translations of type' }).getByLabel('type for Treasury move').selectOption('Withdrawal');
  await page.getByLabel('Amount tolerance').fill('0.01');
  await page.getByLabel('From (UTC)').fill('2026-01-01');
  await page.getByLabel('To (UTC)').fill('2026-01-31');
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  await expect(page.getByRole('table', { name: 'Reconciliation results' })).toBeVisible();
});

test("February's file opens with January's mapping, and the month after", async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByTestId('file-input').setInputFiles(FEBRUARY);
  await expect(page.getByTestId('saved-mapping-status')).toContainText('Saved as “in-out-2026-01.csv” for all wallets, last used');
  await expect(page.getByLabel('Dates like 03/01/2026')).toHaveValue('day_first');
  await expect(page.getByRole('table', { name: 'Translations of type' }).getByLabel('type for Treasury move')).toHaveValue('Withdrawal');
  await expect(page.getByLabel('Amount tolerance')).toHaveValue('0.01');
  await expect(page.getByLabel('From (UTC)')).toHaveValue('2026-02-01');
  await expect(page.getByLabel('To (UTC)')).toHaveValue('2026-02-28');
  await expect(page.locator('.books-preview')).toContainText('7 of 7 rows read · decimal point, dates day first');

  // A change shows until it is saved; saved under a name, it stands for the layout.
  await page.getByLabel('Column for fee', { exact: true }).selectOption('');
  await expect(page.getByTestId('saved-mapping-status')).toContainText('changed since, not saved yet');
  await page.getByRole('button', { name: 'Save mapping as…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save mapping as' });
  await dialog.getByLabel('Name').fill('IN-OUT-2026-01.CSV');
  await expect(dialog.getByRole('button', { name: 'Replace' })).toBeVisible();
  await dialog.getByLabel('Name').fill('Treasury books');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('saved-mapping-status')).toHaveText(
    /^Saved as “Treasury books” for all wallets, last used \d{4}-\d\d-\d\d$/,
  );
  await expect(page.getByLabel('Use saved mapping').locator('option:checked')).toHaveText('Treasury books (all wallets)');
  await page.locator('.saved-mapping-bar').scrollIntoViewIfNeeded();
  await shot(page, 'reconcile-saved-mapping');

  // Back to the first guess, and to the saved mapping again.
  await page.getByLabel('Use saved mapping').selectOption('');
  await expect(page.getByLabel('Dates like 03/01/2026')).toHaveValue('auto');
  await page.getByLabel('Use saved mapping').selectOption({ label: 'Treasury books (all wallets)' });
  await expect(page.getByLabel('Dates like 03/01/2026')).toHaveValue('day_first');
  await expect(page.getByLabel('Column for fee', { exact: true })).toHaveValue('');
});

test('Saved mappings: edited against the layout, renamed, removed', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('button', { name: 'Saved mappings' }).click();
  await expect(page.getByRole('tab', { name: 'Saved mappings' })).toHaveAttribute('aria-selected', 'true');
  const table = page.getByRole('table', { name: 'Saved mappings' });
  // The entry January's run kept for the layout gave way to the one named for it.
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table.getByRole('row').nth(1)).toContainText('Treasury books');
  await expect(table.getByRole('row').nth(1)).toContainText('DATE, Reference, TX HASH, Network, Asset, … (10 columns)');
  await shot(page, 'reconcile-saved-mappings');

  await table.getByRole('button', { name: 'Edit Treasury books' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit “Treasury books”' });
  await edit.getByLabel('Name').fill('In/Out books');
  await edit.getByLabel('Column for fee', { exact: true }).selectOption('Fee');
  await expect(edit.getByLabel('type for Treasury move')).toHaveValue('Withdrawal');
  await shot(page, 'reconcile-saved-mapping-edit');
  await edit.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(edit).toBeHidden();
  await expect(table.getByRole('row').nth(1)).toContainText('In/Out books');

  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByLabel('Use saved mapping').selectOption({ label: 'In/Out books (all wallets)' });
  await expect(page.getByLabel('Column for fee', { exact: true })).toHaveValue('Fee');

  await page.getByRole('tab', { name: 'Saved mappings' }).click();
  await table.getByRole('button', { name: 'Remove In/Out books' }).click();
  await page.getByRole('dialog', { name: 'Remove this saved mapping?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByText('No saved mappings yet')).toBeVisible();
});
