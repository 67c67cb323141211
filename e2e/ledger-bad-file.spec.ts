import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseLedgerFile, importLedger } from './support/ledger';
import { openScreen, root, samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });

async function ledgerCount(page: import('@playwright/test').Page): Promise<string> {
  await page.getByRole('tab', { name: 'Transactions' }).click();
  await expect(page.getByTestId('tx-count')).not.toHaveText('…');
  return (await page.getByTestId('tx-count').textContent()) ?? '';
}

test('start from the sample ledger', async ({ nps }) => {
  const { page } = await session(nps);
  await importLedger(page, join(samples, 'native-ledger.csv'), 30);
  expect(await ledgerCount(page)).toBe('30 transactions');
});

test('a file that is not text is refused with the reason', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  const garbage = join(dataDir, 'statement.csv');
  writeFileSync(garbage, Buffer.from([0x00, 0xff, 0x13, 0x37, 0x00, 0x42, 0x89, 0x50, 0x4e, 0x47]));
  await page.getByRole('tab', { name: 'Import', exact: true }).click();
  await page.getByRole('button', { name: 'Import another file' }).click();
  await page.getByTestId('file-input').setInputFiles(garbage);
  const error = page.getByRole('alert');
  await expect(error).toContainText('Could not read statement.csv');
  await expect(error).toContainText('not text');
  await shot(page, 'ledger-import-not-text');
});

test('a header that fits no format: nothing can be mapped, the wizard says why before any preview', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByTestId('file-input').setInputFiles(join(samples, 'bad-header.csv'));
  await expect(page.getByTestId('detected-preset')).toContainText('No preset matched');
  await expect(page.getByRole('alert')).toBeVisible();
  await expect(page.getByRole('alert')).toContainText(/transaction_id|column/);
  await expect(page.getByRole('button', { name: 'Preview the import' })).toBeDisabled();
  await expect(page.getByTestId('blocked-reason')).toContainText('cannot be imported as it is read now');
  await shot(page, 'ledger-import-bad-header');
});

test('rows with errors: each one listed with its row, column and reason, exportable; nothing imported', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('button', { name: 'Choose another file' }).click();
  await page.getByTestId('file-input').setInputFiles(join(samples, 'native-with-bad-rows.csv'));
  await page.getByRole('button', { name: 'Preview the import' }).click();
  // "12,5" is read as 12.5: a comma followed by one digit can only be a decimal comma.
  await expect(page.getByTestId('preview-message')).toContainText('4 rejected');
  const rejected = page.getByRole('table', { name: 'Rejected rows' });
  await expect(rejected.getByRole('row')).toHaveCount(5);
  for (const row of ['5', '7', '8', '9'])
    await expect(rejected.getByRole('row').filter({ has: page.getByRole('cell', { name: row, exact: true }) })).toHaveCount(1);
  // Each with the value the file has.
  await expect(rejected.getByRole('row').filter({ has: page.getByRole('cell', { name: '7', exact: true }) })).toContainText('WD-7');
  await shot(page, 'ledger-import-rejected');

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export rejected rows (CSV)' }).click();
  const file = await (await download).path();
  const csv = readFileSync(file, 'utf8').trim().split(/\r?\n/);
  expect(csv[0]).toBe('row_number,column,value,reason');
  expect(csv).toHaveLength(5);

  // The accountant goes back instead of importing the 8 good rows.
  await page.getByRole('button', { name: 'Back to the mapping' }).click();
  await page.getByRole('button', { name: 'Choose another file' }).click();
});

test('a file whose every row is wrong cannot be imported, and the ledger is unchanged', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  const lines = readFileSync(join(samples, 'native-with-bad-rows.csv'), 'utf8').split(/\r?\n/);
  const allBad = join(dataDir, 'all-bad.csv');
  writeFileSync(allBad, [lines[0], lines[5], ...lines.slice(7, 10)].join('\n') + '\n');
  await page.getByTestId('file-input').setInputFiles(allBad);
  await page.getByRole('button', { name: 'Preview the import' }).click();
  await expect(page.getByTestId('preview-message')).toContainText('This file cannot be imported');
  await expect(page.getByRole('button', { name: 'Nothing to import' })).toBeDisabled();
  await shot(page, 'ledger-import-all-rejected');

  expect(await ledgerCount(page)).toBe('30 transactions');
  await page.getByRole('tab', { name: 'Import history' }).click();
  await expect(page.getByRole('table', { name: 'Imports' }).getByRole('row')).toHaveCount(2);
  await openScreen(page, 'Tickets');
});

test('an import that rejected more rows than it wrote ends in a warning that says so', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  const lines = readFileSync(join(samples, 'native-with-bad-rows.csv'), 'utf8').split(/\r?\n/);
  const mostlyBad = join(dataDir, 'mostly-bad.csv');
  // One more: a token ID far too long to fit a line, as a contract address in a reason is.
  const longToken = `TRON_${'USDT'.repeat(16)}`;
  const long = lines[10]!.replace('TRON_USDT', longToken);
  writeFileSync(mostlyBad, [lines[0], lines[1], lines[5], ...lines.slice(7, 10), long].join('\n') + '\n');
  await importLedger(page, mostlyBad, 1);
  const result = page.getByTestId('import-result');
  await expect(result).toContainText('Import finished: 1 record written, 5 rows rejected');
  await expect(result).toContainText('The rejected rows are not in the ledger');
  await expect(result).toHaveClass(/banner-warn/);
  await shot(page, 'ledger-import-mostly-rejected');

  // The import's detail lists its rejected rows with their reasons whole, inside the dialog.
  await page.getByRole('tab', { name: 'Import history' }).click();
  await page.getByRole('table', { name: 'Imports' }).getByRole('row').filter({ hasText: 'mostly-bad.csv' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import' });
  const table = dialog.getByRole('table', { name: 'Rejected rows' });
  await expect(table.getByRole('row')).toHaveCount(6);
  const frame = await table.locator('xpath=ancestor::div[contains(@class, "scroll-box")]').boundingBox();
  for (const cell of await table.getByRole('row').locator('td:last-child').all()) {
    const box = (await cell.boundingBox())!;
    expect(box.x + box.width, `${await cell.textContent()} ends inside the dialog`).toBeLessThanOrEqual(frame!.x + frame!.width + 0.5);
  }
  await expect(table).toContainText(`unknown token "${longToken}" (not in the catalogue)`);
  await shot(page, 'ledger-import-detail');
  await page.keyboard.press('Escape');
});

test('a file already imported, with rows rejected: "nothing new to import", not an error', async ({ nps }) => {
  const { page } = await session(nps);
  const file = join(samples, 'native-with-bad-rows.csv');
  // The 7 good rows not imported yet land; the one already in the ledger is unchanged.
  await importLedger(page, file, 7);
  await expect(page.getByTestId('import-result')).toHaveClass(/banner-good/);
  await expect(page.getByTestId('import-result')).toContainText('Import finished: 7 records written, 4 rows rejected');

  await chooseLedgerFile(page, file);
  await page.getByRole('button', { name: 'Preview the import' }).click();
  const message = page.getByTestId('preview-message');
  await expect(message).toContainText('Nothing new to import: 8 rows are already in the ledger as they are; 4 rejected');
  await expect(message).not.toContainText('cannot be imported');
  await expect(message).toHaveAttribute('role', 'status');
  await expect(page.getByRole('button', { name: 'Nothing to import' })).toBeDisabled();
  await shot(page, 'ledger-import-nothing-new');
});

test('a real export with a header and no rows says so at once: nothing to import, no questions first', async ({ nps }) => {
  const { page } = await session(nps);
  await chooseLedgerFile(page, join(root, 'test', 'fixtures', 'exports', 'bscscan-header-only-txlist.csv'));
  const empty = page.getByTestId('detect-empty');
  await expect(empty).toContainText('Nothing to import');
  await expect(empty).toContainText('a header and no data rows');
  await expect(page.getByTestId('questions')).toBeHidden();
  await expect(page.getByLabel('Wallet for every row')).toBeHidden();
  await expect(page.getByTestId('blocked-reason')).toHaveText('The file has no data rows: there is nothing to import.');
  await expect(page.getByRole('button', { name: 'Preview the import' })).toBeDisabled();
  await shot(page, 'ledger-import-header-only');
});
