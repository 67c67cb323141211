import { AddressVerifyResult } from '../src/shared/address';
import { dataOf, unsignedCall } from './support/api';
import { openScreen, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });

test('a valid EVM address in lower case: valid, with its checksummed form', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Address check');
  await page.getByLabel('Chain').selectOption('ETH');
  await page.getByLabel('Address').fill('0xdac17f958d2ee523a2206206994597c13d831ec7');
  await page.getByRole('button', { name: 'Check address' }).click();
  const verdict = page.getByTestId('verdict');
  await expect(verdict.getByRole('heading')).toHaveText('Valid address');
  await expect(page.getByTestId('checksummed')).toHaveText('0xdAC17F958D2ee523a2206206994597C13D831ec7');
  await shot(page, 'address-valid');
});

test('a mixed-case EVM address with a wrong checksum: invalid, with the reason', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByLabel('Address').fill('0xdAC17F958D2ee523a2206206994597C13D831eC7');
  await page.getByLabel('Address').press('Enter');
  const verdict = page.getByTestId('verdict');
  await expect(verdict.getByRole('heading')).toHaveText('Not a valid address');
  await expect(verdict).toContainText(/checksum/i);
  await shot(page, 'address-invalid');
});

test('TRON addresses, and chains that cannot be checked say why', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByLabel('Chain').selectOption('TRON');
  await page.getByLabel('Address').fill('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  await page.getByRole('button', { name: 'Check address' }).click();
  await expect(page.getByTestId('verdict').getByRole('heading')).toHaveText('Valid address');

  await page.getByLabel('Address').fill(' TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
  await page.getByRole('button', { name: 'Check address' }).click();
  await expect(page.getByTestId('verdict').getByRole('heading')).toHaveText('Not a valid address');

  const btc = page.getByLabel('Chain').locator('option[value="BTC"]');
  await expect(btc).toBeDisabled();
  await expect(btc).toContainText('not checkable');
  await expect(page.getByText(/Not checkable here: .*BTC/)).toBeVisible();
});

test('the same checks over the API answer exactly {is_valid, address}, the address as sent', async ({ nps }) => {
  const { apiBase } = await session(nps);
  // The contract's strict schema: the endpoint's data has these two keys and no other.
  const check = async (chain_id: string, address: string) =>
    dataOf(AddressVerifyResult, await unsignedCall(apiBase, 'POST', '/address/verify', { chain_id, address }));
  expect(await check('ETH', '0xdac17f958d2ee523a2206206994597c13d831ec7')).toEqual({
    is_valid: true,
    address: '0xdac17f958d2ee523a2206206994597c13d831ec7',
  });
  expect(await check('ETH', '0xdAC17F958D2ee523a2206206994597C13D831eC7')).toEqual({
    is_valid: false,
    address: '0xdAC17F958D2ee523a2206206994597C13D831eC7',
  });
  expect(await check('TRON', ' TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toEqual({
    is_valid: false,
    address: ' TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  });
});
