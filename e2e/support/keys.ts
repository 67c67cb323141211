import { expect, type Page } from '@playwright/test';
import { openScreen } from './session';

/** Create an API key for all wallets in Settings, as a user does, and keep the secret it shows once. */
export async function createApiKey(page: Page, label: string): Promise<{ api_key: string; api_secret: string }> {
  await openScreen(page, 'Settings');
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByRole('dialog', { name: 'Create an API key' }).getByLabel('Label').fill(label);
  await page.getByRole('dialog', { name: 'Create an API key' }).getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('dialog', { name: 'API key created' });
  const key = {
    api_key: (await shown.getByTestId('created-api-key').textContent())!,
    api_secret: (await shown.getByTestId('created-api-secret').textContent())!,
  };
  expect(key.api_secret).toMatch(/^[0-9a-f]{64}$/);
  await shown.getByLabel('I have stored the secret').check();
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toBeHidden();
  return key;
}
