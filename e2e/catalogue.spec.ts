import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChainPage, TokenPage } from '../src/shared/catalogue';
import { dataOf, unsignedCall } from './support/api';
import { importLedger } from './support/ledger';
import { openScreen, root, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });

test('chains: filter by identifier and page through them', async ({ nps }) => {
  const { page } = await session(nps);
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

test('tokens: filter by chain and by exact token ID', async ({ nps }) => {
  const { page } = await session(nps);
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

test('edit a chain: a bad value is refused with the field and the reason, Escape leaves the row as it was, Save keeps a good one', async ({
  nps,
}) => {
  const { page, apiBase } = await session(nps);
  await page.getByRole('tab', { name: 'Chains' }).click();
  const table = page.getByRole('table', { name: 'chains' });
  const eth = table.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Ethereum', exact: true }) });
  await expect(eth).toContainText('etherscan.io/tx/{hash}');
  await expect(eth.getByRole('cell').nth(4)).toHaveText('12');

  await page.getByRole('button', { name: 'Edit ETH', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit chain ETH' });
  const threshold = dialog.getByLabel('Confirming threshold');
  await expect(threshold).toHaveValue('12');
  await expect(dialog.getByRole('button', { name: 'Save' })).toBeDisabled();
  await threshold.fill('-1');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('confirming_threshold: must be an integer >= 0');
  await dialog.getByLabel('Explorer tx URL').fill('https://etherscan.io/tx/');
  await threshold.press('Enter');
  await expect(dialog.getByRole('alert')).toContainText('must be an integer >= 0');
  await shot(page, 'catalogue-edit-chain');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'Edit ETH', exact: true })).toBeFocused();

  await page.getByRole('button', { name: 'Edit ETH', exact: true }).click();
  await expect(dialog.getByLabel('Confirming threshold')).toHaveValue('12');
  await dialog.getByLabel('Explorer tx URL').fill('https://etherscan.io/tx/');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('explorer_tx_url: must be an https URL containing {hash}');
  await dialog.getByLabel('Explorer tx URL').fill('https://etherscan.io/tx/{hash}');
  await dialog.getByLabel('Confirming threshold').fill('64');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(eth.getByRole('cell').nth(4)).toHaveText('64');

  const chain = dataOf(ChainPage, await unsignedCall(apiBase, 'GET', '/chains?chain_id=ETH'));
  expect(chain.total).toBe(1);
  expect(chain.chains[0]).toMatchObject({
    chain_id: 'ETH',
    confirming_threshold: 64,
    explorer_tx_url: 'https://etherscan.io/tx/{hash}',
    enabled: true,
  });
});

test('switch a chain off and a token’s deposits off: kept after a reload, and the API says so', async ({ nps }) => {
  const { page, apiBase } = await session(nps);
  // The chain through its Edit dialog.
  await page.getByRole('button', { name: 'Edit BTC', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit chain BTC' });
  await expect(dialog.getByLabel('Enabled')).toBeChecked();
  await dialog.getByLabel('Enabled').uncheck();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('switch', { name: 'enabled: BTC' })).toHaveAttribute('aria-checked', 'false');
  await expect(page.getByRole('switch', { name: 'enabled: ETH' })).toHaveAttribute('aria-checked', 'true');

  // The token with its switch in the row.
  await page.getByRole('tab', { name: 'Tokens' }).click();
  await page.getByLabel('Token ID').fill('TRON_USDT');
  await page.getByLabel('Token ID').press('Enter');
  await expect(page.getByText('1–1 of 1')).toBeVisible();
  await page.getByRole('button', { name: 'Edit TRON_USDT', exact: true }).click();
  const tokenDialog = page.getByRole('dialog', { name: 'Edit token TRON_USDT' });
  await tokenDialog.getByLabel('Dust threshold').fill('-0.5');
  await tokenDialog.getByRole('button', { name: 'Save' }).click();
  await expect(tokenDialog.getByRole('alert')).toHaveText('dust_threshold: must not be negative');
  await shot(page, 'catalogue-edit-token');
  await page.keyboard.press('Escape');
  await expect(tokenDialog).toBeHidden();
  const deposit = page.getByRole('switch', { name: 'can_deposit: TRON_USDT' });
  await expect(deposit).toHaveAttribute('aria-checked', 'true');
  await deposit.click();
  await expect(deposit).toHaveAttribute('aria-checked', 'false');
  await expect(page.getByRole('switch', { name: 'can_withdraw: TRON_USDT' })).toHaveAttribute('aria-checked', 'true');

  // A fresh window: what is shown comes from the store.
  await page.reload();
  await openScreen(page, 'Catalogue');
  await page.getByRole('tab', { name: 'Chains' }).click();
  await expect(page.getByRole('switch', { name: 'enabled: BTC' })).toHaveAttribute('aria-checked', 'false');
  await expect(page.getByRole('table', { name: 'chains' }).getByRole('row').filter({ hasText: 'Bitcoin' })).toHaveClass(/row-off/);
  await shot(page, 'catalogue-chain-disabled');
  await page.getByRole('tab', { name: 'Tokens' }).click();
  await expect(page.getByRole('tab', { name: 'Tokens' })).toHaveAttribute('aria-selected', 'true');
  await page.getByLabel('Chain ID', { exact: true }).selectOption('TRON');
  await expect(page.getByText('1–2 of 2')).toBeVisible();
  await expect(page.getByRole('switch', { name: 'can_deposit: TRON_USDT' })).toHaveAttribute('aria-checked', 'false');
  await expect(page.getByRole('switch', { name: 'can_withdraw: TRON_USDT' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByRole('switch', { name: 'can_deposit: TRON', exact: true })).toHaveAttribute('aria-checked', 'true');

  const btc = dataOf(ChainPage, await unsignedCall(apiBase, 'GET', '/chains?chain_id=BTC'));
  expect(btc.total).toBe(1);
  expect(btc.chains[0]).toMatchObject({ chain_id: 'BTC', enabled: false });
  const tron = dataOf(TokenPage, await unsignedCall(apiBase, 'GET', '/tokens?token_id=TRON_USDT'));
  expect(tron.total).toBe(1);
  expect(tron.tokens[0]).toMatchObject({ token_id: 'TRON_USDT', can_deposit: false, can_withdraw: true });
  // Every chain is listed still, enabled or not, and only BTC changed from the catalogue file.
  const seeded = (
    JSON.parse(readFileSync(join(root, 'resources', 'catalogue.json'), 'utf8')) as { chains: { chain_id: string; enabled: boolean }[] }
  ).chains;
  const all = dataOf(ChainPage, await unsignedCall(apiBase, 'GET', '/chains?page_size=100'));
  expect(all.total).toBe(seeded.length);
  expect(all.chains.filter((c) => !c.enabled).map((c) => c.chain_id)).toEqual(
    seeded
      .filter((c) => !c.enabled || c.chain_id === 'BTC')
      .map((c) => c.chain_id)
      .sort(),
  );
});

test("a token's decimal: corrected in Edit, refused below what a record shows (the record named); an unused token removed, a used one not", async ({
  nps,
}) => {
  const { page, apiBase, dataDir } = await session(nps);
  // One ETH_USDC record of 1.25: two decimal places.
  const file = join(dataDir, 'usdc.csv');
  const tx = '6f0c1b8a-6c1e-4d3f-9a7b-1d2e3f4a5b61';
  writeFileSync(
    file,
    'transaction_id,wallet_id,type,status,amount,chain_id,token_id\n' +
      `${tx},7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b,Deposit,Completed,1.25,ETH,ETH_USDC\n`,
  );
  await importLedger(page, file, 1);

  await openScreen(page, 'Catalogue');
  await page.getByRole('tab', { name: 'Tokens' }).click();
  await page.getByLabel('Chain ID').selectOption('ETH');
  const usdc = page.getByRole('table', { name: 'tokens' }).getByRole('row').filter({ hasText: 'ETH_USDC' });
  await expect(usdc.getByRole('cell').nth(5)).toHaveText('6');
  await page.getByRole('button', { name: 'Edit ETH_USDC', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit token ETH_USDC' });
  const decimal = dialog.getByLabel('Decimal');
  await expect(decimal).toHaveValue('6');
  await decimal.fill('1');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(
    `decimal: 1 record of ETH_USDC has an amount with more than 1 decimal places (transaction ${tx}: 1.25, 2 places), so ETH_USDC keeps at least 2`,
  );
  await shot(page, 'catalogue-edit-token-decimal-refused');
  await decimal.fill('8');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(usdc.getByRole('cell').nth(5)).toHaveText('8');
  const token = dataOf(TokenPage, await unsignedCall(apiBase, 'GET', '/tokens?token_id=ETH_USDC'));
  expect(token.tokens[0]).toMatchObject({ token_id: 'ETH_USDC', decimal: 8 });

  // Removing it is refused while its record stands.
  await page.getByRole('button', { name: 'Edit ETH_USDC', exact: true }).click();
  await dialog.getByRole('button', { name: 'Remove token…' }).click();
  const remove = page.getByRole('dialog', { name: 'Remove token ETH_USDC' });
  await remove.getByRole('button', { name: 'Remove token', exact: true }).click();
  await expect(remove.getByRole('alert')).toHaveText(
    'token_id: 1 ledger record is in ETH_USDC; only a token no record uses can be removed',
  );
  await remove.getByRole('button', { name: 'Keep the token' }).click();

  // A token no record uses goes; a native coin offers no removal.
  await page.getByRole('button', { name: 'Edit ETH_USDT', exact: true }).click();
  await page.getByRole('dialog', { name: 'Edit token ETH_USDT' }).getByRole('button', { name: 'Remove token…' }).click();
  await shot(page, 'catalogue-remove-token');
  await page.getByRole('dialog', { name: 'Remove token ETH_USDT' }).getByRole('button', { name: 'Remove token', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Remove token ETH_USDT' })).toBeHidden();
  await expect(page.getByRole('table', { name: 'tokens' })).not.toContainText('ETH_USDT');
  expect(dataOf(TokenPage, await unsignedCall(apiBase, 'GET', '/tokens?token_id=ETH_USDT')).total).toBe(0);
  await page.getByRole('button', { name: 'Edit ETH', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Edit token ETH' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Remove token…' })).toHaveCount(0);
  await page.keyboard.press('Escape');
});
