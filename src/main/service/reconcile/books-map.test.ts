import { describe, expect, test } from 'vitest';
import { BooksMapping } from '../../../shared/reconcile';
import { EXTRA_CELLS } from './books-head';
import { CellError } from '../ledger/values';
import { compileBooksRow, compileTokenResolver, isDateOnly, planBooks, suggestBooksMapping, type BooksRowOutcome } from './books-map';

/* The books mapping's rules, row by row, without a store: each rule, and each error naming its column and value. */

const HASH = '0x' + '1'.padStart(64, '0');
const map = (m: Record<string, unknown>) => BooksMapping.parse(m);

/** A reader of rows given as arrays in the order of `headers`, for the file `lines` (header first) when the plan needs rows. */
function reader(headers: string[], mapping: Record<string, unknown>, lines: string[][] = []) {
  const text = [headers, ...lines].map((l) => l.join(';')).join('\n');
  const read = compileBooksRow(headers, { mapping: map(mapping), source: { name: 'b.csv', text } });
  return (...cells: string[]): BooksRowOutcome => read(Object.fromEntries(headers.map((h, i) => [h, cells[i] ?? ''])));
}

const claimOf = (o: BooksRowOutcome) => {
  if ('reason' in o) throw new Error(`row error: ${o.field}: ${o.reason}`);
  return o.claimed;
};

describe('In/Out and debit/credit pairs', () => {
  const read = reader(['Hash', 'In', 'Out'], { columns: { hash: 'Hash', amount_in: 'In', amount_out: 'Out' } });

  test('the non-zero side is the amount and says the type: In a Deposit, Out a Withdrawal', () => {
    expect(claimOf(read(HASH, '12.5', ''))).toMatchObject({ amount: '12.5', type: 'Deposit' });
    expect(claimOf(read(HASH, '', '3'))).toMatchObject({ amount: '3', type: 'Withdrawal' });
    expect(claimOf(read(HASH, '0', '3.10'))).toMatchObject({ amount: '3.1', type: 'Withdrawal' });
    // Banks write money out with a minus: the column gives the direction, the amount is without it.
    expect(claimOf(read(HASH, '', '-3'))).toMatchObject({ amount: '3', type: 'Withdrawal' });
  });

  test('both sides with an amount, or neither, is a row error naming both columns', () => {
    expect(read(HASH, '1', '2')).toEqual({
      field: 'In / Out',
      reason: 'both "In" and "Out" have an amount: a row is money in or money out, not both',
      value: '"1" / "2"',
    });
    expect(read(HASH, '', '')).toMatchObject({ field: 'In / Out', reason: expect.stringMatching(/neither "In" nor "Out" has an amount/) });
    expect(read(HASH, '0.00', '0')).toMatchObject({ field: 'In / Out', value: '"0.00" / "0"' });
  });

  test('a cell that is not a number names its column; a minus in the In column is refused', () => {
    expect(read(HASH, 'ten', '')).toMatchObject({ field: 'In', value: 'ten', reason: expect.stringMatching(/not a number/) });
    expect(read(HASH, '-4', '')).toMatchObject({ field: 'In', value: '-4', reason: expect.stringMatching(/negative/) });
  });

  test('debit and credit: a type column must agree with the side', () => {
    const dc = reader(['Hash', 'Kind', 'Debit', 'Credit'], {
      columns: { hash: 'Hash', type: 'Kind', amount_in: 'Debit', amount_out: 'Credit' },
    });
    expect(claimOf(dc(HASH, 'deposit', '5', ''))).toMatchObject({ type: 'Deposit', amount: '5' });
    expect(dc(HASH, 'Withdrawal', '5', '')).toEqual({
      field: 'Kind',
      reason: 'says Withdrawal, but the amount is in "Debit" (In: a Deposit)',
      value: 'Withdrawal',
    });
  });

  test('a pair with one side, beside an amount column, or with a missing column refuses the mapping', () => {
    const headers = ['Hash', 'In', 'Out', 'Amount'];
    expect(() => reader(headers, { columns: { hash: 'Hash', amount_in: 'In' } })).toThrow(
      /^mapping\.columns\.amount_out: an In\/Out pair needs both/,
    );
    expect(() => reader(headers, { columns: { hash: 'Hash', amount_in: 'In', amount_out: 'Out', amount: 'Amount' } })).toThrow(
      /^mapping\.columns\.amount: the In\/Out pair gives the amount/,
    );
    expect(() => reader(headers, { columns: { hash: 'Hash', amount_in: 'Money in', amount_out: 'Out' } })).toThrow(
      /^mapping\.columns\.amount_in: no column "Money in"/,
    );
  });
});

describe('signed amounts', () => {
  const headers = ['Hash', 'Amount'];
  test('positive_deposit: the sign says the type, the amount is without it', () => {
    const read = reader(headers, { columns: { hash: 'Hash', amount: 'Amount' }, amount_sign: 'positive_deposit' });
    expect(claimOf(read(HASH, '25.50'))).toMatchObject({ amount: '25.5', type: 'Deposit' });
    expect(claimOf(read(HASH, '-25.50'))).toMatchObject({ amount: '25.5', type: 'Withdrawal' });
    expect(claimOf(read(HASH, '+7'))).toMatchObject({ amount: '7', type: 'Deposit' });
  });

  test('positive_withdrawal: the other way round', () => {
    const read = reader(headers, { columns: { hash: 'Hash', amount: 'Amount' }, amount_sign: 'positive_withdrawal' });
    expect(claimOf(read(HASH, '25'))).toMatchObject({ amount: '25', type: 'Withdrawal' });
    expect(claimOf(read(HASH, '-25'))).toMatchObject({ amount: '25', type: 'Deposit' });
  });

  test('zero has no sign: a row error naming the column and the value', () => {
    const read = reader(headers, { columns: { hash: 'Hash', amount: 'Amount' }, amount_sign: 'positive_deposit' });
    expect(read(HASH, '0.00')).toEqual({
      field: 'Amount',
      reason: '"0.00" is zero: a signed amount\'s sign says the type, and zero has none',
      value: '0.00',
    });
  });

  test('without amount_sign a minus is kept (as before), and a signed amount needs its column', () => {
    const read = reader(headers, { columns: { hash: 'Hash', amount: 'Amount' } });
    expect(claimOf(read(HASH, '-25'))).toMatchObject({ amount: '-25' });
    expect(claimOf(read(HASH, '-25')).type).toBeUndefined();
    expect(() => reader(headers, { columns: { hash: 'Hash' }, amount_sign: 'positive_deposit' })).toThrow(/^mapping\.amount_sign: /);
  });
});

describe('value translations', () => {
  const headers = ['Hash', 'Kind', 'State', 'Net', 'Coin', 'Amount'];
  const mapping = {
    columns: { hash: 'Hash', type: 'Kind', status: 'State', chain_id: 'Net', token_id: 'Coin', amount: 'Amount' },
    translations: {
      type: { Receive: 'Deposit', Send: 'withdrawal' },
      status: { Success: 'Completed' },
      chain_id: { Ethereum: 'ETH' },
      token_id: { 'Tether USD': 'ETH_USDT' },
    },
  };
  const read = reader(headers, mapping);

  test('matched case-insensitively after trimming, into the claim field', () => {
    expect(claimOf(read(HASH, ' receive ', 'SUCCESS', 'ethereum', 'tether usd', '1'))).toMatchObject({
      type: 'Deposit',
      status: 'Completed',
      chain_id: 'ETH',
      token_id: 'ETH_USDT',
    });
    expect(claimOf(read(HASH, 'Send', 'failed', 'TRON', 'TRON_USDT', '1'))).toMatchObject({
      type: 'Withdrawal',
      status: 'Failed',
      chain_id: 'TRON',
      token_id: 'TRON_USDT',
    });
  });

  test('a value the field cannot read names the value and the column and suggests the translation', () => {
    expect(read(HASH, 'Sent', 'Completed', 'ETH', 'ETH_USDT', '1')).toEqual({
      field: 'Kind',
      reason:
        '"Sent" in column "Kind" is not a type (Deposit, Withdrawal): add the translation "Sent" -> Withdrawal (mapping.translations.type)',
      value: 'Sent',
    });
    expect(read(HASH, 'Deposit', 'Booked', 'ETH', 'ETH_USDT', '1')).toEqual({
      field: 'State',
      reason:
        '"Booked" in column "State" is not a status (Pending, Confirming, Completed, Failed, Rejected): add a translation of "Booked" to one of them (mapping.translations.status)',
      value: 'Booked',
    });
  });

  test('a translation into a word the field does not have refuses the mapping', () => {
    expect(() => reader(headers, { ...mapping, translations: { type: { Receive: 'Incoming' } } })).toThrow(
      /^mapping\.translations\.type: "Receive" -> "Incoming": "Incoming" is not a type \(Deposit, Withdrawal\)/,
    );
  });
});

describe('dates: day-first or month-first, time zones', () => {
  const headers = ['Hash', 'Amount', 'Date'];
  const columns = { hash: 'Hash', amount: 'Amount', time: 'Date' };
  const at = (y: number, m: number, d: number, h = 0, min = 0) => Date.UTC(y, m - 1, d, h, min) / 1000;

  test('decided from the file: a day above 12 makes it day-first, a second part above 12 month-first', () => {
    const dayFirst = reader(headers, { columns }, [[HASH, '1', '13/01/2026 10:00']]);
    expect(claimOf(dayFirst(HASH, '1', '03/01/2026 10:00')).time).toBe(at(2026, 1, 3, 10));
    const monthFirst = reader(headers, { columns }, [[HASH, '1', '01/13/2026 10:00']]);
    expect(claimOf(monthFirst(HASH, '1', '03/01/2026 10:00')).time).toBe(at(2026, 3, 1, 10));
  });

  test('chosen in the mapping; a cell that does not fit the choice names its column', () => {
    const read = reader(headers, { columns, date_order: 'month_first' });
    expect(claimOf(read(HASH, '1', '03/01/2026')).time).toBe(at(2026, 3, 1));
    expect(read(HASH, '1', '13/01/2026')).toMatchObject({
      field: 'Date',
      value: '13/01/2026',
      reason: expect.stringMatching(/month-first/),
    });
  });

  test('a file whose first rows cannot tell must be told: the run refuses naming mapping.date_order', () => {
    expect(() => reader(headers, { columns }, [[HASH, '1', '03/01/2026 10:00']])).toThrow(
      /^mapping\.date_order: dates like "03\/01\/2026 10:00" can be day first or month first/,
    );
    expect(() =>
      reader(headers, { columns }, [
        [HASH, '1', '13/01/2026'],
        [HASH, '1', '01/13/2026'],
      ]),
    ).toThrow(/^mapping\.date_order: the dates disagree/);
  });

  test('an IANA zone (daylight saving included) beats utc_offset; a zone nobody knows refuses the mapping', () => {
    const read = reader(headers, { columns, date_order: 'day_first', time_zone: 'Europe/Berlin', utc_offset: '+08:00' });
    expect(claimOf(read(HASH, '1', '15/01/2026 10:00')).time).toBe(at(2026, 1, 15, 9));
    expect(claimOf(read(HASH, '1', '15/07/2026 10:00')).time).toBe(at(2026, 7, 15, 8));
    expect(claimOf(read(HASH, '1', '2026-07-15T10:00:00Z')).time).toBe(at(2026, 7, 15, 10));
    expect(() => reader(headers, { columns, time_zone: 'Mars/Olympus' })).toThrow(/^mapping\.time_zone: unknown time zone "Mars\/Olympus"/);
  });
});

describe('decimal separator', () => {
  const headers = ['Hash', 'Amount', 'Fee'];
  const columns = { hash: 'Hash', amount: 'Amount', fee: 'Fee' };

  test('a decimal comma file, decided from its first rows', () => {
    const read = reader(headers, { columns, decimal_separator: 'auto', thousands_separator: 'auto' }, [[HASH, '1.234,56', '0,5']]);
    expect(claimOf(read(HASH, '1.234,56', '0,5'))).toMatchObject({ amount: '1234.56', fee: '0.5' });
    expect(claimOf(read(HASH, '12', ''))).toMatchObject({ amount: '12' });
    expect(read(HASH, '1,234.56', '')).toMatchObject({
      field: 'Amount',
      value: '1,234.56',
      reason: expect.stringMatching(/decimal comma/),
    });
  });

  test('chosen: a comma', () => {
    const read = reader(headers, { columns, decimal_separator: ',', thousands_separator: '.' });
    expect(claimOf(read(HASH, '1.234', '0,001'))).toMatchObject({ amount: '1234', fee: '0.001' });
  });

  test('a file that cannot tell must be told; amounts that disagree refuse the mapping', () => {
    expect(() => reader(headers, { columns, decimal_separator: 'auto' }, [[HASH, '1,234', '']])).toThrow(
      /^mapping\.decimal_separator: amounts like "1,234" can be read with a decimal point or a decimal comma/,
    );
    expect(() => reader(headers, { columns, decimal_separator: 'auto' }, [[HASH, '1.5', '0,5']])).toThrow(
      /^mapping\.decimal_separator: the amounts disagree/,
    );
  });

  test('a separator or date order stated against the first rows refuses the mapping, naming the cells', () => {
    expect(() => reader(headers, { columns, decimal_separator: '.' }, [[HASH, '0,5', '1.035']])).toThrow(
      /^mapping\.decimal_separator: a decimal point was stated, but the file's first rows show a decimal comma \("0,5"\)/,
    );
    const plan = planBooks(['A', 'D'], map({ columns: { amount: 'A', time: 'D' }, date_order: 'month_first' }), [
      { A: '1', D: '25/03/2026' },
    ]);
    expect(plan.problems).toEqual([
      {
        field: 'mapping.date_order',
        reason: expect.stringMatching(/^month first was stated, but the file's first rows show day first \("25\/03\/2026"\)/),
      },
    ]);
  });

  test('a mapping without decimal_separator reads a decimal point, as before (1.234 is one and a bit)', () => {
    const read = reader(headers, { columns, thousands_separator: ',' }, [[HASH, '1.234', '']]);
    expect(claimOf(read(HASH, '1.234', '1,000.5'))).toMatchObject({ amount: '1.234', fee: '1000.5' });
    expect(claimOf(reader(headers, { columns, thousands_separator: '_' })(HASH, '1_000.5', '')).amount).toBe('1000.5');
  });
});

describe('a plan for the detect answer and the preview', () => {
  test('what the file decided, and what it leaves to be chosen', () => {
    const mapping = map({ columns: { amount: 'A', time: 'D' }, decimal_separator: 'auto' });
    expect(planBooks(['A', 'D'], mapping, [{ A: '0,5', D: '13/01/2026' }])).toEqual({
      read_as: { decimal_separator: ',', date_order: 'day_first', dates_only: true, tokens: {} },
      needs: [],
      problems: [],
    });
    const open = planBooks(['A', 'D'], mapping, [{ A: '1.500', D: '03/01/2026' }]);
    expect(open.needs.map((n) => n.field)).toEqual(['mapping.decimal_separator', 'mapping.date_order']);
    expect(open.read_as).toEqual({ decimal_separator: null, date_order: null, dates_only: true, tokens: {} });
    expect(
      planBooks(['A', 'D'], mapping, [
        { A: '1', D: '03/01/2026 10:21' },
        { A: '2', D: '13/01/2026' },
      ]).read_as.dates_only,
    ).toBe(false);
  });
});

describe('suggestions from real headers', () => {
  test('In/Out, Debit/Credit, Received/Sent, Paid in/Paid out become a pair', () => {
    expect(suggestBooksMapping(['Date', 'TxHash', 'In', 'Out']).columns).toEqual({
      time: 'Date',
      hash: 'TxHash',
      amount_in: 'In',
      amount_out: 'Out',
    });
    expect(suggestBooksMapping(['Date', 'Hash', 'Debit', 'Credit', 'Amount']).columns).toMatchObject({
      amount_in: 'Debit',
      amount_out: 'Credit',
    });
    expect(suggestBooksMapping(['Date', 'Hash', 'Debit', 'Credit', 'Amount']).columns.amount).toBeUndefined();
    expect(suggestBooksMapping(['Hash', 'Received', 'Sent']).columns).toEqual({ hash: 'Hash', amount_in: 'Received', amount_out: 'Sent' });
    expect(suggestBooksMapping(['Hash', 'Paid in', 'Paid out']).columns).toMatchObject({ amount_in: 'Paid in', amount_out: 'Paid out' });
  });

  test('"Amount (signed)" is a signed amount', () => {
    const s = suggestBooksMapping(['Hash', 'Amount (signed)', 'Fee']);
    expect(s.columns).toEqual({ hash: 'Hash', amount: 'Amount (signed)', fee: 'Fee' });
    expect(s.amount_sign).toBe('positive_deposit');
  });

  test('type and status words of the first rows get translations; the file decides separators and date order', () => {
    const s = suggestBooksMapping(
      ['Hash', 'Type', 'Status', 'Amount'],
      [
        { Hash: HASH, Type: 'Receive', Status: 'Success', Amount: '1' },
        { Hash: HASH, Type: 'Send', Status: 'Completed', Amount: '1' },
        { Hash: HASH, Type: 'Swap', Status: 'Completed', Amount: '1' },
      ],
    );
    expect(s.translations).toEqual({ type: { Receive: 'Deposit', Send: 'Withdrawal' }, status: { Success: 'Completed' } });
    expect(s).toMatchObject({ decimal_separator: 'auto', thousands_separator: 'auto', date_order: 'auto' });
  });
});

describe('rows that do not fit the header', () => {
  test('a row with more cells than the header is refused, never read by position; a trailing empty cell is harmless', async () => {
    const { compileBooksRow: compile } = await import('./books-map');
    const read = compile(['hash', 'amount', 'memo'], {
      mapping: { columns: { hash: 'hash', amount: 'amount' }, constants: {}, thousands_separator: '', utc_offset: '+00:00' },
    });
    const merged = read({ hash: '0xa', amount: '1', memo: 'x\n0xb', [EXTRA_CELLS]: ['2', 'y'] } as unknown as Record<string, string>);
    expect(merged).toMatchObject({ field: '(row)', reason: expect.stringMatching(/has 2 more cells than the header/), value: '2, y' });
    const trailing = read({ hash: '0xa', amount: '1', memo: '', [EXTRA_CELLS]: [''] } as unknown as Record<string, string>);
    expect(trailing).toMatchObject({ item: { hash: '0xa', amount: '1' } });
  });
});

describe('gas lines: a fee and no amount', () => {
  test('In and Out empty (or zero) with a fee: the gas of the transaction, a Withdrawal of 0 with that fee', () => {
    const read = reader(['Hash', 'In', 'Out', 'Fee'], { columns: { hash: 'Hash', amount_in: 'In', amount_out: 'Out', fee: 'Fee' } });
    expect(read(HASH, '', '', '0.003186504')).toMatchObject({ item: { amount: '0', fee: '0.003186504', type: 'Withdrawal' } });
    expect(read(HASH, '0', '0.00', '0.003186504')).toMatchObject({ item: { amount: '0', fee: '0.003186504', type: 'Withdrawal' } });
    // An amount and a fee: both are claimed, both compared.
    expect(read(HASH, '', '3.088', '0.0093')).toMatchObject({ item: { amount: '3.088', fee: '0.0093', type: 'Withdrawal' } });
    // Nothing at all is still no claim.
    expect(read(HASH, '', '', '')).toMatchObject({ field: 'In / Out', reason: expect.stringMatching(/^neither "In" nor "Out"/) });
    expect(read(HASH, '', '', '0')).toMatchObject({ field: 'In / Out' });
  });

  test('one amount column: empty or zero with a fee is gas; a type that says otherwise is refused', () => {
    const read = reader(['Hash', 'Amount', 'Fee', 'Type'], { columns: { hash: 'Hash', amount: 'Amount', fee: 'Fee', type: 'Type' } });
    expect(read(HASH, '', '0.5', '')).toMatchObject({ item: { amount: '0', fee: '0.5', type: 'Withdrawal' } });
    expect(read(HASH, '0', '0.5', 'Withdrawal')).toMatchObject({ item: { amount: '0', type: 'Withdrawal' } });
    expect(read(HASH, '', '0.5', 'Deposit')).toMatchObject({
      field: 'Type',
      reason: expect.stringMatching(/says Deposit, but the row has a fee and no amount/),
    });
  });

  test('a signed amount of zero with a fee is gas; zero alone says nothing', () => {
    const read = reader(['Hash', 'Change', 'Fee'], {
      columns: { hash: 'Hash', amount: 'Change', fee: 'Fee' },
      amount_sign: 'positive_deposit',
    });
    expect(read(HASH, '0', '0.25')).toMatchObject({ item: { amount: '0', fee: '0.25', type: 'Withdrawal' } });
    expect(read(HASH, '0', '')).toMatchObject({ field: 'Change', reason: expect.stringMatching(/is zero/) });
  });
});

describe('dates without a time', () => {
  test('a date alone claims its whole day in the books zone; a time keeps the tolerance', () => {
    const read = reader(
      ['Hash', 'Amount', 'Date'],
      { columns: { hash: 'Hash', amount: 'Amount', time: 'Date' }, time_zone: 'Europe/Berlin' },
      [[HASH, '1', '14/10/2020']],
    );
    const day = read(HASH, '1', '09/10/2020');
    // 9 October 2020 in Berlin (summer time, +02:00): from 8 October 22:00 UTC to 9 October 22:00 UTC.
    expect(day).toMatchObject({ item: { time: Date.UTC(2020, 9, 8, 22) / 1000, time_until: Date.UTC(2020, 9, 9, 22) / 1000 } });
    // The day the clocks go back has 25 hours.
    expect(read(HASH, '1', '25/10/2020')).toMatchObject({
      item: { time: Date.UTC(2020, 9, 24, 22) / 1000, time_until: Date.UTC(2020, 9, 25, 23) / 1000 },
    });
    const moment = read(HASH, '1', '09/10/2020 10:56');
    expect('item' in moment && moment.item.time_until).toBeUndefined();
    expect(moment).toMatchObject({ item: { time: Date.UTC(2020, 9, 9, 8, 56) / 1000 } });
  });

  test('which cells are a date alone', () => {
    for (const cell of ['2020-10-09', '09/10/2020', '09.10.2020', 'Oct 9, 2020', '9 Oct 2020', '44113'])
      expect(isDateOnly(cell), cell).toBe(true);
    for (const cell of ['2020-10-09 10:56:23', '2020-10-09T10:56:23Z', '10/9/2020 3 PM', '1602240983', '1602240983000', '44113.45567'])
      expect(isDateOnly(cell), cell).toBe(false);
  });
});

describe('currency symbols for tokens', () => {
  const tokens = [
    { token_id: 'ETH', chain_id: 'ETH', symbol: 'ETH' },
    { token_id: 'ETH_USDC', chain_id: 'ETH', symbol: 'USDC' },
    { token_id: 'ETH_UNI', chain_id: 'ETH', symbol: 'UNI' },
    { token_id: 'ARBITRUM_ETH', chain_id: 'ARBITRUM_ETH', symbol: 'ETH' },
    { token_id: 'ARBITRUM_USDC', chain_id: 'ARBITRUM_ETH', symbol: 'USDC' },
  ];
  const resolver = (chains: string[]) => compileTokenResolver(tokens, () => chains);

  test('a symbol is the token of that symbol on the wallet chains when exactly one fits; an id stays an id', () => {
    const onEth = resolver(['ETH']);
    expect(onEth('USDC', undefined)).toBe('ETH_USDC');
    expect(onEth('usdc', undefined)).toBe('ETH_USDC');
    expect(onEth('ETH', undefined)).toBe('ETH');
    expect(onEth('ETH_UNI', undefined)).toBe('ETH_UNI');
    expect(resolver(['ARBITRUM_ETH'])('ETH', undefined)).toBe('ARBITRUM_ETH');
    // The row's own chain comes first.
    expect(onEth('USDC', 'ARBITRUM_ETH')).toBe('ARBITRUM_USDC');
  });

  test('several fit, or none: the row is refused saying which, never a guess', () => {
    const both = resolver(['ETH', 'ARBITRUM_ETH']);
    const several = both('USDC', undefined);
    expect(several).toBeInstanceOf(CellError);
    expect((several as CellError).reason).toMatch(/"USDC" is the symbol of 2 tokens \(ETH_USDC on ETH, ARBITRUM_USDC on ARBITRUM_ETH\)/);
    const unknown = both('Ether', undefined);
    expect((unknown as CellError).reason).toMatch(
      /^unknown token: "Ether" is neither a token id nor the symbol of a token on ETH, ARBITRUM_ETH/,
    );
  });

  test('a row naming an unknown token is rejected as such, never read as a claim to mismatch', () => {
    const read = compileBooksRow(['Hash', 'Amount', 'Currency'], {
      mapping: map({ columns: { hash: 'Hash', amount: 'Amount', token_id: 'Currency' } }),
      resolveToken: resolver(['ETH']),
    });
    expect(read({ Hash: HASH, Amount: '1', Currency: 'YFI' })).toMatchObject({
      field: 'Currency',
      reason: expect.stringMatching(/^unknown token/),
      value: 'YFI',
    });
    expect(read({ Hash: HASH, Amount: '1', Currency: 'USDC' })).toMatchObject({ item: { token_id: 'ETH_USDC' } });
  });
});
