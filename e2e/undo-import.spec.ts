import { type Page } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseLedgerFile } from './support/ledger';
import { samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });
test.describe.configure({ timeout: 120_000 });

/*
 * A second file that changes the sample's first record (amount 1500 -> 1600, completed a minute
 * later) and brings one record more: the import to undo. Native format, the sample's records' own wallet.
 */
const WALLET = '7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b';
const SECOND = [
  'transaction_id,wallet_id,type,status,amount,to,fee_ratio,fee_fixed,fee,er,amount_actual,hash,chain_id,token_id,created_at,confirmed_at,completed_at,request_id',
  `26a4b538-05ad-4c31-a81b-076405f5964a,${WALLET},Deposit,Completed,1600,TGhV8pcMoiZyWzAw5h8vRfBiKi9i3AtY7N,,,,,,5c5422b18e253313c231e7701dcd9f9665ea5e02b598edb421f9c685486d0a1b,TRON,TRON_USDT,1767600000000,1767600060000,1767600180000,`,
  `0e7c1a55-0000-4000-8000-000000000001,${WALLET},Deposit,Completed,75,TGhV8pcMoiZyWzAw5h8vRfBiKi9i3AtY7N,,,,,,${'ab'.repeat(32)},TRON,TRON_USDT,1767700000000,,,`,
].join('\n');

async function importFile(page: Page, path: string, rows: number, result: RegExp): Promise<void> {
  await chooseLedgerFile(page, path);
  await expect(page.getByTestId('detected-preset')).toContainText('NPS ledger (native)');
  await page.getByRole('button', { name: 'Preview the import' }).click();
  await page.getByRole('button', { name: `Import ${rows} rows` }).click();
  await expect(page.getByTestId('import-result')).toContainText(result);
}

const history = (page: Page) => page.getByRole('table', { name: 'Imports' });

test('import the sample, then a file that changes one record and adds one', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  await importFile(page, join(samples, 'native-ledger.csv'), 30, /30 added/);
  const second = join(dataDir, 'second.csv');
  writeFileSync(second, SECOND + '\n');
  // The preview shows each change with the value the record has and the one the file brings, times as UTC dates.
  await chooseLedgerFile(page, second);
  await page.getByRole('button', { name: 'Preview the import' }).click();
  const changes = page.getByRole('table', { name: 'Updated records' }).getByRole('row').nth(1);
  await expect(changes).toContainText('26a4b538-05ad-4c31-a81b-076405f5964a');
  await expect(changes).toContainText('amount: 1500 → 1600');
  await expect(changes).toContainText('completed_at: 2026-01-05 08:02:00 UTC → 2026-01-05 08:03:00 UTC');
  await expect(changes).not.toContainText('confirmed_at');
  await page.getByRole('heading', { name: /Records that would change/ }).scrollIntoViewIfNeeded();
  await shot(page, 'ledger-import-preview-changes');
  await importFile(page, second, 2, /1 added, 1 updated/);
  await expect(page.getByRole('heading', { name: /Records that changed/ })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Updated records' })).toContainText('amount: 1500 → 1600');
  await page.getByRole('tab', { name: 'Transactions' }).click();
  await expect(page.getByTestId('tx-count')).toHaveText('31 transactions');
});

test('the first import cannot be undone while the second changed its records', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('tab', { name: 'Import history' }).click();
  await expect(history(page).getByRole('row')).toHaveCount(3);
  // A native file names its rows' wallets; the detail says how it was read.
  await expect(history(page).getByRole('row').filter({ hasText: 'native-ledger.csv' })).toContainText('from the file');
  await history(page).getByRole('row').filter({ hasText: 'native-ledger.csv' }).getByText('native-ledger.csv').click();
  const detail = page.getByRole('dialog', { name: 'Import' });
  await expect(detail.getByTestId('read-as-summary')).toContainText('times without a zone in UTC');
  await detail.getByRole('button', { name: 'Close' }).first().click();
  await expect(detail).toBeHidden();
  await history(page).getByRole('button', { name: 'Undo import of native-ledger.csv' }).click();
  const dialog = page.getByRole('dialog', { name: 'Undo import' });
  await expect(dialog.getByRole('alert')).toHaveText(/cannot be undone yet: a later import changed its records\. Undo second\.csv first\./);
  await expect(dialog.getByTestId('undo-confirm')).toHaveCount(0);
  await shot(page, 'ledger-undo-blocked');
  await dialog.getByRole('button', { name: 'Close', exact: true }).first().click();
  await expect(dialog).toBeHidden();
});

test('undo the second import: the confirmation says what changes, the history shows it undone, the ledger is back', async ({ nps }) => {
  const { page } = await session(nps);
  await history(page).getByRole('button', { name: 'Undo import of second.csv' }).click();
  const dialog = page.getByRole('dialog', { name: 'Undo import' });
  const plan = dialog.getByTestId('undo-plan');
  await expect(plan).toContainText('1 record it added will be removed.');
  await expect(plan).toContainText('1 record it updated will be restored to their earlier version.');
  await expect(plan).toContainText('0 Pending tickets on the removed records will be dismissed.');
  await shot(page, 'ledger-undo-confirm');
  await dialog.getByTestId('undo-confirm').click();
  await expect(dialog).toBeHidden();

  const row = history(page).getByRole('row').filter({ hasText: 'second.csv' });
  await expect(row.getByTestId('undone')).toHaveText(/^Undone by the app, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  await expect(history(page).getByRole('button', { name: 'Undo import of second.csv' })).toHaveCount(0);
  await shot(page, 'ledger-undo-history');

  await page.getByRole('tab', { name: 'Transactions' }).click();
  await expect(page.getByTestId('tx-count')).toHaveText('30 transactions');
  const search = page.getByLabel('Search by hash, transaction ID or request ID');
  await search.fill('26a4b538-05ad-4c31-a81b-076405f5964a');
  await search.press('Enter');
  const grid = page.getByRole('grid', { name: 'Transactions' });
  await expect(grid).toContainText('1,500');
  await expect(grid).not.toContainText('1,600');
});
