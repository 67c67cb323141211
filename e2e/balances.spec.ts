import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAILED_FEE_RULE, LEDGER_FIELDS } from '../src/shared/ledger';
import { openScreen, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });
const W = '5a1e5a1e-0000-4000-8000-000000000001';

/** The previous calendar month (UTC), the period the screen opens on. */
const now = new Date();
const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0));
const day = (d: Date) => d.toISOString().slice(0, 10);
const inMonth = (n: number, hour = 12) => String(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), n, hour));
const beforeMonth = String(first.getTime() - 86_400_000);

const row = (f: Partial<Record<(typeof LEDGER_FIELDS)[number], string>>) => LEDGER_FIELDS.map((k) => f[k] ?? '').join(',');
const usdt = { wallet_id: W, chain_id: 'TRON', token_id: 'TRON_USDT' };
const id = (n: number) => `5a1e5a1e-0000-4000-8000-${String(n).padStart(12, '0')}`;

test('balances of the previous month, a statement, and a check against the custodian', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  // Opening 500 (before the month); in the month: +1200.5, -(300 + fee 1), a failed on-chain withdrawal's fee 1,
  // a Pending deposit that moves nothing. Closing: 500 + 1200.5 - 300 - 2 = 1398.5
  const file = join(dataDir, 'balances-ledger.csv');
  writeFileSync(
    file,
    [
      LEDGER_FIELDS.join(','),
      row({ ...usdt, transaction_id: id(1), type: 'Deposit', status: 'Completed', amount: '500', created_at: beforeMonth }),
      row({ ...usdt, transaction_id: id(2), type: 'Deposit', status: 'Completed', amount: '1200.5', created_at: inMonth(3) }),
      row({
        ...usdt,
        transaction_id: id(3),
        type: 'Withdrawal',
        status: 'Completed',
        amount: '301',
        fee: '1',
        amount_actual: '300',
        created_at: inMonth(10),
      }),
      row({
        ...usdt,
        transaction_id: id(4),
        type: 'Withdrawal',
        status: 'Failed',
        amount: '50',
        fee: '1',
        hash: 'a'.repeat(64),
        created_at: inMonth(12),
      }),
      row({ ...usdt, transaction_id: id(5), type: 'Deposit', status: 'Pending', amount: '75', created_at: inMonth(20) }),
    ].join('\n') + '\n',
  );
  await openScreen(page, 'Ledger');
  await page.getByRole('button', { name: 'Import a ledger file' }).first().click();
  await page.getByTestId('file-input').setInputFiles(file);
  await page.getByRole('button', { name: 'Preview the import' }).click();
  await page.getByRole('button', { name: 'Import 5 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('5 added');
  // Ledger totals count the failed withdrawal's fee as Balances do, and say so.
  await page.getByRole('button', { name: 'Show the transactions' }).click();
  const withdrawals = page.locator('.tx-totals').getByTestId('total-TRON_USDT-Withdrawal');
  await expect(withdrawals.getByRole('cell').nth(2)).toHaveText('1 + 1 failed, fee only');
  await expect(withdrawals.getByRole('cell').nth(4)).toHaveText('2');
  await expect(page.getByTestId('totals-caption')).toContainText(FAILED_FEE_RULE.slice(1));
  await shot(page, 'ledger-totals-failed-fee');
  await openScreen(page, 'Wallets');
  await page.getByRole('button', { name: 'Name it' }).click();
  await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Custody (Tron)');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog')).toBeHidden();

  await openScreen(page, 'Balances');
  await expect(page.getByLabel('From (UTC day)')).toHaveValue(day(first));
  await expect(page.getByLabel('To (UTC day, inclusive)')).toHaveValue(day(last));
  const table = page.getByRole('table', { name: 'Balances' });
  const line = table.getByRole('row').nth(1);
  await expect(line).toContainText('Custody (Tron)');
  await expect(line).toContainText('TRON_USDT');
  // Movements beside the token; the amounts in order, Closing last (kept in view on a narrow window).
  await expect(line.getByRole('cell').nth(2)).toHaveText('3');
  await expect(line.getByRole('cell').nth(3)).toHaveText('500');
  await expect(line.getByRole('cell').nth(4)).toHaveText('1,200.5');
  await expect(line.getByRole('cell').nth(5)).toHaveText('300');
  await expect(line.getByRole('cell').nth(6)).toHaveText('2');
  await expect(page.getByText(FAILED_FEE_RULE, { exact: false })).toBeVisible();
  await expect(line.getByRole('cell').nth(7)).toHaveText('1,398.5');

  await line.click();
  const statement = page.getByRole('region', { name: 'Statement' });
  const movements = statement.getByRole('table', { name: 'Movements' });
  await expect(movements.getByRole('row')).toHaveCount(4);
  await expect(movements.getByRole('row').nth(1)).toContainText('1,700.5');
  await expect(movements.getByRole('row').nth(2)).toContainText('1,399.5');
  await expect(movements.getByRole('row').nth(3)).toContainText('Failed');
  await expect(movements.getByRole('row').nth(3)).toContainText('1,398.5');
  await shot(page, 'balances');

  // The custodian says 1398.75: 0.25 more than the ledger.
  const check = page.getByRole('region', { name: 'Check against statement' });
  await expect(check.getByLabel('token_id')).toHaveValue('TRON_USDT');
  await expect(check.getByLabel('Statement date')).toHaveValue(day(last));
  await check.getByLabel('Closing balance on the statement').fill('1398.75');
  await check.getByRole('button', { name: 'Check' }).click();
  const result = check.getByTestId('check-result');
  await expect(result).toContainText('Difference 0.25 TRON_USDT');
  await expect(result).toContainText('statement 1398.75, ledger 1398.5, difference 0.25');
  await expect(result.getByRole('link')).toBeVisible();
  await result.scrollIntoViewIfNeeded();
  await shot(page, 'balances-check');

  // Bad input names the field.
  await check.getByLabel('Closing balance on the statement').fill('1.398,75');
  await check.getByRole('button', { name: 'Check' }).click();
  await expect(check.getByRole('alert')).toContainText('statement_balance: must be a number');

  // The exception is in the queue.
  await check.getByLabel('Closing balance on the statement').fill('1398.75');
  await check.getByRole('button', { name: 'Check' }).click();
  await result.getByRole('link').click();
  await expect(page).toHaveURL(/#\/tickets\/ticket\//);
  await expect(page.getByText('statement 1398.75 USDT, ledger 1398.5, difference 0.25').first()).toBeVisible();
  // Its figures say when in words: the end of the statement's day, never Unix milliseconds.
  const figures = page.getByRole('table', { name: 'Balance figures' });
  await expect(figures.getByRole('row').filter({ hasText: 'Balance at (UTC)' })).toContainText(`${day(last)} 23:59:59 UTC`);
  await expect(figures).not.toContainText(String(Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), last.getUTCDate()) + 86_399_999));
  await shot(page, 'balances-exception');

  // The statement as the custodian writes it, 1398.50, agrees at its two places and settles the exception.
  await openScreen(page, 'Balances');
  await page.getByRole('table', { name: 'Balances' }).getByRole('row').nth(1).click();
  await check.getByLabel('Closing balance on the statement').fill('1398.50');
  await check.getByRole('button', { name: 'Check' }).click();
  await expect(result).toContainText('The statement agrees with the ledger at its 2 decimal places');
  await expect(check.getByTestId('check-rule')).toHaveText(
    "The rule: compared at the statement's 2 decimal places; the ledger's 1398.5 needs no rounding.",
  );
  await expect(result).toContainText('is now resolved');
  await result.getByRole('link').click();
  await expect(page.getByTestId('ticket-detail')).toContainText('Resolved');
  await expect(page.getByRole('region', { name: 'History' })).toContainText('Pending → Resolved');
});
