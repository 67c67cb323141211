import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { BooksMapping } from '../../../shared/reconcile';
import { tempService } from '../test-support';
import { compileBooksRow, suggestBooksMapping } from './books-map';
import { insertRecords } from './fixtures.test-support';

const W = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';
const T = Date.UTC(2026, 0, 2, 3, 4, 5);
const id = (i: number) => `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`;
const hash = (i: number) => '0x' + i.toString(16).padStart(64, '0');
const mapping = (m: Partial<BooksMapping> = {}): BooksMapping => ({
  columns: {},
  constants: {},
  thousands_separator: '',
  utc_offset: '+00:00',
  ...m,
});

describe('books rows to claims (pure)', () => {
  const headers = ['Date', 'Tx Hash', 'Amount', 'Reference', 'Network'];
  const read = compileBooksRow(headers, {
    mapping: mapping({
      columns: { time: 'Date', hash: 'Tx Hash', amount: 'Amount', request_id: 'Reference', chain_id: 'Network' },
      constants: { chain_id: 'ETH', token_id: 'ETH_USDT' },
      thousands_separator: ',',
      utc_offset: '+08:00',
    }),
    time_delta: 60,
  });

  test('cells become a claim: thousands separators dropped, local time read in the offset, constants fill the gaps', () => {
    const out = read({ Date: '2026-01-02 11:04:05', 'Tx Hash': hash(1), Amount: '1,234.50', Reference: '', Network: '' });
    expect(out).toMatchObject({
      claimed: { hash: hash(1), amount: '1234.5', time: T / 1000, chain_id: 'ETH', token_id: 'ETH_USDT', time_delta: 60 },
      item: { hash: hash(1), amount: '1234.5', time: T / 1000, time_delta: 60, time_type: 'Created', amount_delta: '0.001' },
    });
    expect('item' in out && out.item.request_id).toBeUndefined();
  });

  test('a cell beats a constant; Unix seconds and milliseconds are both times', () => {
    expect(read({ Date: String(T), 'Tx Hash': hash(1), Amount: '1', Reference: 'r', Network: 'TRON' })).toMatchObject({
      item: { chain_id: 'TRON', time: T / 1000 },
    });
    expect(read({ Date: String(T / 1000), 'Tx Hash': hash(1), Amount: '1', Reference: 'r', Network: '' })).toMatchObject({
      item: { time: T / 1000 },
    });
  });

  test('a row that cannot be a claim names its column and why', () => {
    expect(read({ Date: 'yesterday', 'Tx Hash': hash(1), Amount: '1', Reference: '', Network: '' })).toMatchObject({
      field: 'Date',
      reason: expect.stringMatching(/not a time/),
    });
    expect(read({ Date: '', 'Tx Hash': hash(1), Amount: 'ten', Reference: '', Network: '' })).toMatchObject({
      field: 'Amount',
      reason: expect.stringMatching(/not a number/),
    });
    expect(read({ Date: '', 'Tx Hash': '', Amount: '1', Reference: '', Network: '' })).toMatchObject({
      field: '(row)',
      reason: expect.stringMatching(/at least one of request_id/),
    });
  });

  test('a mapped column missing from the file is refused before anything runs', () => {
    expect(() => compileBooksRow(headers, { mapping: mapping({ columns: { amount: 'Amt' } }) })).toThrow(
      /mapping\.columns\.amount: no column "Amt"/,
    );
  });

  test('a first guess at the mapping from common column names', () => {
    expect(
      suggestBooksMapping([
        'Date (UTC)',
        'TxHash',
        'Net Amount',
        'Amount',
        'Fee',
        'Asset',
        'Network',
        'Order ID',
        'Recipient',
        'Status',
        'Memo',
      ]).columns,
    ).toEqual({
      request_id: 'Order ID',
      hash: 'TxHash',
      chain_id: 'Network',
      token_id: 'Asset',
      to: 'Recipient',
      status: 'Status',
      amount: 'Amount',
      fee: 'Fee',
      amount_actual: 'Net Amount',
      time: 'Date (UTC)',
      // Kept beside each claim, never compared.
      description: 'Memo',
    });
  });
});

describe('books runs through the service', () => {
  const svc = tempService({ now: () => T + 3_600_000 });
  afterAll(() => svc.dispose());
  const ui = { actor: 'ui' as const };
  insertRecords(
    svc.ctx.db,
    Array.from({ length: 2500 }, (_, i) => ({
      transaction_id: id(i),
      wallet_id: W,
      hash: hash(i),
      amount: `${i}.5`,
      created_at: T + i * 1000,
    })),
  );

  // 2,500 rows: 2,000 matching, 497 mismatching amounts, 2 not in the ledger, 1 unreadable.
  const lines = ['\uFEFFDate,Tx Hash,Amount,Note'];
  for (let i = 0; i < 2500; i++) {
    const amount = i < 2000 ? `${i}.5` : `${i}.75`;
    const h = i === 2497 || i === 2498 ? hash(900000 + i) : hash(i);
    lines.push(`${new Date(T + i * 1000).toISOString()},${h},${i === 2499 ? 'n/a' : amount},"note, with comma"`);
  }
  const text = lines.join('\r\n') + '\r\n';

  test('detect: headers (BOM stripped), sample rows, an estimate and a suggested mapping', async () => {
    const d = await svc.invoke('reconcile-books-detect', { source: { name: 'books.csv', text } }, ui);
    expect(d.headers).toEqual(['Date', 'Tx Hash', 'Amount', 'Note']);
    expect(d.sample).toHaveLength(20);
    expect(d.sample[0]).toEqual({ Date: '2026-01-02T03:04:05.000Z', 'Tx Hash': hash(0), Amount: '0.5', Note: 'note, with comma' });
    // Past the head (256 KiB) the count is estimated from the bytes per row: for progress, within 1%.
    expect(Math.abs(d.rows_estimate! - 2500)).toBeLessThan(25);
    expect(d.suggested.columns).toEqual({ hash: 'Tx Hash', amount: 'Amount', time: 'Date', description: 'Note' });
  });

  test('run: a file of any length in chunks of 1000 with progress, one stored run, tickets for mismatches', async () => {
    const path = join(svc.dataDir, 'books.csv');
    writeFileSync(path, text);
    const progress: { done: number; total?: number }[] = [];
    const run = await svc.invoke(
      'reconcile-books-run',
      { source: { path }, mapping: { columns: { time: 'Date', hash: 'Tx Hash', amount: 'Amount' } }, time_delta: 0, amount_delta: '0' },
      { actor: 'ui', onProgress: (p) => progress.push(p) },
    );
    expect(run).toMatchObject({
      source: 'ui',
      label: 'books.csv',
      item_count: 2499,
      matched: 2000,
      mismatched: 497,
      not_found: 2,
      rejected_count: 1,
    });
    expect(run.rejected).toEqual([{ row: 2500, field: 'Amount', reason: expect.stringMatching(/not a number/) }]);
    expect(progress.map((p) => p.done)).toEqual([1000, 2000, 2499, 2499]);
    expect(progress.at(-1)).toEqual({ done: 2499, total: 2499 });

    const detail = await svc.invoke('run-get', { run_id: run.run_id, page: 3, page_size: 100, filter: 'mismatched' }, ui);
    expect(detail.items.total).toBe(497);
    // The unreadable row is kept with the run: its page shows it whenever it is opened.
    expect(detail).toMatchObject({ rejected_count: 1, rejected: run.rejected });
    expect(detail.items.list[0]).toMatchObject({
      result: false,
      amount_match: false,
      time_match: true,
      claimed: { books_row: 2201, amount: '2200.75' },
    });
    expect(detail.items.list[0]!.ticket_id).toMatch(/^[0-9a-f-]{36}$/);
    const pending = async (kind: 'mismatch' | 'not_in_ledger' | 'not_in_books') =>
      (await svc.invoke('tickets-list', { page: 1, page_size: 1, status: 'Pending', kind }, ui)).total;
    expect(await pending('mismatch')).toBe(497);
    // Two-way by default: the claims that found nothing and the records no claim found are exceptions too.
    expect(await pending('not_in_ledger')).toBe(2);
    expect(await pending('not_in_books')).toBe(run.not_in_books);
    const runs = await svc.invoke('runs-list', { page: 1, page_size: 10 }, ui);
    expect(runs.list[0]).toMatchObject({ run_id: run.run_id, rejected_count: 1 });
  });

  test('a wrong mapping or an unknown wallet stores nothing', async () => {
    const before = (await svc.invoke('runs-list', { page: 1, page_size: 1 }, ui)).total;
    await expect(
      svc.invoke('reconcile-books-run', { source: { name: 'b.csv', text }, mapping: { columns: { amount: 'Betrag' } } }, ui),
    ).rejects.toMatchObject({
      code: 1002,
      message: expect.stringMatching(/^mapping\.columns\.amount: no column "Betrag"/),
    });
    await expect(
      svc.invoke(
        'reconcile-books-run',
        {
          source: { name: 'b.csv', text },
          mapping: { columns: { hash: 'Tx Hash', amount: 'Amount' } },
          wallet_id: '99999999-9999-4999-8999-999999999999',
        },
        ui,
      ),
    ).rejects.toMatchObject({ code: 3004 });
    await expect(svc.invoke('reconcile-books-detect', { source: { path: join(svc.dataDir, 'missing.csv') } }, ui)).rejects.toMatchObject({
      code: 1002,
      message: expect.stringMatching(/^source\.path: cannot read/),
    });
    expect((await svc.invoke('runs-list', { page: 1, page_size: 1 }, ui)).total).toBe(before);
  });
});

describe('a run opened after the ledger changed', () => {
  let now = T;
  const svc = tempService({ now: () => now });
  afterAll(() => svc.dispose());
  const ui = { actor: 'ui' as const };
  insertRecords(
    svc.ctx.db,
    [0, 1].map((i) => ({ transaction_id: id(i), wallet_id: W, hash: hash(i), amount: '5', created_at: T })),
  );

  test('says which records an import updated after the run: the marks are the check, the values are today', async () => {
    const books = { name: 'books.csv', text: `Tx Hash,Amount\n${hash(0)},5\n${hash(1)},5\n` };
    const run = await svc.invoke('reconcile-books-run', { source: books, mapping: { columns: { hash: 'Tx Hash', amount: 'Amount' } } }, ui);
    expect(run).toMatchObject({ matched: 2 });

    now += 60_000;
    const ledger = `transaction_id,wallet_id,type,status,amount,hash,chain_id,token_id\n${id(0)},${W},Withdrawal,Completed,6,${hash(0)},ETH,ETH_USDT\n`;
    expect(await svc.invoke('ledger-import', { source: { name: 'fix.csv', text: ledger } }, { actor: 'cli' })).toMatchObject({
      updated: 1,
    });

    const detail = await svc.invoke('run-get', { run_id: run.run_id, page: 1, page_size: 10, filter: 'all' }, ui);
    expect(detail.items.list.map((it) => [it.record?.amount, it.result, it.record_changed])).toEqual([
      ['6', true, true],
      ['5', true, false],
    ]);
  });
});

describe('real-shaped books through the service', () => {
  const svc = tempService({ now: () => Date.UTC(2026, 1, 1) });
  afterAll(() => svc.dispose());
  const ui = { actor: 'ui' as const };
  const fixture = (name: string) => join(__dirname, '../../../../test/fixtures/books', name);
  const berlin = (d: number, h: number, m: number) => Date.UTC(2026, 0, d, h - 1, m);
  insertRecords(svc.ctx.db, [
    { transaction_id: id(1), wallet_id: W, hash: hash(1), type: 'Deposit', amount: '1234.5', created_at: berlin(3, 10, 15) },
    { transaction_id: id(2), wallet_id: W, hash: hash(2), request_id: 'WD-7', amount: '250', fee: '1.25', created_at: berlin(5, 9, 0) },
    { transaction_id: id(3), wallet_id: W, hash: hash(3), type: 'Deposit', amount: '2000', created_at: berlin(15, 18, 30) },
    // The books say 100 was paid out; the ledger says 110.
    { transaction_id: id(4), wallet_id: W, hash: hash(4), request_id: 'WD-8', amount: '110', fee: '1.25', created_at: berlin(20, 8, 5) },
    // Nobody booked this one.
    { transaction_id: id(5), wallet_id: W, hash: hash(5), type: 'Deposit', amount: '9', created_at: berlin(25, 12, 0) },
    // A saved mapping's file (see below), in another wallet.
    { transaction_id: id(11), wallet_id: W2, hash: hash(11), request_id: 'R-1', amount: '1234.5', created_at: T },
    { transaction_id: id(12), wallet_id: W2, hash: hash(12), request_id: 'R-2', amount: '1.234', created_at: T + 60_000 },
    { transaction_id: id(13), wallet_id: W2, hash: hash(13), request_id: 'R-3', amount: '7', created_at: T + 180_000 },
  ]);

  test('a bank-style file (semicolons, day-first dates in Europe/Berlin, decimal commas, Paid in/Paid out, its own words) runs as its mapping says', async () => {
    const mapping = JSON.parse(readFileSync(fixture('bank-style.mapping.json'), 'utf8'));
    const source = { path: fixture('bank-style.csv') };
    const preview = await svc.invoke('reconcile-books-preview', { source, mapping }, ui);
    expect(preview.read_as).toEqual({ decimal_separator: ',', date_order: 'day_first', dates_only: false, tokens: { USDT: 'ETH_USDT' } });
    expect(preview.problems).toEqual([]);
    expect(preview.rows.map((r) => r.claim ?? r.error)).toEqual([
      { hash: hash(1), chain_id: 'ETH', token_id: 'ETH_USDT', type: 'Deposit', amount: '1234.5', time: '2026-01-03T09:15:00Z' },
      {
        request_id: 'WD-7',
        hash: hash(2),
        chain_id: 'ETH',
        token_id: 'ETH_USDT',
        type: 'Withdrawal',
        amount: '250',
        fee: '1.25',
        time: '2026-01-05T08:00:00Z',
      },
      { hash: hash(3), chain_id: 'ETH', token_id: 'ETH_USDT', type: 'Deposit', amount: '2000', time: '2026-01-15T17:30:00Z' },
      expect.objectContaining({ hash: hash(4), type: 'Withdrawal', amount: '100' }),
      {
        column: 'Paid in / Paid out',
        reason: 'neither "Paid in" nor "Paid out" has an amount other than zero (nor is there a fee, which would make it a gas line)',
        value: '"" / ""',
      },
    ]);
    expect(preview.rows[1]!.cells).toMatchObject({ 'Paid out': '-250,00', Type: 'Send', 'Booking date': '05/01/2026 09:00' });

    const run = await svc.invoke(
      'reconcile-books-run',
      { source, mapping, wallet_id: W, from: '2026-01-01', to: '2026-01-31', time_zone: 'Europe/Berlin' },
      ui,
    );
    expect(run).toMatchObject({ item_count: 4, matched: 3, mismatched: 1, not_found: 0, rejected_count: 1, not_in_books: 1 });
    expect(run.rejected).toEqual([{ row: 5, field: 'Paid in / Paid out', reason: expect.stringMatching(/^neither/) }]);
    const mismatched = await svc.invoke('run-get', { run_id: run.run_id, page: 1, page_size: 10, filter: 'mismatched' }, ui);
    expect(mismatched.items.list[0]).toMatchObject({ amount_match: false, type_match: true, fee_match: true, claimed: { books_row: 4 } });
  });

  test('books are read as ledgers are: UTF-16 and Windows-1252 as Excel saves them, blank lines above the header, line ends mixed', async () => {
    const mapping = JSON.parse(readFileSync(fixture('bank-style.mapping.json'), 'utf8'));
    const utf8 = readFileSync(fixture('bank-style.csv'), 'utf8').replace('Bank charge', 'Gebühr €');
    const claims = async (bytes: Buffer) => {
      const path = join(svc.dataDir, `books-${Math.random().toString(36).slice(2)}.csv`);
      writeFileSync(path, bytes);
      const preview = await svc.invoke('reconcile-books-preview', { source: { path }, mapping }, ui);
      expect(preview.problems).toEqual([]);
      return preview.rows.map((r) => ({ claim: r.claim ?? r.error, description: r.cells.Description }));
    };
    const expected = await claims(Buffer.from(utf8, 'utf8'));
    expect(expected[4]!.description).toBe('Gebühr €');
    const lines = utf8.split('\n');
    const variants: [string, Buffer][] = [
      ['UTF-16LE with a BOM, CRLF', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(lines.join('\r\n'), 'utf16le')])],
      ['Windows-1252', Buffer.from([...utf8].map((c) => (c === '€' ? 0x80 : c === 'ü' ? 0xfc : c.charCodeAt(0))))],
      ['a UTF-8 BOM and blank lines above the header', Buffer.from('\uFEFF;;;\n\n' + utf8, 'utf8')],
      ['CRLF rows with LF rows appended', Buffer.from(lines.slice(0, 3).join('\r\n') + '\r\n' + lines.slice(3).join('\n'), 'utf8')],
    ];
    for (const [, bytes] of variants) expect(await claims(bytes)).toEqual(expected);
  });

  test('a mapping saved before pairs, translations and separators existed still runs as it did', async () => {
    const mapping = JSON.parse(readFileSync(fixture('saved-before-pairs.mapping.json'), 'utf8'));
    const run = await svc.invoke(
      'reconcile-books-run',
      { source: { path: fixture('saved-before-pairs.csv') }, mapping, two_way: false, amount_delta: '0', time_delta: 0 },
      ui,
    );
    // "1,234.5" is 1234.5 (thousands ","), "1.234" one and a bit (a decimal point, not a choice to make), Unix seconds as ever.
    expect(run).toMatchObject({ item_count: 3, matched: 3, rejected_count: 0 });
  });

  test('the preview of a file that leaves the date order open says so; a run of it is refused naming mapping.date_order', async () => {
    const text = ['Date,Hash,Amount', `03/01/2026 10:00,${hash(1)},1`, `04/01/2026 10:00,${hash(3)},2`].join('\n');
    const source = { name: 'open.csv', text };
    const detected = await svc.invoke('reconcile-books-detect', { source }, ui);
    expect(detected.needs).toEqual([
      {
        field: 'mapping.date_order',
        options: ['day_first', 'month_first'],
        reason: expect.stringMatching(/can be day first or month first/),
      },
    ]);
    const preview = await svc.invoke('reconcile-books-preview', { source, mapping: detected.suggested }, ui);
    expect(preview.problems).toEqual([{ field: 'mapping.date_order', reason: detected.needs[0]!.reason }]);
    expect(preview.rows[0]!.error).toMatchObject({ column: 'Date', value: '03/01/2026 10:00', reason: expect.stringMatching(/ambiguous/) });
    const before = (await svc.invoke('runs-list', { page: 1, page_size: 1 }, ui)).total;
    await expect(svc.invoke('reconcile-books-run', { source, mapping: detected.suggested }, ui)).rejects.toMatchObject({
      code: 1002,
      message: expect.stringMatching(/^mapping\.date_order: /),
    });
    expect((await svc.invoke('runs-list', { page: 1, page_size: 1 }, ui)).total).toBe(before);
    const chosen = await svc.invoke('reconcile-books-preview', { source, mapping: { ...detected.suggested, date_order: 'day_first' } }, ui);
    expect(chosen.problems).toEqual([]);
    expect(chosen.rows.map((r) => r.claim?.time)).toEqual(['2026-01-03T10:00:00Z', '2026-01-04T10:00:00Z']);
  });

  test('a preview of a mapping naming a column the file lacks shows the rows as written and the problem', async () => {
    const preview = await svc.invoke(
      'reconcile-books-preview',
      { source: { path: fixture('bank-style.csv') }, mapping: { columns: { hash: 'Tx Hash', amount: 'Amount' } } },
      ui,
    );
    expect(preview.problems.map((p) => p.field)).toEqual(['mapping.columns.hash', 'mapping.columns.amount']);
    expect(preview.rows).toHaveLength(5);
    expect(preview.rows[0]).toMatchObject({ row: 1, claim: null, error: null, cells: { Reference: '' } });
  });
});
