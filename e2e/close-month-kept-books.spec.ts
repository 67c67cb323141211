import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { join } from 'node:path';
import { chooseLedgerFile } from './support/ledger';
import { openScreen, root, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

/*
 * October 2020 closed as an accountant keeps the books (test/fixtures/books/README.md): the real
 * Etherscan exports of the Treasury's address imported through the window, its books (dates
 * without a time, In and Out, a line per gas fee, both legs of swaps under one hash, a line
 * booked twice, a line the ledger lacks, a record the books leave out, a mistyped amount)
 * reconciled for the month, then the same lines as a European spreadsheet saves them, read with
 * the mapping the first run kept. Exactly the five groups the accountant expects, no line
 * rejected; at 1024×700 and 1440×900, light and dark, with nothing serious for axe on the results,
 * the queue and the balances, and the closing balances on screen with their decimal points lined up.
 */

test.describe.configure({ mode: 'serial' });
const EXPORTS = join(root, 'test', 'fixtures', 'exports');
const BOOKS = join(root, 'test', 'fixtures', 'books');
const ADDRESS = '0x003dc32fe920a4aaeed12dc87e145f030aa753f3';
const EXPECTED = { Matched: 20, Mismatched: 1, 'Not in ledger': 1, 'Not in books': 1, Duplicate: 1 };
const SIZES = [
  { width: 1024, height: 700 },
  { width: 1440, height: 900 },
] as const;
const THEMES = ['light', 'dark'] as const;

/** One of the address's exports into the wallet Treasury, on Ethereum (named on the first). */
async function importExport(page: Page, kind: 'txlist' | 'internal' | 'erc20', first: boolean): Promise<void> {
  await chooseLedgerFile(page, join(EXPORTS, `etherscan-0x003dc-${kind}.csv`));
  await page.getByLabel('Chain of the file').selectOption('ETH');
  const wallet = page.getByLabel('Wallet for every row');
  if (first) {
    await wallet.selectOption('named');
    await page.getByLabel('Name of the new wallet').fill('Treasury');
  } else await wallet.selectOption({ label: 'Treasury' });
  await expect(page.getByTestId('questions')).toBeHidden();
  await expect(page.getByLabel('Wallet address')).toHaveValue(ADDRESS);
  await page.getByRole('button', { name: 'Preview the import' }).click();
  if (kind === 'erc20') {
    // UNI is booked; the pool and vault tokens are not, and stay out of the ledger as the books leave them out.
    const uni = page.getByRole('region', { name: 'Unknown tokens' }).getByRole('listitem', { name: 'Unknown token UNI', exact: true });
    await expect(uni).toContainText('0x1f9840a85d5af5bf1d1762f925bdaddc4201f984');
    await uni.getByLabel('Decimal').fill('18');
    await uni.getByRole('button', { name: 'Add to catalogue' }).click();
    await expect(page.getByTestId('preview-tokens-added')).toContainText('ETH_UNI');
  }
  await page.getByRole('button', { name: /^Import \d+ rows?$/ }).click();
  await expect(page.getByTestId('import-result')).toContainText('Import finished');
}

/** The run's five groups, read from the counts above its results. */
async function groups(page: Page): Promise<Record<string, number>> {
  const stats = page.getByRole('group', { name: 'Filter results' });
  const out: Record<string, number> = {};
  for (const name of Object.keys(EXPECTED)) {
    const text = await stats.getByRole('button', { name: new RegExp(`^[\\d,]+ ${name}$`) }).innerText();
    out[name] = Number(/[\d,]+/.exec(text)![0].replace(/,/g, ''));
  }
  return out;
}

async function runBooks(page: Page, file: string): Promise<void> {
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  await expect(page.getByRole('table', { name: 'Reconciliation results' })).toBeVisible();
  await expect(page.getByRole('heading', { name: file })).toBeVisible();
  expect(await groups(page)).toEqual(EXPECTED);
  // Every line of the books was read: nothing is listed as unreadable.
  await expect(page.getByText(/books rows? unreadable|could not be read/)).toHaveCount(0);
}

async function axeClean(page: Page, view: string): Promise<void> {
  await expect(page.locator('.state-loading, .skeleton, [aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21aa']).analyze();
  const serious = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${view}: ${v.id} (${v.impact}) ×${v.nodes.length} e.g. ${v.nodes[0]?.target.join(' ')}`);
  expect(serious, view).toEqual([]);
}

test("the Treasury's October ledger: its three Etherscan exports, UNI added to the catalogue on the way", async ({ nps }) => {
  test.setTimeout(180_000);
  const { page } = await session(nps);
  await importExport(page, 'txlist', true);
  await importExport(page, 'internal', false);
  await importExport(page, 'erc20', false);
});

test('October reconciled against the books as kept by hand: exactly the five groups, no line rejected', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByTestId('file-input').setInputFiles(join(BOOKS, 'treasury-2020-10.csv'));
  await expect(page.getByLabel('Column for amount_in', { exact: true })).toHaveValue('In');
  await expect(page.getByLabel('Column for amount_out', { exact: true })).toHaveValue('Out');
  await page.getByLabel('Wallet', { exact: true }).selectOption({ label: 'Treasury' });
  await page.getByLabel('From (UTC)').fill('2020-10-01');
  await page.getByLabel('To (UTC)').fill('2020-10-31');
  // The preview reads every row: no row error.
  await expect(page.locator('.books-preview')).toContainText(/(\d+) of \1 rows read/);
  await runBooks(page, 'treasury-2020-10.csv');
  await shot(page, 'close-month-kept-books-results');
});

test('the European copy of the same books, read with the mapping the first run kept: the same five groups', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByTestId('file-input').setInputFiles(join(BOOKS, 'treasury-2020-10-eu.csv'));
  await expect(page.getByTestId('saved-mapping-status')).toContainText('Saved as “treasury-2020-10.csv”');
  await expect(page.getByLabel('Wallet', { exact: true }).locator('option:checked')).toHaveText('Treasury');
  // October was run last: November is proposed; this is October again, in its European spelling.
  await expect(page.getByLabel('From (UTC)')).toHaveValue('2020-11-01');
  await page.getByLabel('From (UTC)').fill('2020-10-01');
  await page.getByLabel('To (UTC)').fill('2020-10-31');
  await expect(page.locator('.books-preview')).toContainText('decimal comma');
  await runBooks(page, 'treasury-2020-10-eu.csv');
});

for (const size of SIZES) {
  for (const theme of THEMES) {
    test(`the month's results, queue and balances at ${size.width}×${size.height}, ${theme}: axe finds nothing serious`, async ({
      nps,
    }) => {
      test.setTimeout(120_000);
      const { page } = await session(nps);
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      const name = `${size.width}-${theme}`;

      await openScreen(page, 'Reconcile');
      await page.getByRole('tab', { name: 'Results' }).click();
      await expect(page.getByRole('table', { name: 'Reconciliation results' })).toBeVisible();
      expect(await groups(page)).toEqual(EXPECTED);
      await axeClean(page, `results ${name}`);

      await openScreen(page, 'Tickets');
      await expect(page.getByTestId('ticket-queue')).toBeVisible();
      await axeClean(page, `tickets ${name}`);

      await openScreen(page, 'Balances');
      // The period's filter (the statement check below has a wallet of its own).
      await page.getByLabel('Wallet', { exact: true }).first().selectOption({ label: 'Treasury' });
      await page.getByLabel('From (UTC day)').fill('2020-10-01');
      await page.getByLabel('To (UTC day, inclusive)').fill('2020-10-31');
      await page.getByRole('button', { name: 'Show' }).click();
      const table = page.getByRole('table', { name: 'Balances' });
      await expect(table.getByRole('row').filter({ hasText: 'ETH_UNI' })).toHaveCount(1);
      await axeClean(page, `balances ${name}`);
      // The Closing column is on screen, and its figures' decimal points stand one under the other.
      const closingHeader = table.getByRole('columnheader', { name: 'Closing' });
      const box = (await closingHeader.boundingBox())!;
      expect(box.x + box.width, `Closing at ${size.width} px`).toBeLessThanOrEqual(size.width);
      const points = await table
        .locator('tbody td.pinned-right .amount-frac')
        .evaluateAll((cells) => cells.map((c) => Math.round(c.getBoundingClientRect().left)));
      expect(points.length).toBeGreaterThan(2);
      expect(new Set(points).size, `decimal points at ${points.join(', ')}`).toBe(1);
      const closingBox = (await table.locator('tbody td.pinned-right').first().boundingBox())!;
      expect(closingBox.x + closingBox.width).toBeLessThanOrEqual(size.width);
      if (name === '1024-light') await shot(page, 'close-month-kept-books-balances-1024');
    });
  }
}
