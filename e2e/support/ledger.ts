import { expect, type Page } from '@playwright/test';
import { openScreen } from './session';

/** Import a ledger file through the wizard, as an accountant does, and wait for the report (`rows` written, all added unless said). */
export async function importLedger(page: Page, file: string, rows: number, report = `${rows} added`): Promise<void> {
  await openScreen(page, 'Ledger');
  await page.getByRole('tab', { name: 'Import', exact: true }).click();
  const another = page.getByRole('button', { name: 'Import another file' });
  if (await another.isVisible()) await another.click();
  await page.getByTestId('file-input').setInputFiles(file);
  await page.getByRole('button', { name: 'Preview the import' }).click();
  await page.getByRole('button', { name: `Import ${rows} row${rows === 1 ? '' : 's'}` }).click();
  await expect(page.getByTestId('import-result')).toContainText(report);
}
