import Big from 'big.js';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerTotals, type LedgerRecord } from '../../../shared/ledger';
import { ReportFile } from '../../../shared/reports';
import type { CallMeta } from '../context';
import { failure, tempService } from '../test-support';
import { ExactSum } from './exact-sum';
import { good, id, text, W } from './native-rows.test-support';

/* The Ledger screen's table: sort by a column, totals per token and type, export as CSV or XLSX. */

const meta: CallMeta = { actor: 'ui' };
let svc: ReturnType<typeof tempService>;
beforeEach(() => {
  svc = tempService();
});
afterEach(() => svc.dispose());

const eth = (n: number, amount: string, extra: Record<string, string> = {}) =>
  good(n, { token_id: 'ETH', amount, fee: '0.000000000000000001', ...extra });

/** Amounts a float cannot tell apart (0.1 and 0.100000000000000001 are the same double), and the other columns varied. */
const LINES = [
  eth(1, '0.100000000000000001'),
  eth(2, '0.1'),
  eth(3, '0.100000000000000002', { type: 'Withdrawal', status: 'Pending' }),
  eth(4, '12', { created_at: '1767225500000' }),
  eth(5, '0.099999999999999999', { status: 'Failed' }),
  good(6, { amount: '1000000.25', fee: '1' }),
  good(7, { amount: '0.75', type: 'Withdrawal', chain_id: 'TRON', token_id: 'TRON_USDT', hash: 'f'.repeat(64), fee: '' }),
];

async function seed(lines = LINES) {
  const r = await svc.invoke('ledger-import', { source: text(lines) }, meta);
  expect(r.rejected, JSON.stringify(r.rejections)).toBe(0);
}

const list = async (query: Record<string, unknown>): Promise<LedgerRecord[]> =>
  (await svc.invoke('transactions-list', { page_size: 500, ...query }, meta)).list;
const ids = (records: LedgerRecord[]) => records.map((r) => Number(r.transaction_id.slice(-12)));

describe('transactions-list sort', () => {
  it('sorts amounts in exact decimal order, where a float would tie', async () => {
    await seed();
    expect(ids(await list({ sort: 'amount', order: 'asc' }))).toEqual([5, 2, 1, 3, 7, 4, 6]);
    expect(ids(await list({ sort: 'amount', order: 'desc' }))).toEqual([6, 4, 7, 3, 1, 2, 5]);
    // Paged, the order holds across pages.
    const pages = [1, 2, 3, 4].map((page) => list({ sort: 'amount', order: 'asc', page, page_size: 2 }));
    expect(ids((await Promise.all(pages)).flat())).toEqual([5, 2, 1, 3, 7, 4, 6]);
  });

  it('sorts by time both ways, and by type, status, token and chain with the newest first among equals', async () => {
    await seed();
    expect(ids(await list({}))).toEqual([7, 6, 5, 3, 2, 1, 4]);
    expect(ids(await list({ sort: 'created_at', order: 'asc' }))).toEqual([4, 1, 2, 3, 5, 6, 7]);
    expect(ids(await list({ sort: 'type', order: 'asc' }))).toEqual([6, 5, 2, 1, 4, 7, 3]);
    expect(ids(await list({ sort: 'status', order: 'asc' }))).toEqual([7, 6, 2, 1, 4, 5, 3]);
    expect(ids(await list({ sort: 'token_id', order: 'desc' }))).toEqual([7, 6, 5, 3, 2, 1, 4]);
    expect(ids(await list({ sort: 'chain_id', order: 'asc', type: 'Withdrawal' }))).toEqual([3, 7]);
  });

  it('sees records an import adds or changes after a sorted page was read', async () => {
    await seed();
    expect(ids(await list({ sort: 'amount', order: 'desc', page_size: 2 }))).toEqual([6, 4]);
    await seed([eth(8, '99'), good(6, { amount: '1' })]);
    const after = await svc.invoke('transactions-list', { sort: 'amount', order: 'desc', page_size: 2 }, meta);
    expect(ids(after.list)).toEqual([8, 4]);
    expect(after.total).toBe(8);
    expect(ids(await list({ sort: 'amount', order: 'desc', status: 'Failed' }))).toEqual([5]);
  });

  it('refuses a sort it does not know, naming the field', async () => {
    const err = await failure(svc.invoke('transactions-list', { sort: 'fee' }, meta));
    expect(err.message).toMatch(/^sort: must be one of created_at, amount, type, status, token_id, chain_id/);
  });
});

describe('transactions-totals', () => {
  it('sums amount and fee per chain, token and type exactly, under the filters', async () => {
    await seed();
    const all = LedgerTotals.parse(await svc.invoke('transactions-totals', {}, meta));
    expect(all.total).toBe(7);
    // The Failed deposit (#5) moved nothing: it is counted apart, not summed.
    expect(all.left_out).toEqual([{ status: 'Failed', count: 1 }]);
    expect(all.totals).toEqual([
      {
        chain_id: 'ETH',
        token_id: 'ETH',
        type: 'Deposit',
        count: 3,
        fee_only: 0,
        amount: '12.200000000000000001',
        fee: '0.000000000000000003',
      },
      {
        chain_id: 'ETH',
        token_id: 'ETH',
        type: 'Withdrawal',
        count: 1,
        fee_only: 0,
        amount: '0.100000000000000002',
        fee: '0.000000000000000001',
      },
      { chain_id: 'ETH', token_id: 'ETH_USDT', type: 'Deposit', count: 1, fee_only: 0, amount: '1000000.25', fee: '1' },
      { chain_id: 'TRON', token_id: 'TRON_USDT', type: 'Withdrawal', count: 1, fee_only: 0, amount: '0.75', fee: '0' },
    ]);
    // Asked for by the status filter, Failed records are summed.
    const failed = await svc.invoke('transactions-totals', { status: 'Failed' }, meta);
    expect(failed.totals).toEqual([
      {
        chain_id: 'ETH',
        token_id: 'ETH',
        type: 'Deposit',
        count: 1,
        fee_only: 0,
        amount: '0.099999999999999999',
        fee: '0.000000000000000001',
      },
    ]);
    expect(failed.left_out).toEqual([]);
    const pending = await svc.invoke('transactions-totals', { status: 'Pending' }, meta);
    expect(pending).toMatchObject({ total: 1, left_out: [], totals: [expect.objectContaining({ type: 'Withdrawal', count: 1 })] });
    expect((await svc.invoke('transactions-totals', { wallet_id: '99999999-2222-4333-8444-555555555555' }, meta)).totals).toEqual([]);
  });

  it('counts a failed withdrawal that reached the chain by its fee alone, as balances do; without a hash, not at all', async () => {
    await seed([
      eth(1, '5', { fee: '0.000001' }),
      eth(2, '1.25', { type: 'Withdrawal', fee: '0.000021' }),
      // Reverted on chain: the 3 ETH stayed, the network kept 0.000042.
      eth(3, '3', { type: 'Withdrawal', status: 'Failed', fee: '0.000042' }),
      // Refused before it reached the chain: no hash, nothing paid.
      eth(4, '7', { type: 'Withdrawal', status: 'Failed', fee: '0.5', hash: '' }),
      eth(5, '9', { type: 'Withdrawal', status: 'Rejected', fee: '0.5' }),
    ]);
    const totals = await svc.invoke('transactions-totals', { token_id: 'ETH' }, meta);
    expect(totals.totals.find((t) => t.type === 'Withdrawal')).toEqual({
      chain_id: 'ETH',
      token_id: 'ETH',
      type: 'Withdrawal',
      count: 1,
      fee_only: 1,
      amount: '1.25',
      fee: '0.000063',
    });
    expect(totals.left_out).toEqual([
      { status: 'Failed', count: 1 },
      { status: 'Rejected', count: 1 },
    ]);
    // The same rule as the balance: 5 in, 1.25 out, fees 0.000001 + 0.000021 + 0.000042.
    const period = await svc.invoke('balances-period', { from: '2026-01-01', to: '2026-01-31' }, meta);
    const ether = period.rows.find((r) => r.token_id === 'ETH')!;
    const sum = (type: string, f: 'amount' | 'fee') =>
      totals.totals.filter((t) => t.type === type).reduce((s, t) => s.plus(t[f]), new Big(0));
    expect(ether).toMatchObject({ inflow: sum('Deposit', 'amount').toFixed(), outflow: sum('Withdrawal', 'amount').toFixed() });
    expect(ether.fees).toBe(sum('Deposit', 'fee').plus(sum('Withdrawal', 'fee')).toFixed());
    expect(ether.fees).toBe('0.000064');
  });

  it('equals big.js over many 18-decimal amounts', async () => {
    const amounts = Array.from({ length: 400 }, (_, n) => `${n % 7}.${String((n * 7919) % 1e6).padStart(6, '0')}${'123456789012'}`);
    await seed(amounts.map((a, n) => eth(n + 1, a)));
    const expected = amounts.reduce((sum, a) => sum.plus(a), new Big(0));
    const [row] = (await svc.invoke('transactions-totals', { token_id: 'ETH' }, meta)).totals;
    expect(row!.amount).toBe(expected.toFixed());
    expect(row!.count).toBe(400);
  });
});

describe('ExactSum', () => {
  it('adds decimal strings of any scale and sign exactly', () => {
    const s = new ExactSum();
    for (const v of ['1', '0.5', '-0.25', '', '0.000000000000000000001', '1e-3', '-2']) s.add(v);
    expect(s.toString()).toBe('-0.748999999999999999999');
    const zero = new ExactSum();
    zero.add('0.1');
    zero.add('-0.10');
    expect(zero.toString()).toBe('0');
    expect(new ExactSum().toString()).toBe('0');
  });
});

describe('ledger-export-file', () => {
  it('CSV: the filtered records in the sort, exact amounts, ISO UTC times, the wallet name beside its ID', async () => {
    await seed();
    await svc.invoke('wallet-update', { wallet_id: W, name: '=Treasury' }, meta);
    const file = ReportFile.parse(
      await svc.invoke('ledger-export-file', { token_id: 'ETH', sort: 'amount', order: 'desc', format: 'csv' }, meta),
    );
    expect(file.file_name).toMatch(/^ledger-\d{8}-\d{6}Z\.csv$/);
    expect(file.mime).toMatch(/^text\/csv/);
    const parsed = Papa.parse<Record<string, string>>(Buffer.from(file.base64, 'base64').toString('utf8'), {
      header: true,
      skipEmptyLines: true,
    });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.transaction_id)).toEqual([4, 3, 1, 2, 5].map(id));
    expect(parsed.data.map((r) => r.amount)).toEqual(['12', '0.100000000000000002', '0.100000000000000001', '0.1', '0.099999999999999999']);
    expect(parsed.data[0]).toMatchObject({
      created_at: '2025-12-31T23:58:20.000Z',
      completed_at: '',
      wallet_id: W,
      wallet_name: "'=Treasury",
    });
  });

  it('XLSX: a Ledger sheet of the records and a Totals sheet, amounts as exact text', async () => {
    await seed();
    const file = ReportFile.parse(await svc.invoke('ledger-export-file', { chain_id: 'ETH', format: 'xlsx' }, meta));
    expect(file.file_name).toMatch(/\.xlsx$/);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(file.base64, 'base64') as unknown as ExcelJS.Buffer);
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Ledger', 'Totals']);
    const ledger = wb.getWorksheet('Ledger')!;
    expect(ledger.rowCount).toBe(7); // the header and six ETH records
    const head = ledger.getRow(1).values as unknown[];
    const amountCol = head.indexOf('amount');
    expect(ledger.getRow(2).getCell(head.indexOf('transaction_id')).value).toBe(id(6));
    const amounts = [2, 3, 4, 5, 6, 7].map((r) => ledger.getRow(r).getCell(amountCol).value);
    expect(amounts).toEqual(['1000000.25', '0.099999999999999999', '0.100000000000000002', '0.1', '0.100000000000000001', '12']);
    expect(ledger.getRow(2).getCell(head.indexOf('created_at')).value).toBe('2026-01-01T00:00:06.000Z');
    const totals = wb.getWorksheet('Totals')!;
    expect(totals.getRow(2).values).toEqual([undefined, 'ETH', 'ETH', 'Deposit', 3, 0, '12.200000000000000001', '0.000000000000000003']);
    expect(totals.getCell('A6').value).toMatch(
      /^Filters: chain_id = ETH; sorted by created_at descending\. The sums count by the rule of balances: a failed withdrawal that reached the chain \(it has a hash\) moved no amount but paid its fee, which counts; other failed and rejected records count nothing \(fee_only: such withdrawals, their fee in fee\)\. Left out of the sums: 1 Failed record\. Exported at /,
    );
  });

  it('refuses a format it does not make', async () => {
    const err = await failure(svc.invoke('ledger-export-file', { format: 'pdf' }, meta));
    expect(err.message).toBe('format: must be xlsx or csv');
  });
});
