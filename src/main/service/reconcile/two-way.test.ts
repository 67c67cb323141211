import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BooksRunInput } from '../../../shared/reconcile';
import { tempService } from '../test-support';
import { insertRecords } from './fixtures.test-support';

/*
 * Two-way reconciliation of a period: a books file with one claim of every kind, against a ledger
 * with records inside the period, one second outside it on each side, and in another wallet.
 */

const W = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const id = (i: number) => `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`;
const hash = (i: number) => '0x' + i.toString(16).padStart(64, '0');
/** October 2026, UTC. */
const FROM = Date.UTC(2026, 9, 1);
const TO = Date.UTC(2026, 10, 1) - 1;
const at = (day: number, h = 12) => Date.UTC(2026, 9, day, h);
const ui = { actor: 'ui' as const };

describe('two-way reconciliation of a period', () => {
  const svc = tempService();
  afterAll(() => svc.close());

  beforeAll(() => {
    insertRecords(svc.ctx.db, [
      // 1 matches, 2 mismatches on amount, 3 is claimed twice, 4 and 5 nobody booked (one only just inside each end).
      { transaction_id: id(1), wallet_id: W, hash: hash(1), amount: '100', created_at: at(3) },
      { transaction_id: id(2), wallet_id: W, hash: hash(2), amount: '250.5', created_at: at(10) },
      { transaction_id: id(3), wallet_id: W, hash: hash(3), amount: '7', created_at: at(15) },
      { transaction_id: id(4), wallet_id: W, hash: hash(4), amount: '1', created_at: FROM },
      { transaction_id: id(5), wallet_id: W, hash: hash(5), amount: '2', created_at: TO },
      // One second outside the period on each side: not the books' business this month.
      { transaction_id: id(6), wallet_id: W, hash: hash(6), amount: '3', created_at: FROM - 1000 },
      { transaction_id: id(7), wallet_id: W, hash: hash(7), amount: '4', created_at: TO + 1000 },
      // Another wallet's record in the period: outside the run's scope.
      { transaction_id: id(8), wallet_id: OTHER, hash: hash(8), amount: '5', created_at: at(20) },
    ]);
  });

  const books = [
    'Tx Hash,Amount',
    `${hash(1)},100`,
    `${hash(2)},250.25`,
    `${hash(3)},7`,
    `${hash(9)},42`, // not in the ledger
    `${hash(3).toUpperCase().replace('0X', '0x')},7`, // the same claim again, spelled differently
  ].join('\n');

  const input = (over: Partial<BooksRunInput> = {}) => ({
    source: { name: 'october.csv', text: books },
    mapping: { columns: { hash: 'Tx Hash', amount: 'Amount' } },
    amount_delta: '0',
    wallet_id: W,
    from: '2026-10-01',
    to: '2026-10-31',
    ...over,
  });

  test('each group holds exactly its items, and every group but matched is an exception', async () => {
    const run = await svc.invoke('reconcile-books-run', input(), ui);
    expect(run).toMatchObject({
      two_way: true,
      period_from: FROM,
      period_to: TO,
      item_count: 5,
      matched: 2, // rows 1 and 3
      mismatched: 1, // row 2
      not_found: 1, // row 4
      duplicates: 1, // row 5 repeats row 3
      not_in_books: 2, // records 4 and 5, at the period's very ends
    });

    const items = async (filter: 'matched' | 'mismatched' | 'not_found' | 'duplicates') =>
      (await svc.invoke('run-get', { run_id: run.run_id, page: 1, page_size: 50, filter }, ui)).items.list;
    expect((await items('matched')).map((i) => i.claimed.books_row)).toEqual([1, 3]);
    expect((await items('mismatched')).map((i) => [i.claimed.books_row, i.amount_match])).toEqual([[2, false]]);
    expect((await items('not_found')).map((i) => i.claimed.books_row)).toEqual([4]);
    const [dup] = await items('duplicates');
    expect(dup).toMatchObject({ idx: 4, duplicate_of: 2, claimed: { books_row: 5 }, record: { transaction_id: id(3) } });

    const unbooked = await svc.invoke('run-unbooked', { run_id: run.run_id, page: 1, page_size: 50 }, ui);
    expect(unbooked.list.map((u) => u.transaction_id).sort()).toEqual([id(4), id(5)]);
    expect(unbooked.list.every((u) => u.record !== null && u.ticket_id !== null)).toBe(true);

    const queue = await svc.invoke('tickets-list', { page: 1, page_size: 50, status: 'Pending', sort: 'kind', order: 'asc' }, ui);
    expect(queue.list.map((t) => [t.kind, t.transaction_id]).sort()).toEqual(
      [
        ['duplicate', id(3)],
        ['mismatch', id(2)],
        ['not_in_books', id(4)],
        ['not_in_books', id(5)],
        ['not_in_ledger', ''],
      ].sort(),
    );
    const notInLedger = queue.list.find((t) => t.kind === 'not_in_ledger')!;
    expect(notInLedger).toMatchObject({ wallet_id: W, amount: '42' });
    expect(notInLedger.desc).toContain('books row 4');
    expect(queue.list.find((t) => t.kind === 'duplicate')!.desc).toContain('books row 5 repeats books row 3');

    // The API's tickets are the mismatches: the other exceptions answer as a missing ticket does.
    const api = { actor: 'api' as const };
    const mismatch = queue.list.find((t) => t.kind === 'mismatch')!;
    await expect(svc.invoke('ticket-lookup', { wallet_id: W, ticket_id: mismatch.ticket_id }, api)).resolves.toMatchObject({
      transaction_id: id(2),
    });
    const notInBooks = queue.list.find((t) => t.kind === 'not_in_books')!;
    await expect(svc.invoke('ticket-lookup', { wallet_id: W, ticket_id: notInBooks.ticket_id }, api)).rejects.toMatchObject({ code: 3003 });
  });

  test('the report holds the summary and every group, rows in books order, with explorer links', async () => {
    const run = (await svc.invoke('runs-list', { page: 1, page_size: 1 }, ui)).list[0]!;
    const report = await svc.invoke('run-report', { run_id: run.run_id }, ui);
    expect(report).toMatchObject({
      books: 'october.csv',
      period_from: FROM,
      period_to: TO,
      wallets: [{ wallet_id: W }],
      summary: { matched: 2, mismatched: 1, not_in_ledger: 1, not_in_books: 2, duplicates: 1 },
      claims: 5,
      open_exceptions: 5,
      run_by: 'ui',
    });
    expect(report.groups.matched.map((i) => i.books_row)).toEqual([1, 3]);
    expect(report.groups.mismatched[0]).toMatchObject({ books_row: 2, note: 'Differs in amount', record: { transaction_id: id(2) } });
    expect(report.groups.mismatched[0]!.explorer_tx_url).toBe(`https://etherscan.io/tx/${hash(2)}`);
    expect(report.groups.not_in_ledger[0]).toMatchObject({ books_row: 4, record: null, note: 'No record in the ledger' });
    expect(report.groups.duplicates[0]).toMatchObject({ books_row: 5, note: 'Repeats books row 3' });
    expect(report.groups.not_in_books.map((i) => i.record?.transaction_id).sort()).toEqual([id(4), id(5)]);
    // A cut report keeps whole counts.
    const cut = await svc.invoke('run-report', { run_id: run.run_id, limit: 1 }, ui);
    expect(cut.groups.matched).toHaveLength(1);
    expect(cut.summary.matched).toBe(2);
  });

  test('the same books again update the Pending exceptions instead of opening more', async () => {
    const before = (await svc.invoke('tickets-list', { page: 1, page_size: 1 }, ui)).total;
    const run = await svc.invoke('reconcile-books-run', input(), ui);
    expect(run).toMatchObject({ matched: 2, mismatched: 1, not_found: 1, duplicates: 1, not_in_books: 2 });
    expect((await svc.invoke('tickets-list', { page: 1, page_size: 1 }, ui)).total).toBe(before);
    const notInBooks = await svc.invoke('tickets-list', { page: 1, page_size: 5, kind: 'not_in_books' }, ui);
    const detail = await svc.invoke('ticket-get', { ticket_id: notInBooks.list[0]!.ticket_id }, ui);
    expect(detail.events.map((e) => e.kind)).toEqual(['opened', 'updated']);
    expect(detail.run_id).toBe(run.run_id);
  });

  test('without a period the ledger side is every record of the wallet; all wallets without one', async () => {
    const wallet = await svc.invoke('reconcile-books-run', input({ from: undefined, to: undefined }), ui);
    expect(wallet).toMatchObject({ period_from: null, period_to: null, not_in_books: 4 }); // 4, 5, 6, 7
    const all = await svc.invoke('reconcile-books-run', input({ wallet_id: undefined }), ui);
    expect(all.not_in_books).toBe(3); // 4, 5 and the other wallet's 8
  });

  test('one-way runs and the API open no exceptions beyond mismatches', async () => {
    const before = (await svc.invoke('tickets-list', { page: 1, page_size: 1 }, ui)).total;
    const oneWay = await svc.invoke('reconcile-books-run', input({ two_way: false }), ui);
    expect(oneWay).toMatchObject({ two_way: false, not_found: 1, duplicates: 0, not_in_books: 0, matched: 3 });
    expect((await svc.invoke('tickets-list', { page: 1, page_size: 1 }, ui)).total).toBe(before);
  });

  test('a period that cannot be read stores nothing and names the field', async () => {
    const runs = (await svc.invoke('runs-list', { page: 1, page_size: 1 }, ui)).total;
    await expect(svc.invoke('reconcile-books-run', input({ to: '2026-09-31' }), ui)).rejects.toMatchObject({
      code: 1002,
      message: expect.stringMatching(/^to: "2026-09-31" is not a calendar date/),
    });
    await expect(svc.invoke('reconcile-books-run', input({ from: '2026-11-01', to: '2026-10-01' }), ui)).rejects.toMatchObject({
      code: 1002,
      message: expect.stringMatching(/^to: 2026-10-01 is before from/),
    });
    expect((await svc.invoke('runs-list', { page: 1, page_size: 1 }, ui)).total).toBe(runs);
  });
});
