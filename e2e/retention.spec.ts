import { type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { VerifyResultsA } from '../src/shared/reconcile';
import { dataOf } from './support/api';
import { createApiKey } from './support/keys';
import { importLedger } from './support/ledger';
import { signedCall } from './support/sign';
import { openScreen, samples, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });
const BOOKS = join(samples, 'books', 'books-2026-01.csv');
const DAY = 86_400_000;

/** A stat of the Data retention section by its label, e.g. "runs stored". */
const stat = (page: Page, label: string) =>
  page
    .getByRole('group', { name: 'Stored runs' })
    .locator('.stat')
    .filter({ has: page.getByText(label, { exact: true }) })
    .locator('.stat-value');

test('four runs: a books run that opens five tickets, then three API runs that find nothing', async ({ nps }) => {
  const { page, apiBase } = await session(nps);
  await importLedger(page, join(samples, 'native-ledger.csv'), 30);
  await openScreen(page, 'Reconcile');
  await page.getByTestId('file-input').setInputFiles(BOOKS);
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  const stats = page.getByRole('group', { name: 'Filter results' });
  await expect(stats.getByRole('button', { name: /all rows/ })).toContainText('17');
  await expect(stats.getByRole('button', { name: /Mismatched/ })).toContainText('5');

  const key = await createApiKey(page, 'Retention robot');
  for (let i = 0; i < 3; i++) {
    const probe = { txs: [{ hash: '0x' + String(i).repeat(64), amount: '1' }] };
    expect(dataOf(VerifyResultsA, await signedCall(apiBase, key, 'POST', '/bill/verify/txs', { body: probe }))).toHaveLength(1);
  }
});

test('Settings shows the store, its runs and items, and the default policy, which keeps them all', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  // The journey cannot wait 200 days: every run but the newest is made that old in the store itself.
  const db = new Database(join(dataDir, 'nps.sqlite'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(
      `UPDATE verification_runs SET created_at = created_at - ?
       WHERE run_id != (SELECT run_id FROM verification_runs ORDER BY created_at DESC, rowid DESC LIMIT 1)`,
    ).run(200 * DAY);
  } finally {
    db.close();
  }
  // Settings is open still (the key was made there): its section reads the store again when asked.
  const section = page.getByRole('region', { name: 'Data retention' });
  await section.scrollIntoViewIfNeeded();
  await section.getByRole('button', { name: 'Refresh' }).click();
  await expect(stat(page, 'runs stored')).toHaveText('4');
  await expect(stat(page, 'items stored')).toHaveText('20');
  await expect(section.getByLabel('Keep the runs of the last (days)')).toHaveValue('90');
  await expect(section.getByLabel('And at least the last (runs)')).toHaveValue('100');
  await expect(section.getByTestId('retention-would-remove')).toHaveText('The policy removes nothing now.');
  await expect(section.getByTestId('retention-db-size')).toHaveText(/\d+(\.\d)? (KB|MB)/);
});

test('a value out of range is refused, naming the field', async ({ nps }) => {
  const { page } = await session(nps);
  const section = page.getByRole('region', { name: 'Data retention' });
  await section.getByLabel('Keep the runs of the last (days)').fill('0');
  await section.getByRole('button', { name: 'Save' }).click();
  await expect(section.getByRole('alert')).toHaveText('days: must be an integer from 1 to 3650');
  await section.getByLabel('Keep the runs of the last (days)').fill('90');
});

test('set a policy of 30 days and the last run: it would remove two runs and 13 items, and Apply now does', async ({ nps }) => {
  const { page } = await session(nps);
  const section = page.getByRole('region', { name: 'Data retention' });
  await section.getByLabel('Keep the runs of the last (days)').fill('30');
  await section.getByLabel('And at least the last (runs)').fill('1');
  await section.getByRole('button', { name: 'Save' }).click();
  await expect(section.getByRole('status')).toHaveText('Saved.');
  // The two old API runs go whole; the books run (two-way) loses its 11 rows without a ticket and keeps
  // its 6: five mismatches and the claim not in the ledger, each with its exception.
  await expect(section.getByTestId('retention-would-remove')).toHaveText('The policy removes 2 runs and 13 items now.');
  await expect(stat(page, 'runs the policy removes now')).toHaveText('2');
  await shot(page, 'settings-retention');

  await section.getByRole('button', { name: 'Apply now' }).click();
  await expect(section.getByTestId('retention-result')).toContainText(
    'Removed 2 runs and 13 items. Kept 1 older run for 6 items that opened or touched a ticket.',
  );
  await expect(section.getByTestId('retention-result')).toContainText('reused by new runs');
  await expect(stat(page, 'runs stored')).toHaveText('2');
  await expect(stat(page, 'items stored')).toHaveText('7');
  await expect(section.getByTestId('retention-would-remove')).toHaveText('The policy removes nothing now.');
  await section.getByTestId('retention-result').scrollIntoViewIfNeeded();
  await shot(page, 'settings-retention-applied');
});

test('the books run keeps its rows that opened a ticket, and says so; the tickets are all there', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Reconcile');
  await page.getByRole('tab', { name: 'History' }).click();
  const runs = page.getByRole('table', { name: 'Past runs' });
  await expect(runs.getByRole('row')).toHaveCount(3);
  await runs.getByRole('row').filter({ hasText: 'books-2026-01.csv' }).click();
  // Five mismatches and the claim not in the ledger (an exception of its own in a two-way run).
  await expect(page.getByTestId('run-retention-note')).toContainText('keeping the 6 of its 17 that opened or touched a ticket');
  const grid = page.getByRole('table', { name: 'Reconciliation results' });
  await expect(grid.getByRole('row')).toHaveCount(6 + 2);
  await shot(page, 'reconcile-retained-run');
  await openScreen(page, 'Tickets');
  await expect(page.getByTestId('ticket-queue').locator('[data-ticket]')).toHaveCount(6);
});
