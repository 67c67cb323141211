import { expect, test } from '@playwright/test';
import { openScreen, shot, useSession } from './support/session';

const session = useSession();

test('chains: filter by identifier and page through them', async () => {
  const { page } = session();
  await openScreen(page, 'Catalogue');
  const table = page.getByRole('table', { name: 'chains' });
  await expect(table.getByRole('row')).toHaveCount(12);
  await expect(page.getByText('1–11 of 11')).toBeVisible();
  await shot(page, 'catalogue-chains');

  await page.getByLabel('Chain identifier').selectOption('ETH');
  await expect(page.getByText('1–8 of 8')).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(9);
  await expect(table).not.toContainText('TRON');

  await page.getByLabel('Chain identifier').selectOption('');
  await page.getByLabel('Page size').selectOption('10');
  await expect(page.getByText('1–10 of 11')).toBeVisible();
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(page.getByText('11–11 of 11')).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table).toContainText('TRON');
  await expect(page.getByRole('button', { name: 'Next page' })).toBeDisabled();
});

test('tokens: filter by chain and by exact token ID', async () => {
  const { page } = session();
  await page.getByRole('tab', { name: 'Tokens' }).click();
  const table = page.getByRole('table', { name: 'tokens' });
  await expect(page.getByText(/of 2[0-9]$/)).toBeVisible();

  await page.getByLabel('Chain ID').selectOption('TRON');
  await expect(page.getByText('1–2 of 2')).toBeVisible();
  await expect(table).toContainText('TRON_USDT');
  await expect(table).toContainText('TR7NHqjeKQ');
  await shot(page, 'catalogue-tokens');

  await page.getByLabel('Chain ID').selectOption('');
  await page.getByLabel('Token ID').fill('tron_usdt');
  await page.getByLabel('Token ID').press('Enter');
  await expect(page.getByText('No tokens match these filters')).toBeVisible();
  await shot(page, 'catalogue-empty');

  await page.getByLabel('Token ID').fill('TRON_USDT');
  await page.getByLabel('Token ID').press('Enter');
  await expect(page.getByText('1–1 of 1')).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(2);
});
