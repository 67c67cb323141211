import { type Page } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importLedger } from './support/ledger';
import { openScreen, samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

/*
 * The exception queue, worked as an accountant closing a month: a two-way run of the sample books
 * (with one row booked twice) against the sample ledger fills it with every kind; the accountant
 * searches, filters, ticks several and dismisses them at once with a reason, under their name.
 */

test.describe.configure({ mode: 'serial' });
// The deposit the books keyed as 249.90; the ledger has 249.99 (resources/samples/books/README.md).
const AMOUNT_HASH = '0x1c44128c835e5a2399b853345206c93bf209846efe9394c5f93710ebf2ff81f1';
const NOT_FOUND_REF = 'WD-2026-09999';
const ME = 'Ada Lovelace';

const queue = (page: Page) => page.getByTestId('ticket-queue');
const rows = (page: Page) => queue(page).locator('tbody tr');
const detail = (page: Page) => page.getByTestId('ticket-detail');
const kindFilter = (page: Page) => page.getByRole('combobox', { name: 'Kind' });
/** The number of tickets the queue's pager says match. */
async function matching(page: Page): Promise<number> {
  const text = (await page.getByRole('navigation', { name: 'Pages' }).locator('.pager-range').textContent()) ?? '';
  return Number(/of ([\d,]+)/.exec(text)?.[1]?.replace(/,/g, '') ?? 'NaN');
}

test('a two-way run of books with a row booked twice fills the queue with every kind', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  await importLedger(page, join(samples, 'native-ledger.csv'), 30);
  // The sample books with the amount row booked a second time.
  const books = readFileSync(join(samples, 'books', 'books-2026-01.csv'), 'utf8')
    .trimEnd()
    .split(/\r?\n/);
  const twice = join(dataDir, 'books-2026-01-twice.csv');
  writeFileSync(twice, [...books, books.find((l) => l.includes(AMOUNT_HASH.slice(2)))!].join('\n') + '\n');

  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByTestId('file-input').setInputFiles(twice);
  await expect(page.getByLabel('Column for amount', { exact: true })).toHaveValue('Amount');
  // The month the books close: the ledger side covers January 2026.
  await page.getByLabel('From (UTC)').fill('2026-01-01');
  await page.getByLabel('To (UTC)').fill('2026-01-31');
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  await expect(page.getByRole('table', { name: 'Reconciliation results' })).toBeVisible();

  await openScreen(page, 'Tickets');
  await expect(page.getByRole('radio', { name: 'Pending' })).toHaveAttribute('aria-checked', 'true');
  const counts: Record<string, number> = {};
  for (const kind of ['Mismatched', 'Not in ledger', 'Duplicate', 'Not in books']) {
    await kindFilter(page).selectOption({ label: kind });
    await expect(rows(page).first()).toContainText(kind);
    counts[kind] = await matching(page);
    await expect(rows(page)).toHaveCount(counts[kind]);
  }
  // 17 rows and one again: five mismatches, the hash nobody recorded, the row booked twice; the ledger's
  // other records (30, less the 16 the books found) are not in the books.
  expect(counts).toEqual({ Mismatched: 5, 'Not in ledger': 1, Duplicate: 1, 'Not in books': 14 });
  await kindFilter(page).selectOption({ label: 'All kinds' });
  await expect.poll(() => matching(page)).toBe(21);
});

test('search by hash finds the amount ticket; the detail puts the claim beside the record, the field at fault marked', async ({ nps }) => {
  const { page } = await session(nps);
  const search = page.getByRole('searchbox', { name: 'Search tickets' }).or(page.getByLabel('Search tickets'));
  await search.fill(AMOUNT_HASH);
  // Both the mismatch and the duplicate claim are about this record.
  await expect(rows(page)).toHaveCount(2);
  await rows(page).filter({ hasText: 'Mismatched' }).click();
  const compare = detail(page).getByRole('table', { name: 'Claimed and recorded' });
  const amount = compare.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^Amount\s*amount\s*differs/ }) });
  await expect(amount).toHaveClass(/abnormal/);
  await expect(amount).toContainText('249.9');
  await expect(amount).toContainText('249.99');
  await expect(detail(page).getByRole('link', { name: AMOUNT_HASH })).toHaveAttribute('href', `https://etherscan.io/tx/${AMOUNT_HASH}`);
  await shot(page, 'tickets-detail-mismatch');

  await rows(page).filter({ hasText: 'Duplicate' }).click();
  await expect(detail(page)).toContainText(/repeats books row \d+/);
  await expect(detail(page).getByRole('table', { name: 'Claimed and recorded' })).toContainText('249.99');

  // The hash without its 0x finds the same.
  await search.fill(AMOUNT_HASH.slice(2).toUpperCase());
  await expect(rows(page)).toHaveCount(2);
  await search.fill('');
  await expect.poll(() => matching(page)).toBe(21);
});

test('a claim not in the ledger shows the claim and no record; a record not in the books shows the record and no claim', async ({
  nps,
}) => {
  const { page } = await session(nps);
  await kindFilter(page).selectOption({ label: 'Not in ledger' });
  await expect(rows(page)).toHaveCount(1);
  await rows(page).first().click();
  const compare = detail(page).getByRole('table', { name: 'Claimed and recorded' });
  await expect(compare).toContainText(NOT_FOUND_REF);
  await expect(compare).toContainText('No record');
  await shot(page, 'tickets-detail-not-in-ledger');

  await kindFilter(page).selectOption({ label: 'Not in books' });
  await expect(rows(page)).toHaveCount(14);
  await rows(page).first().click();
  await expect(detail(page).getByRole('table', { name: 'Claimed and recorded' })).toContainText('No claim');
  await expect(detail(page).locator('.ticket-head h2')).toContainText('Not in books');
});

test('filter by amount, sort by amount: exact decimal bounds', async ({ nps }) => {
  const { page } = await session(nps);
  // Still the records not in the books: of those, 120, 400 and 500 lie in the bounds, both ends inclusive.
  await page.getByLabel('Amount at least').fill('120');
  await page.getByLabel('Amount at most').fill('500.000');
  await expect.poll(() => matching(page)).toBe(3);
  const inRange = 3;
  await queue(page).getByRole('button', { name: 'Amount' }).click();
  await expect(queue(page).getByRole('columnheader', { name: /Amount/ })).toHaveAttribute('aria-sort', 'descending');
  const amounts = (await rows(page).locator('td.al-right').allTextContents()).map((t) => Number(t.replace(/,/g, '')));
  expect(amounts).toHaveLength(inRange);
  expect(amounts).toEqual([500, 400, 120]);
  await queue(page).getByRole('button', { name: 'Amount' }).click();
  await expect(rows(page).first().locator('td.al-right')).toHaveText('120');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect.poll(() => matching(page)).toBe(21);
});

test('tick a range with shift-click and dismiss them at once: the reason is required, the name is asked once', async ({ nps }) => {
  const { page } = await session(nps);
  await kindFilter(page).selectOption({ label: 'Not in books' });
  await expect(rows(page)).toHaveCount(14);
  await expect(page.getByTestId('acting-as')).toContainText('No name set');
  await rows(page).nth(5).click();
  await rows(page).nth(1).getByRole('checkbox').click();
  await rows(page)
    .nth(4)
    .getByRole('checkbox')
    .click({ modifiers: ['Shift'] });
  await expect(page.getByTestId('tq-chosen')).toHaveText('4 tickets chosen');
  // With a box just ticked, j still steps (from the open sixth row to the seventh) and x ticks the open one.
  await page.keyboard.press('j');
  await expect(rows(page).nth(6)).toHaveAttribute('aria-current', 'true');
  await page.keyboard.press('x');
  await expect(page.getByTestId('tq-chosen')).toHaveText('5 tickets chosen');
  const chosen = await queue(page)
    .locator('tbody tr[aria-selected="true"]')
    .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-ticket')!));
  expect(chosen).toHaveLength(5);
  await shot(page, 'tickets-queue-selection');

  await page.getByRole('toolbar', { name: 'Bulk actions' }).getByRole('button', { name: 'Dismiss…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Dismiss 5 tickets' });
  await expect(dialog.getByTestId('reason-change')).toHaveText('5 tickets go from Pending to Dismissed.');
  const submit = dialog.getByRole('button', { name: 'Dismiss 5 tickets' });
  await dialog.getByLabel('Your name').fill(ME);
  await expect(submit).toBeDisabled();
  await dialog.getByLabel('Reason').fill('Internal transfers between our own wallets: not for the books');
  await shot(page, 'tickets-bulk-dialog');
  await submit.click();
  await expect(dialog).toBeHidden();
  await expect(rows(page)).toHaveCount(9);
  await expect(page.getByTestId('tq-chosen')).toHaveText('Tick tickets to work them together');
  await expect(page.getByTestId('acting-as')).toHaveText(`Acting as ${ME}`);

  await page.getByRole('radio', { name: 'Dismissed' }).click();
  await expect(rows(page)).toHaveCount(5);
  expect(await rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-ticket')!).sort())).toEqual([...chosen].sort());
  await rows(page).first().click();
  const history = detail(page).getByRole('region', { name: 'History' });
  await expect(history).toContainText(`Pending → Dismissed by ${ME}`);
  await expect(history).toContainText('Internal transfers between our own wallets: not for the books');
});

test('the next resolve asks no name; reopening all on the page needs no reason', async ({ nps }) => {
  const { page } = await session(nps);
  // Reopen every dismissed one: the page's checkbox.
  await queue(page).getByRole('checkbox', { name: 'Select every ticket on this page' }).check();
  await expect(page.getByTestId('tq-chosen')).toHaveText('5 tickets chosen');
  const bulk = page.getByRole('toolbar', { name: 'Bulk actions' });
  await expect(bulk.getByRole('button', { name: 'Dismiss…' })).toBeDisabled();
  await bulk.getByRole('button', { name: 'Reopen…' }).click();
  const reopen = page.getByRole('dialog', { name: 'Reopen 5 tickets' });
  await expect(reopen.getByLabel('Your name')).toHaveCount(0);
  await reopen.getByRole('button', { name: 'Reopen 5 tickets' }).click();
  await expect(reopen).toBeHidden();
  await expect(page.getByText('No tickets match these filters')).toBeVisible();

  await page.getByRole('radio', { name: 'Pending' }).click();
  await kindFilter(page).selectOption({ label: 'Not in ledger' });
  await rows(page).first().click();
  await detail(page).getByRole('button', { name: 'Resolve…' }).click();
  const resolve = page.getByRole('dialog', { name: 'Resolve 1 ticket' });
  await expect(resolve.getByLabel('Your name')).toHaveCount(0);
  await resolve.getByLabel('Reason').fill('Withdrawal cancelled before broadcast; removed from the books');
  await resolve.getByRole('button', { name: 'Resolve 1 ticket' }).click();
  await expect(page.getByText('No tickets match these filters')).toBeVisible();
  await page.getByRole('radio', { name: 'Resolved' }).click();
  await rows(page).first().click();
  await expect(detail(page).getByRole('region', { name: 'History' })).toContainText(`Pending → Resolved by ${ME}`);
  await detail(page).getByRole('region', { name: 'History' }).scrollIntoViewIfNeeded();
  await shot(page, 'tickets-history');
});

test('Settings shows the name, and a new one is what later events record', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Settings');
  const name = page.getByLabel('Name', { exact: true });
  await expect(name).toHaveValue(ME);
  await name.fill('A. Lovelace (controller)');
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect(page.getByRole('form', { name: 'Your name' }).getByRole('status')).toHaveText('Saved.');
  await shot(page, 'settings-your-name');
  await openScreen(page, 'Tickets');
  await expect(page.getByTestId('acting-as')).toHaveText('Acting as A. Lovelace (controller)');
});

test('past a page: choose all that match, and dismiss them in one change', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  // 150 withdrawals the books claim and the ledger never saw: 150 claims not in the ledger.
  const header = 'Reference,Tx hash,Network,Asset,Direction,Status,Amount,Fee,Date (UTC),Memo';
  const lines = Array.from(
    { length: 150 },
    (_, i) =>
      `WD-2026-${String(20_000 + i)},0x${(0xabc000 + i).toString(16).padStart(64, '0')},ETH,ETH_USDT,Withdrawal,Completed,${i + 1}.5,,2026-01-20 10:00:00,`,
  );
  const books = join(dataDir, 'books-unknown.csv');
  writeFileSync(books, [header, ...lines].join('\n') + '\n');
  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByTestId('file-input').setInputFiles(books);
  await expect(page.getByLabel('Column for amount', { exact: true })).toHaveValue('Amount');
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  await expect(page.getByRole('table', { name: 'Reconciliation results' })).toBeVisible();

  await openScreen(page, 'Tickets');
  await page.getByRole('radio', { name: 'Pending' }).click();
  await kindFilter(page).selectOption({ label: 'Not in ledger' });
  await expect.poll(() => matching(page)).toBe(150);
  await expect(rows(page)).toHaveCount(100);
  await queue(page).getByRole('checkbox', { name: 'Select every ticket on this page' }).check();
  await expect(page.getByTestId('tq-chosen')).toHaveText('100 tickets chosen');
  await page.getByRole('button', { name: 'Choose all 150 tickets that match' }).click();
  await expect(page.getByText('All 150 tickets that match are chosen.')).toBeVisible();
  await expect(page.getByTestId('tq-chosen')).toHaveText('150 tickets chosen');

  await page.getByRole('toolbar', { name: 'Bulk actions' }).getByRole('button', { name: 'Dismiss…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Dismiss 150 tickets' });
  await expect(dialog.getByTestId('reason-change')).toHaveText('150 tickets go from Pending to Dismissed.');
  await dialog.getByLabel('Reason').fill('Test withdrawals from the sandbox books: not ours');
  await dialog.getByRole('button', { name: 'Dismiss 150 tickets' }).click();
  await expect(page.getByText('No tickets match these filters')).toBeVisible();
  await page.getByRole('radio', { name: 'Dismissed' }).click();
  await expect.poll(() => matching(page)).toBe(150);
});
