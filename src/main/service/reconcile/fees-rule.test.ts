import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempService } from '../test-support';
import { evmHash, good, text, W } from '../ledger/native-rows.test-support';

/*
 * One rule for failed records' fees (docs/ledger.md, "Balances"): a wallet whose month holds a
 * withdrawal that failed on chain and paid its gas, as an explorer's export records it (no
 * amount_actual), totals the same on the Ledger's totals, the Balances and the reconciliation report.
 */

const ui = { actor: 'ui' as const };
const day = (d: number) => String(Date.UTC(2026, 0, d, 12));
const eth = { chain_id: 'ETH', token_id: 'ETH', created_at: '' };

describe('fees of failed transactions: one rule for totals, balances and the report', () => {
  const svc = tempService();
  afterAll(() => svc.close());

  beforeAll(async () => {
    const lines = [
      good(1, { ...eth, amount: '2.5', fee: '0', created_at: day(2) }),
      good(2, { ...eth, type: 'Withdrawal', amount: '1.2', fee: '0.000441', created_at: day(9) }),
      // Reverted on chain: the value stayed, the gas 0.000377 was paid.
      good(3, { ...eth, type: 'Withdrawal', status: 'Failed', amount: '0.75', fee: '0.000377', created_at: day(15) }),
      // Refused before the chain (no hash) and rejected: nothing was paid.
      good(4, { ...eth, type: 'Withdrawal', status: 'Failed', amount: '5', fee: '0.01', hash: '', created_at: day(16) }),
      good(5, { ...eth, type: 'Withdrawal', status: 'Rejected', amount: '5', fee: '0.01', created_at: day(17) }),
    ];
    const imported = await svc.invoke('ledger-import', { source: text(lines) }, ui);
    expect(imported.rejected, JSON.stringify(imported.rejections)).toBe(0);
  });

  it('equal on Ledger totals, Balances and the report', async () => {
    const totals = await svc.invoke('transactions-totals', { wallet_id: W, token_id: 'ETH' }, ui);
    const sum = (type: string, field: 'amount' | 'fee') =>
      totals.totals
        .filter((t) => t.type === type)
        .reduce((s, t) => s.plus(t[field]), new Big(0))
        .toFixed();
    const fees = new Big(sum('Deposit', 'fee')).plus(sum('Withdrawal', 'fee')).toFixed();
    expect(fees).toBe('0.000818');
    expect(totals.totals.find((t) => t.type === 'Withdrawal')).toMatchObject({ count: 1, fee_only: 1 });

    const balances = await svc.invoke('balances-period', { wallet_id: W, from: '2026-01-01', to: '2026-01-31' }, ui);
    const balance = balances.rows.find((r) => r.token_id === 'ETH')!;
    expect(balance).toMatchObject({ inflow: sum('Deposit', 'amount'), outflow: sum('Withdrawal', 'amount'), fees });

    const books = { name: 'january.csv', text: `Tx Hash,Amount\n${evmHash(1)},2.5\n` };
    const run = await svc.invoke(
      'reconcile-books-run',
      { source: books, mapping: { columns: { hash: 'Tx Hash', amount: 'Amount' } }, wallet_id: W, from: '2026-01-01', to: '2026-01-31' },
      ui,
    );
    const report = await svc.invoke('run-report', { run_id: run.run_id }, ui);
    const reported = report.balances.find((b) => b.token_id === 'ETH')!;
    expect(reported).toMatchObject({ inflow: balance.inflow, outflow: balance.outflow, fees, closing: balance.closing });
    expect(reported.closing).toBe('1.299182'); // 2.5 - 1.2 - 0.000441 - 0.000377
  });
});
