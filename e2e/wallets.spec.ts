import { type Page } from '@playwright/test';
import { join } from 'node:path';
import { openScreen, samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });
// The address resources/samples/tronscan-token-transfers.csv was exported for.
const OWN = 'TWSjYGnedK9bWn4ov6LeXR9euGKbPoCcE5';

/** Both widths an accountant's window has: a laptop and a narrow one. */
async function shots(page: Page, name: string): Promise<void> {
  for (const width of [1280, 1024]) {
    await page.setViewportSize({ width, height: 800 });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `/tmp/wallets-${name}-${width}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot(page, `wallets-${name}`);
}

let walletId = '';

test('name a wallet and give it its address on a chain', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Wallets');
  await expect(page.getByText('No wallets yet')).toBeVisible();
  await page.getByRole('button', { name: 'New wallet' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name', { exact: true }).fill('Treasury (Tron)');
  await dialog.getByLabel('Notes').fill('Hot wallet of the payout desk');
  await dialog.getByLabel('Chain of its address').selectOption('TRON');
  await dialog.getByLabel('Address', { exact: true }).fill('0x12');
  await dialog.getByRole('button', { name: 'Create wallet' }).click();
  // Refused, naming the field and the reason; nothing was created.
  await expect(dialog.getByRole('alert')).toContainText('addresses[0].address: "0x12" is not a TRON address on TRON');
  await dialog.getByLabel('Address', { exact: true }).fill(OWN);
  await dialog.getByRole('button', { name: 'Create wallet' }).click();
  await expect(dialog).toBeHidden();

  const table = page.getByRole('table', { name: 'Wallets' });
  const row = table.getByRole('row').nth(1);
  await expect(row).toContainText('Treasury (Tron)');
  await expect(row).toContainText(OWN);
  await expect(row).toContainText('Hot wallet of the payout desk');
  walletId = (await row.getByTestId('wallet-id').getAttribute('title')) ?? '';
  expect(walletId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  await shots(page, 'list');
});

test('import a file into the wallet by its name; its address reads the direction', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Ledger');
  await page.getByRole('tab', { name: 'Import', exact: true }).click();
  await page.getByTestId('file-input').setInputFiles(join(samples, 'tronscan-token-transfers.csv'));
  await expect(page.getByTestId('questions')).toContainText('Which wallet are these rows of?');
  const select = page.getByLabel('Wallet for every row');
  // Listed by name.
  await expect(select.locator('option', { hasText: 'Treasury (Tron)' })).toHaveCount(1);
  await select.selectOption({ label: 'New wallet named…' });
  await expect(page.getByTestId('blocked-reason')).toContainText('Name the new wallet');
  await page.getByLabel('Name of the new wallet').fill('treasury (TRON)');
  await expect(page.getByText('A wallet has this name: its rows go there.')).toBeVisible();
  await expect(page.getByTestId('blocked-reason')).toBeHidden();
  await shots(page, 'import-by-name');

  await page.getByRole('button', { name: 'Preview the import' }).click();
  await expect(page.getByTestId('preview-message')).toContainText('8 would be added');
  await expect(page.getByTestId('read-as-summary')).toContainText(OWN);
  await page.getByRole('button', { name: 'Import 8 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('8 added');
});

test('the ledger shows the wallet by name, its ID on hover and in the detail', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('tab', { name: 'Transactions' }).click();
  await expect(page.getByTestId('tx-count')).toHaveText('8 transactions');
  const grid = page.getByRole('grid', { name: 'Transactions' });
  const name = grid.getByText('Treasury (Tron)', { exact: true }).first();
  await expect(name).toBeVisible();
  await expect(name).toHaveAttribute('title', walletId);
  await expect(page.getByLabel('Wallet', { exact: true }).locator('option', { hasText: 'Treasury (Tron) (8)' })).toHaveCount(1);
  await grid.getByText('Treasury (Tron)', { exact: true }).nth(1).hover();
  await shots(page, 'ledger');
  await grid.getByRole('row').nth(1).getByRole('gridcell').first().click();
  await page.keyboard.press('Enter');
  const detail = page.getByRole('complementary', { name: 'Transaction detail' });
  await expect(detail).toContainText('Treasury (Tron)');
  await expect(detail).toContainText(walletId);
  await shots(page, 'ledger-detail');
  await page.keyboard.press('Escape');
});

test('rename the wallet: every screen follows', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Wallets');
  const row = page.getByRole('table', { name: 'Wallets' }).getByRole('row').nth(1);
  await expect(row).toContainText('8');
  await row.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name', { exact: true }).fill('Payout desk (Tron)');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText('Payout desk (Tron)');
  await openScreen(page, 'Ledger');
  await page.getByRole('tab', { name: 'Transactions' }).click();
  await expect(page.getByRole('grid', { name: 'Transactions' }).getByText('Payout desk (Tron)', { exact: true }).first()).toHaveAttribute(
    'title',
    walletId,
  );
});
