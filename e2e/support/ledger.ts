import { expect, type Page } from '@playwright/test';
import { openScreen } from './session';

/**
 * Open the import wizard and choose `file`. The wizard keeps the last import's report (or the
 * file left on its mapping or preview) until asked for another file: wait until it shows one of those or
 * its file drop (an instant check could run before the tab has drawn either, and then wait for a
 * file drop that never comes).
 */
export async function chooseLedgerFile(page: Page, file: string): Promise<void> {
  await openScreen(page, 'Ledger');
  await page.getByRole('tab', { name: 'Import', exact: true }).click();
  const another = page.getByRole('button', { name: 'Import another file' });
  const back = page.getByRole('button', { name: 'Back to the mapping' });
  const choose = page.getByRole('button', { name: 'Choose another file' });
  const drop = page.getByRole('button', { name: /Drop a ledger file here/ });
  await expect(another.or(back).or(choose).or(drop)).toBeVisible();
  if (await back.isVisible()) await back.click();
  if (await choose.isVisible()) await choose.click();
  if (await another.isVisible()) await another.click();
  await expect(drop).toBeEnabled();
  await page.getByTestId('file-input').setInputFiles(file);
}

/** Import a ledger file through the wizard, as an accountant does, and wait for the report (`rows` written, all added unless said). */
export async function importLedger(page: Page, file: string, rows: number, report = `${rows} added`): Promise<void> {
  await chooseLedgerFile(page, file);
  await page.getByRole('button', { name: 'Preview the import' }).click();
  await page.getByRole('button', { name: `Import ${rows} row${rows === 1 ? '' : 's'}` }).click();
  await expect(page.getByTestId('import-result')).toContainText(report);
}
