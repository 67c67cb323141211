import type { Page } from '@playwright/test';
import { join } from 'node:path';
import { electronMode, openScreen, samples, shot } from './support/session';
import { expect, test, type Nps } from 'nps-reconcile/testing';

/*
 * Two windows on one service (browser mode: two pages of one `serve --ui`), as two people working
 * one queue: one resolves a ticket; the other sees it resolved without a reload, with a note saying
 * who did it, and, acting on what it showed before, is told who changed it; nothing is overwritten.
 */

test.skip(electronMode, 'two windows of one service: browser mode');

const detail = (page: Page) => page.getByTestId('ticket-detail');
const ANNA = 'Anna Berg';

/** An ERC-20 token added to ETH from the command line, 18 decimals. */
const addToken = (nps: Nps, symbol: string, contract: string) =>
  nps.run(['tokens', 'add', 'ETH', '--contract', contract, '--symbol', symbol, '--decimal', '18']);

test('before anyone is named, a note says where the change came from: "by the command line", never a door word', async ({ nps }) => {
  // The file's first test: its service is fresh, nobody is named yet (the tests after name Anna).
  const page = await nps.open();
  await openScreen(page, 'Catalogue');
  expect(await addToken(nps, 'SHIB', '0x95aD61b0a150d79219dCF64E1E6Cc01f0B64C4cE')).toSucceed();
  await expect(page.getByTestId('change-note').last()).toHaveText(/^Token ETH_SHIB \(SHIB\) added by the command line/);
  await shot(page, 'two-windows-note-unnamed');
});

test('one window resolves a ticket; the other sees it without a reload and, acting on what it showed, is told who changed it', async ({
  nps,
}) => {
  expect(await nps.run(['import', join(samples, 'native-ledger.csv')])).toSucceed();
  // A run that finds exceptions exits 1, as a check that found something does.
  const run = await nps.run(['reconcile', join(samples, 'books', 'books-2026-01.csv'), '--from', '2026-01-01', '--to', '2026-01-31']);
  expect(run.stdout).toContain('20 exceptions to work');
  expect(await nps.run(['user', ANNA])).toSucceed();

  const anna = await nps.open();
  const ben = await nps.open(await anna.context().newPage());
  for (const w of [anna, ben]) await openScreen(w, 'Tickets');
  const id = (await anna.getByTestId('ticket-queue').locator('tbody tr').first().getAttribute('data-ticket'))!;
  for (const w of [anna, ben]) {
    await w.locator(`[data-ticket="${id}"]`).click();
    await expect(detail(w).locator('h2 .badge')).toHaveText('Pending');
  }
  // Ben's page is never reloaded: this mark would be gone.
  await ben.evaluate(() => ((globalThis as unknown as { stillHere: boolean }).stillHere = true));

  // Ben starts to resolve it, as Pending...
  await detail(ben).getByRole('button', { name: 'Resolve…' }).click();
  await ben.getByLabel('Reason').fill('Paid late, agreed with the bank');

  // ...while Anna resolves it first.
  await detail(anna).getByRole('button', { name: 'Resolve…' }).click();
  await anna.getByLabel('Reason').fill('Booked in February');
  await anna.getByRole('button', { name: 'Resolve 1 ticket' }).click();
  await expect(detail(anna).locator('h2 .badge')).toHaveText('Resolved');
  // Anna's own change is no news to Anna.
  await expect(anna.getByTestId('change-note')).toHaveCount(0);

  // Ben's window hears it: a note, and the ticket behind the dialog as it stands now.
  await expect(ben.getByTestId('change-note')).toHaveText(
    new RegExp(`^Not in books ${id.slice(0, 8)} \\([\\d.]+ \\w+\\) resolved by ${ANNA}`),
  );
  await expect(detail(ben).locator('h2 .badge')).toHaveText('Resolved');
  await expect(ben.getByTestId('reason-changed-meanwhile')).toContainText(`${ANNA} changed it at`);
  await expect(ben.getByTestId('reason-changed-meanwhile')).toContainText('it is Resolved now. Going on will be refused');
  await shot(ben, 'two-windows-note');

  // Ben goes on with what he saw: refused, told who changed it, to what and when; nothing written.
  await ben.getByRole('button', { name: 'Resolve 1 ticket' }).click();
  const refusal = ben.getByTestId('ticket-changed');
  await expect(refusal).toContainText('Nothing was changed');
  await expect(refusal).toContainText('The ticket changed since you saw it, so it was not changed');
  await expect(refusal).toContainText(
    new RegExp(`${ANNA} resolved it at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC; it is Resolved now`),
  );
  await expect(ben.getByRole('dialog')).toHaveCount(0);
  const history = detail(ben).getByRole('region', { name: 'History' });
  await expect(history).toContainText('Booked in February');
  await expect(history).not.toContainText('Paid late');
  await expect(detail(ben).getByRole('button', { name: 'Reopen…' })).toBeVisible();
  await shot(ben, 'two-windows-refused');

  expect(await ben.evaluate(() => (globalThis as unknown as { stillHere?: boolean }).stillHere)).toBe(true);

  // Many at once: Ben ticks two; Anna resolves one of them; Ben's dismissal of both changes neither.
  await ben.getByRole('button', { name: 'Got it' }).click();
  const rows = ben.getByTestId('ticket-queue').locator('tbody tr');
  const [t1, t2] = [(await rows.nth(0).getAttribute('data-ticket'))!, (await rows.nth(1).getAttribute('data-ticket'))!];
  for (const t of [t1, t2]) await ben.locator(`[data-ticket="${t}"]`).getByRole('checkbox').check();
  await expect(ben.getByTestId('tq-chosen')).toHaveText('2 tickets chosen');
  await anna.locator(`[data-ticket="${t2}"]`).click();
  await detail(anna).getByRole('button', { name: 'Resolve…' }).click();
  await anna.getByLabel('Reason').fill('Found the transfer');
  await anna.getByRole('button', { name: 'Resolve 1 ticket' }).click();
  await expect(detail(anna).locator('h2 .badge')).toHaveText('Resolved');
  // Ben's queue (Pending) moves on without the resolved one; his choice is as he made it.
  await expect(ben.locator(`[data-ticket="${t2}"]`)).toHaveCount(0);
  await ben.getByRole('toolbar', { name: 'Bulk actions' }).getByRole('button', { name: 'Dismiss…' }).click();
  await ben.getByLabel('Reason').fill('Month closed');
  await ben.getByRole('button', { name: 'Dismiss 2 tickets' }).click();
  const bulkRefusal = ben.getByTestId('ticket-changed');
  await expect(bulkRefusal).toContainText(
    `1 of 2 tickets changed since you saw them, so none was changed: ticket ${t2}: ${ANNA} resolved it at`,
  );
  await expect(ben.locator(`[data-ticket="${t1}"]`).locator('.badge')).toHaveText('Pending');
  await shot(ben, 'two-windows-bulk-refused');
});

test('an import from the command line shows in an open window without a reload, with a note', async ({ nps }) => {
  const page = await nps.open();
  await openScreen(page, 'Ledger');
  await page.getByRole('tab', { name: 'Import history' }).click();
  // Its row, by the file's name: a count of the rows before would be read before the table loaded.
  const row = page.getByRole('table').locator('tbody tr').filter({ hasText: 'etherscan-transactions.csv' });
  await expect(row).toHaveCount(0);
  expect(await nps.run(['import', join(samples, 'etherscan-transactions.csv'), '--wallet', 'Treasury', '--chain', 'ETH'])).toSucceed();
  await expect(page.getByTestId('change-note')).toContainText('Import of etherscan-transactions.csv landed');
  await expect(row).toHaveCount(1);
});

test('a window whose event stream broke opens it again by itself and reloads what it shows', async ({ nps, page }) => {
  // The first stream ends at once (as when the connection to the service breaks); the window's next
  // try is held until the command line has changed a ticket, whose word it therefore never hears.
  let tries = 0;
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/app/events', async (route) => {
    if (++tries === 1) return route.fulfill({ status: 200, contentType: 'text/event-stream', body: ': open\n\n' });
    await held;
    return route.continue();
  });
  await nps.open(page);
  await openScreen(page, 'Tickets');
  const rows = page.getByTestId('ticket-queue').locator('tbody tr');
  // Counted once the queue shows its first row, not before it loaded.
  const id = (await rows.first().getAttribute('data-ticket'))!;
  const before = await rows.count();
  await expect.poll(() => tries).toBeGreaterThanOrEqual(2);
  expect(await nps.run(['tickets', 'resolve', id, '--reason', 'settled by phone'])).toSucceed();
  await page.waitForTimeout(1_000);
  await expect(page.locator(`[data-ticket="${id}"]`)).toHaveCount(1);
  release();
  // Open again: the window reloads everything once (the change's word was missed, so no note).
  await expect(page.locator(`[data-ticket="${id}"]`)).toHaveCount(0);
  await expect(rows).toHaveCount(before - 1);
  await expect(page.getByTestId('change-note')).toHaveCount(0);
});

test('one window edits a chain, the command line adds a token: the other window shows both without a reload, with notes', async ({
  nps,
}) => {
  expect(await nps.run(['user', ANNA])).toSucceed();
  const anna = await nps.open();
  const ben = await nps.open(await anna.context().newPage());
  for (const w of [anna, ben]) await openScreen(w, 'Catalogue');
  await ben.evaluate(() => ((globalThis as unknown as { stillHere: boolean }).stillHere = true));
  const benEth = ben
    .getByRole('table', { name: 'chains' })
    .getByRole('row')
    .filter({ has: ben.getByRole('cell', { name: 'Ethereum', exact: true }) });
  await expect(benEth.getByRole('cell').nth(4)).toHaveText('12');

  await anna.getByRole('button', { name: 'Edit ETH', exact: true }).click();
  const dialog = anna.getByRole('dialog', { name: 'Edit chain ETH' });
  await dialog.getByLabel('Confirming threshold').fill('64');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();

  await expect(ben.getByTestId('change-note')).toHaveText(new RegExp(`^Chain ETH edited \\(confirming_threshold\\) by ${ANNA}`));
  await expect(benEth.getByRole('cell').nth(4)).toHaveText('64');
  // Anna's own change is no news to Anna (her window may still show notes of the tests before).
  await expect(anna.getByTestId('change-note').filter({ hasText: 'Chain ETH' })).toHaveCount(0);
  await shot(ben, 'two-windows-catalogue-note');

  // Ben looks for a token the catalogue does not have yet; the command line adds it.
  await ben.getByRole('tab', { name: 'Tokens' }).click();
  await ben.getByLabel('Token ID').fill('ETH_PEPE');
  await ben.getByLabel('Token ID').press('Enter');
  await expect(ben.getByText('No tokens match these filters')).toBeVisible();
  expect(await addToken(nps, 'PEPE', '0x6982508145454ce325ddbe47a25d4ec3d2311933')).toSucceed();
  await expect(ben.getByTestId('change-note').last()).toHaveText(new RegExp(`^Token ETH_PEPE \\(PEPE\\) added by ${ANNA}`));
  await expect(ben.getByRole('table', { name: 'tokens' }).getByRole('row').filter({ hasText: 'ETH_PEPE' })).toHaveCount(1);
  expect(await ben.evaluate(() => (globalThis as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
});

test('the name and a key set from the command line show in an open Settings without a reload, with notes', async ({ nps }) => {
  const page = await nps.open();
  await openScreen(page, 'Settings');
  const you = page.getByRole('form', { name: 'Your name' });
  // The file's service and window are one for all its tests: the name is whatever the tests before set.
  // Read once the window has the name (the hint says whether there is one), not the empty field before it.
  await expect(you.getByText(/^(Events now name .+|Not set yet: .+)$/)).toBeVisible();
  await expect(you.getByLabel('Name', { exact: true })).not.toHaveValue('Ben Ortiz');
  const before = (await you.getByLabel('Name', { exact: true }).inputValue()) || 'the command line';
  expect(await nps.run(['user', 'Ben Ortiz'])).toSucceed();
  // The file's window may still show notes of the tests before: this one is among them.
  const note = (text: string) => page.getByTestId('change-note').filter({ hasText: text });
  // Made by the name it replaces.
  await expect(note(`This desktop's name set to Ben Ortiz by ${before}`)).toHaveCount(1);
  await expect(you.getByLabel('Name', { exact: true })).toHaveValue('Ben Ortiz');
  expect(await nps.run(['keys', 'create', '--label', 'books robot'])).toSucceed();
  await expect(note('API key "books robot" created by Ben Ortiz')).toHaveCount(1);
  await expect(page.getByRole('table').filter({ hasText: 'books robot' })).toHaveCount(1);
  await shot(page, 'two-windows-settings-note');
});
