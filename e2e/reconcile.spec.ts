import { type Page } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SOURCE_TICKET_FIELDS, TicketPublic } from '../src/shared/tickets';
import { dataOf } from './support/api';
import { createApiKey } from './support/keys';
import { importLedger } from './support/ledger';
import { signedCall } from './support/sign';
import { openScreen, samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });
const BOOKS = join(samples, 'books', 'books-2026-01.csv');
// The deposit the books keyed as 249.90; the ledger has 249.99 (resources/samples/books/README.md).
const AMOUNT_HASH = '0x1c44128c835e5a2399b853345206c93bf209846efe9394c5f93710ebf2ff81f1';

const selectedTicket = (page: Page) => page.locator('[data-ticket][aria-current="true"]').getAttribute('data-ticket');

test('the ledger holds the sample; no run and no ticket yet', async ({ nps }) => {
  const { page } = await session(nps);
  await importLedger(page, join(samples, 'native-ledger.csv'), 30);
  await openScreen(page, 'Tickets');
  await expect(page.getByText('No pending tickets')).toBeVisible();
  await shot(page, 'tickets-empty');
  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'History' }).click();
  await expect(page.getByText('No reconciliation runs yet')).toBeVisible();
  await page.getByRole('tab', { name: 'New run' }).click();
  await shot(page, 'reconcile-choose');
});

test('choose the books: columns mapped from their names, tolerances at their defaults', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByTestId('file-input').setInputFiles(BOOKS);
  const mapping = page.getByRole('table', { name: 'Books column mapping' });
  await expect(mapping).toBeVisible();
  const expected: Record<string, string> = {
    request_id: 'Reference',
    hash: 'Tx hash',
    chain_id: 'Network',
    token_id: 'Asset',
    type: 'Direction',
    status: 'Status',
    amount: 'Amount',
    fee: 'Fee',
    time: 'Date (UTC)',
  };
  for (const [field, column] of Object.entries(expected))
    await expect(page.getByLabel(`Column for ${field}`, { exact: true })).toHaveValue(column);
  await expect(page.getByLabel('Column for to', { exact: true })).toHaveValue('');
  await expect(page.getByLabel('Amount tolerance')).toHaveValue('0.001');
  await expect(page.getByLabel('Time is the moment')).toHaveValue('Created');
  await expect(page.getByLabel('Time tolerance (seconds)')).toHaveValue('10');
  await shot(page, 'reconcile-mapping');
});

test('run it: counts of Matched, Mismatched and Not in ledger, a mark per field', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  const grid = page.getByRole('table', { name: 'Reconciliation results' });
  await expect(grid).toBeVisible();
  const stats = page.getByRole('group', { name: 'Filter results' });
  await expect(stats.getByRole('button', { name: /all rows/ })).toContainText('17');
  await expect(stats.getByRole('button', { name: /^\d+ Matched/ })).toContainText('11');
  await expect(stats.getByRole('button', { name: /Mismatched/ })).toContainText('5');
  await expect(stats.getByRole('button', { name: /Not in ledger/ })).toContainText('1');
  await expect(grid.getByRole('row')).toHaveCount(17 + 2);
  await shot(page, 'reconcile-results');

  await stats.getByRole('button', { name: /Mismatched/ }).click();
  await expect(grid.getByRole('row')).toHaveCount(5 + 2);
  const amountRow = grid.getByRole('row').filter({ hasText: '249.9' });
  await expect(amountRow).toContainText('249.99');
  await expect(amountRow.getByRole('link', { name: /open ticket/ })).toBeVisible();
  await expect(amountRow.locator('.fcell-bad')).toHaveCount(1);
  await shot(page, 'reconcile-mismatched');
});

test('export the results as CSV', async ({ nps }) => {
  const { page } = await session(nps);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export results (CSV)' }).click();
  const csv = readFileSync(await (await download).path(), 'utf8')
    .trim()
    .split(/\r?\n/);
  expect(csv).toHaveLength(18);
  // Each compared field: what was claimed, what is recorded, and its flag under the API's name.
  expect(csv[0]).toContain('claimed_amount,recorded_amount,amount_match');
  expect(csv[0]).toContain('claimed_time,recorded_time,time_match');
  const line = csv.find((l) => l.includes(AMOUNT_HASH))!;
  expect(line).toContain(',Mismatched,');
  expect(line).toContain('249.9,249.99,false');
  expect(csv.filter((l) => l.split(',')[1] === 'Not in ledger')).toHaveLength(1);
});

test('the run is in the history', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('tab', { name: 'History' }).click();
  const runs = page.getByRole('table', { name: 'Past runs' });
  await expect(runs.getByRole('row')).toHaveCount(2);
  await expect(runs).toContainText('books-2026-01.csv');
  await shot(page, 'reconcile-history');
  await runs.getByRole('row').nth(1).click();
  await expect(page.getByRole('table', { name: 'Reconciliation results' })).toBeVisible();
});

/** The queue's row of the mismatch ticket whose field at fault is this one. */
const ticketRow = (page: Page, field: string) =>
  page
    .getByTestId('ticket-queue')
    .locator('[data-ticket]')
    .filter({ has: page.locator('.chip', { hasText: new RegExp(`^${field}$`) }) });

test('tickets opened for the mismatches; j/k and the arrow keys step through them', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Tickets');
  // The run was two-way: the claim not found and the ledger's unbooked records wait beside the mismatches.
  await page.getByRole('combobox', { name: 'Kind' }).selectOption({ label: 'Mismatched' });
  const queue = page.getByTestId('ticket-queue');
  await expect(queue.locator('[data-ticket]')).toHaveCount(5);
  const first = await selectedTicket(page);
  expect(first).toBeTruthy();
  await page.keyboard.press('j');
  const second = await selectedTicket(page);
  expect(second).not.toBe(first);
  // Named by the head and tail of its id: tickets opened by one run share the head.
  await expect(page.getByTestId('ticket-detail').getByRole('heading').first()).toContainText(`${second!.slice(0, 8)}…${second!.slice(-4)}`);
  await page.keyboard.press('k');
  expect(await selectedTicket(page)).toBe(first);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  expect(await selectedTicket(page)).toBe(second);
});

test('resolve the amount ticket with a reason: claimed beside recorded, the field at fault highlighted', async ({ nps }) => {
  const { page } = await session(nps);
  const queue = page.getByTestId('ticket-queue');
  await ticketRow(page, 'amount').click();
  const detail = page.getByTestId('ticket-detail');
  const compare = detail.getByRole('table', { name: 'Claimed and recorded' });
  const amount = compare.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^Amount\s*amount\s*differs/ }) });
  await expect(amount).toHaveClass(/abnormal/);
  await expect(amount).toContainText('249.9');
  await expect(amount).toContainText('249.99');
  await expect(compare.getByRole('link', { name: AMOUNT_HASH })).toHaveAttribute('href', `https://etherscan.io/tx/${AMOUNT_HASH}`);
  await shot(page, 'tickets');

  // Resolving needs a reason; the first time, the dialog also asks who is acting.
  await detail.getByRole('button', { name: 'Resolve…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Resolve 1 ticket' });
  await dialog.getByLabel('Your name').fill('Grace Hopper');
  await expect(dialog.getByRole('button', { name: 'Resolve 1 ticket' })).toBeDisabled();
  await dialog.getByLabel('Reason').fill('Keyed by hand; corrected in the books to 249.99');
  await dialog.getByRole('button', { name: 'Resolve 1 ticket' }).click();
  await expect(dialog).toBeHidden();
  await expect(detail.locator('.ticket-head h2')).toContainText('Resolved');
  await expect(detail.getByText('Keyed by hand; corrected in the books to 249.99')).toBeVisible();
  await expect(detail.getByRole('region', { name: 'History' })).toContainText('Pending → Resolved by Grace Hopper');
  await expect(queue.locator('[data-ticket]')).toHaveCount(4);

  await page.getByRole('radio', { name: 'Resolved' }).click();
  await expect(queue.locator('[data-ticket]')).toHaveCount(1);
  await detail.getByRole('region', { name: 'History' }).scrollIntoViewIfNeeded();
  await shot(page, 'tickets-resolved');
});

test('dismiss a ticket with a reason, then reopen it', async ({ nps }) => {
  const { page } = await session(nps);
  const queue = page.getByTestId('ticket-queue');
  const detail = page.getByTestId('ticket-detail');
  await page.getByRole('radio', { name: 'Pending' }).click();
  await ticketRow(page, 'time').click();
  await detail.getByRole('button', { name: 'Dismiss…' }).click();
  const dismiss = page.getByRole('dialog', { name: 'Dismiss 1 ticket' });
  await expect(dismiss.getByLabel('Your name')).toHaveCount(0);
  await dismiss.getByLabel('Reason').fill('Bank statement time, not the chain time');
  await dismiss.getByRole('button', { name: 'Dismiss 1 ticket' }).click();
  // The dialog sits inside the detail's head: gone first, then the head says the new status.
  await expect(dismiss).toBeHidden();
  await expect(detail.locator('.ticket-head h2')).toContainText('Dismissed');
  await expect(queue.locator('[data-ticket]')).toHaveCount(3);

  await detail.getByRole('button', { name: 'Reopen…' }).click();
  const reopen = page.getByRole('dialog', { name: 'Reopen 1 ticket' });
  await reopen.getByLabel('Reason (optional)').fill('Reopened: the auditor wants it checked');
  await reopen.getByRole('button', { name: 'Reopen 1 ticket' }).click();
  await expect(reopen).toBeHidden();
  await expect(detail.locator('.ticket-head h2')).toContainText('Pending');
  await expect(queue.locator('[data-ticket]')).toHaveCount(4);
  const history = detail.getByRole('region', { name: 'History' });
  await expect(history).toContainText('Dismissed → Pending');
  await expect(history).toContainText('Pending → Dismissed by Grace Hopper');
  await expect(history).toContainText('Bank statement time, not the chain time');
});

test('books rows that cannot be read are left out, and kept with the run for when it is opened again', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  // The sample books with two rows spoiled: an amount in words, a date that is not one.
  const [header, ...rows] = readFileSync(BOOKS, 'utf8').trimEnd().split(/\r?\n/);
  const columns = header!.split(',');
  const spoil = (row: string, column: string, value: string) => {
    const cells = row.split(',');
    cells[columns.indexOf(column)] = value;
    return cells.join(',');
  };
  rows[2] = spoil(rows[2]!, 'Amount', 'twelve');
  rows[5] = spoil(rows[5]!, 'Date (UTC)', 'soon');
  const spoiled = join(dataDir, 'books-2026-01-spoiled.csv');
  writeFileSync(spoiled, [header, ...rows].join('\n') + '\n');

  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'New run' }).click();
  await page.getByTestId('file-input').setInputFiles(spoiled);
  await expect(page.getByLabel('Column for amount', { exact: true })).toHaveValue('Amount');
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  const stats = page.getByRole('group', { name: 'Filter results' });
  await expect(stats.getByRole('button', { name: /all rows/ })).toContainText('15');
  await expect(stats).toContainText('2books rows unreadable');
  const unreadable = page.locator('details.rejected-books');
  await expect(unreadable.locator('summary')).toHaveText('2 books rows could not be read and were left out');
  // Rows are numbered as in the books file: the two left out leave gaps.
  const grid = page.getByRole('table', { name: 'Reconciliation results' });
  await expect(grid.locator('tbody tr td:first-child')).toHaveText([
    '1',
    '2',
    '4',
    '5',
    '7',
    '8',
    '9',
    '10',
    '11',
    '12',
    '13',
    '14',
    '15',
    '16',
    '17',
  ]);

  // A fresh window (nothing remembered in the page): the run's page still lists them.
  await page.reload();
  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'History' }).click();
  const runs = page.getByRole('table', { name: 'Past runs' });
  await expect(runs.getByRole('row')).toHaveCount(3);
  await expect(runs.getByRole('row').nth(1)).toContainText('books-2026-01-spoiled.csv');
  await expect(runs.getByRole('row').nth(1).getByRole('cell').last()).toHaveText('2');
  await expect(runs.getByRole('row').nth(2).getByRole('cell').last()).toHaveText('0');
  await runs.getByRole('row').nth(1).click();
  await unreadable.locator('summary').click();
  await expect(unreadable.getByRole('listitem')).toHaveText([`Row 3, Amount: ${'"twelve" is not a number'}`, /^Row 6, Date \(UTC\): /]);
  await shot(page, 'reconcile-unreadable-rows');
});

test('a run opened after an import changed a record says so beside it; its mark stays the check', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  // The ledger corrected to what the books said: 249.99 becomes 249.90.
  const [header, ...rows] = readFileSync(join(samples, 'native-ledger.csv'), 'utf8').trimEnd().split(/\r?\n/);
  const corrected = join(dataDir, 'ledger-correction.csv');
  writeFileSync(corrected, [header, rows.find((r) => r.includes(AMOUNT_HASH))!.replace(',249.99,', ',249.90,')].join('\n') + '\n');
  await importLedger(page, corrected, 1, '1 updated');

  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'History' }).click();
  await page.getByRole('table', { name: 'Past runs' }).getByRole('row').filter({ hasText: 'books-2026-01.csv' }).click();
  const grid = page.getByRole('table', { name: 'Reconciliation results' });
  const amountRow = grid.getByRole('row').filter({ hasText: '249.9' });
  await expect(amountRow).toContainText('record changed since');
  await expect(amountRow.locator('.fcell-bad')).toHaveCount(1);
  await expect(grid.getByText('record changed since')).toHaveCount(1);
  await shot(page, 'reconcile-record-changed');
});

test('a ticket opened here reads over the API as the source describes it, with its additions after', async ({ nps }) => {
  const { page, apiBase } = await session(nps);
  const [header, ...rows] = readFileSync(join(samples, 'native-ledger.csv'), 'utf8')
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split(/\r?\n/);
  const columns = header!.split(',');
  const cells = rows.find((r) => r.includes(AMOUNT_HASH))!.split(',');
  const recorded = (column: string) => cells[columns.indexOf(column)]!;
  const key = await createApiKey(page, 'Ticket reader');

  await openScreen(page, 'Tickets');
  await page.getByRole('radio', { name: 'Resolved' }).click();
  const ticketId = (await ticketRow(page, 'amount').getAttribute('data-ticket'))!;
  const answer = await signedCall(apiBase, key, 'GET', '/ticket', { query: `wallet_id=${recorded('wallet_id')}&ticket_id=${ticketId}` });
  const ticket = dataOf(TicketPublic, answer);
  expect(Object.keys(answer.data as object)).toEqual([...SOURCE_TICKET_FIELDS, 'wallet_id', 'request_id', 'hash']);
  expect(ticket).toMatchObject({
    ticket_id: ticketId,
    transaction_id: recorded('transaction_id'),
    abnormals: 'amount',
    status: 'Resolved',
    wallet_id: recorded('wallet_id'),
    request_id: recorded('request_id'),
    hash: AMOUNT_HASH,
  });
  expect(ticket.desc).toContain('249.9');
});
