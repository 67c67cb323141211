import { MATCH_FLAGS, VerifyResultsA, VerifyResultsB } from '../src/shared/reconcile';
import { dataOf } from './support/api';
import { newKeyPair, signedCall } from './support/sign';
import { openScreen, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });
const probe = { txs: [{ hash: '0x' + 'ab'.repeat(32), amount: '1.5' }] };
let created: { api_key: string; api_secret: string };

test('the API server is running where Settings says', async ({ nps }) => {
  const { page, apiBase, dataDir } = await session(nps);
  await openScreen(page, 'Settings');
  await expect(page.getByTestId('api-base-url')).toHaveText(apiBase);
  await expect(page.getByTestId('api-port')).toHaveText(new URL(apiBase).port);
  await expect(page.getByTestId('data-dir')).toHaveText(dataDir);
  await expect(page.getByText('No API keys yet')).toBeVisible();
  await shot(page, 'settings');
});

test('create a key: the secret is shown once, and it signs a request to the local API', async ({ nps }) => {
  const { page, apiBase } = await session(nps);
  await page.getByRole('button', { name: 'Create API key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create an API key' });
  await dialog.getByLabel('Label').fill('Month-end script');
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('dialog', { name: 'API key created' });
  await expect(shown.getByRole('alert')).toContainText('shown this once');
  created = {
    api_key: (await shown.getByTestId('created-api-key').textContent())!,
    api_secret: (await shown.getByTestId('created-api-secret').textContent())!,
  };
  expect(created.api_key).toMatch(/^[0-9a-f]{64}$/);
  expect(created.api_secret).toMatch(/^[0-9a-f]{64}$/);
  await shot(page, 'settings-key-created');

  // Nothing in the ledger: not found, so every flag false and no record, in either shape.
  const notFound = Object.fromEntries([...MATCH_FLAGS, 'result'].map((f) => [f, false]));
  const shapeA = dataOf(VerifyResultsA, await signedCall(apiBase, created, 'POST', '/bill/verify/txs', { body: probe }));
  expect(shapeA).toEqual([{ ...notFound, tx: null, ticket_id: null }]);
  const shapeB = dataOf(VerifyResultsB, await signedCall(apiBase, created, 'POST', '/bill/verify/txs', { query: 'shape=B', body: probe }));
  expect(shapeB).toEqual([{ ...notFound, data: null, ticket_id: null }]);

  const forged = await signedCall(apiBase, { api_key: created.api_key, api_secret: newKeyPair().api_secret }, 'POST', '/bill/verify/txs', {
    body: probe,
  });
  expect([forged.http, forged.status]).toEqual([401, 2005]);

  // Shown once: neither Escape nor a click beside it closes the dialog, it has no close button, and Done waits for the confirmation.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(shown).toBeVisible();
  await page.mouse.click(5, 5);
  await expect(shown).toBeVisible();
  await expect(shown.getByRole('button', { name: 'Close' })).toHaveCount(0);
  await expect(shown.getByRole('button', { name: 'Done' })).toBeDisabled();
  await shown.getByLabel('I have stored the secret').check();
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toBeHidden();
});

test('the key is listed with its last use, and the secret is not shown again', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Ledger');
  await openScreen(page, 'Settings');
  const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /Month-end script/ });
  await expect(row).toContainText('Active');
  await expect(row).toContainText('just now');
  await expect(page.getByText(created.api_secret)).toHaveCount(0);
});

test('add a public key made elsewhere, scoped to one wallet', async ({ nps }) => {
  const { page, apiBase } = await session(nps);
  const outside = newKeyPair();
  const wallet = '3f2a6c1e-0b7d-4c9a-9e51-7d1f0c2b4a61';
  await page.getByRole('button', { name: 'Add public key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add a public key' });
  await dialog.getByLabel('Label').fill('Auditor laptop');
  await dialog.getByLabel('Ed25519 public key').fill(outside.api_key);
  await dialog.getByLabel('Only these wallets').check();
  await dialog.getByLabel(/Wallet IDs/).fill(wallet);
  await dialog.getByRole('button', { name: 'Add key' }).click();
  await expect(dialog).toBeHidden();
  const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /Auditor laptop/ });
  await expect(row).toContainText('3f2a6c1e');

  expect(dataOf(VerifyResultsA, await signedCall(apiBase, outside, 'POST', '/bill/verify/txs', { body: probe }))).toHaveLength(1);
  const otherWallet = await signedCall(apiBase, outside, 'POST', '/bill/verify/txs', {
    body: { ...probe, wallet_id: '00000000-0000-4000-8000-000000000000' },
  });
  expect(otherWallet.status).toBe(2006);
});

test('revoke a key: its requests are refused from then on', async ({ nps }) => {
  const { page, apiBase } = await session(nps);
  const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /Month-end script/ });
  await row.getByRole('button', { name: 'Revoke' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await expect(dialog).toBeHidden();
  await expect(row).toContainText('Revoked');
  const answer = await signedCall(apiBase, created, 'POST', '/bill/verify/txs', { body: probe });
  expect([answer.http, answer.status]).toEqual([401, 2002]);
  await shot(page, 'settings-keys');
});
