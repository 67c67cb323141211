import { join } from 'node:path';
import { expect, test } from 'nps-reconcile/testing';

/*
 * docs/testing.md's own example, written from that page alone: if the page stops being enough to
 * write a test, this file fails with it.
 */

test('the imported ledger is in the window', async ({ nps, page }) => {
  const file = join(import.meta.dirname, '..', 'resources', 'samples', 'native-ledger.csv');
  const imported = await nps.run(['import', file]);
  expect(imported).toSucceed();

  const window = await nps.open(page);
  await window.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Ledger' }).click();
  await expect(window.getByTestId('tx-count')).toHaveText('30 transactions');
  // The newest record first: a withdrawal of the sample ledger, by its request ID.
  await expect(window.getByRole('grid', { name: 'Transactions' }).getByRole('row').nth(1)).toContainText('WD-2026-01069');
});

test('the same file: seeded through the API, a second window opened', async ({ nps, page }) => {
  // The service and its data are the file's: the ledger imported above is still there.
  const answer = await fetch(`${nps.url}/nps/chains?chain_identifier=TRON`);
  expect(answer.status).toBe(200);
  const created = await nps.run(['wallets', 'create', 'QA wallet']);
  expect(created).toSucceed();

  const window = await nps.open(page);
  await window.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Wallets' }).click();
  await expect(window.getByRole('main')).toContainText('QA wallet');
  await expect(window.getByTestId('wallet-id').first()).toBeVisible();
});
