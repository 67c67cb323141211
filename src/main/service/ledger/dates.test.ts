import { describe, expect, it } from 'vitest';
import type { Mapping } from '../../../shared/ledger';
import { compileTimeReader, detectDateOrder, readTime } from './dates';
import { CellError } from './values';

/* Expected moments are written out with Date.UTC by hand, never computed by the code under test. */

type DateSettings = Mapping['date'];
const settings = (over: Partial<DateSettings> = {}): DateSettings => ({ format: 'auto', order: 'auto', utc_offset: '+00:00', ...over });
const reader = (over: Partial<DateSettings> = {}) => compileTimeReader(settings(over));
/** The reason a cell is refused; fails the test when the cell is read. */
const refusal = (read: (cell: string) => string | CellError, cell: string): string => {
  const r = read(cell);
  if (!(r instanceof CellError)) throw new Error(`${cell} was read as ${r}, expected a refusal`);
  return r.reason;
};

/** 2021-06-11 10:21:18 UTC, the moment of the sample cells. */
const T = Date.UTC(2021, 5, 11, 10, 21, 18);
const T_MINUTE = Date.UTC(2021, 5, 11, 10, 21);

describe('compileTimeReader: the formats exports write', () => {
  it.each([
    ['Tronscan', '2021/06/11 10:21:18', {}, T],
    ['day-first', '11/06/2021 10:21', { order: 'day_first' }, T_MINUTE],
    ['month-first with PM', '06/11/2021 10:21 PM', { order: 'month_first' }, Date.UTC(2021, 5, 11, 22, 21)],
    ['Etherscan CSV', '2021-06-11 10:21:18', {}, T],
    ["Etherscan's web page", 'Jun-11-2021 10:21:18 AM +UTC', {}, T],
    ['day, month name, year', '11-Jun-2021', {}, Date.UTC(2021, 5, 11)],
    ['month name, day, year', 'June 11, 2021 10:21', {}, T_MINUTE],
    ['RFC 2822 / HTTP', 'Fri, 11 Jun 2021 10:21:18 GMT', {}, T],
    ['Excel serial (1900 system)', '44358.43146', {}, T],
    ['Excel serial at full precision', '44358.4314583333', {}, T],
    ['Excel serial with a decimal comma', '44358,43146', {}, T],
    ['Excel serial, whole day', '44358', {}, Date.UTC(2021, 5, 11)],
    ['Excel serial of 2000-01-01', '36526', {}, Date.UTC(2000, 0, 1)],
    ['ISO with Z', '2021-06-11T10:21:18Z', {}, T],
    ['ISO with milliseconds', '2021-06-11T10:21:18.125Z', {}, T + 125],
    ['ISO with +08:00', '2021-06-11T18:21:18+08:00', {}, T],
    ['ISO with -0500', '2021-06-11T05:21:18-0500', {}, T],
    ['ISO with +05:30, no seconds', '2021-06-11T15:51+05:30', {}, T_MINUTE],
    ['ISO date only', '2021-06-11', {}, Date.UTC(2021, 5, 11)],
    ['Unix seconds', '1623406878', {}, T],
    ['Unix seconds, 1 fraction digit', '1623406878.5', {}, T + 500],
    ['Unix seconds, 3 fraction digits', '1623406878.125', {}, T + 125],
    ['Unix milliseconds', '1623406878000', {}, T],
    ['Unix milliseconds, not canonical', '1623406878123.000', {}, T + 123],
    ['Unix seconds, told', '1623406878', { format: 'unix_s' }, T],
    ['Unix milliseconds, told', '1623406878250', { format: 'unix_ms' }, T + 250],
    ['ISO, told', '2021-06-11T10:21:18Z', { format: 'iso' }, T],
    ['YYYY-MM-DD HH:mm:ss, told', '2021-06-11 10:21:18', { format: 'YYYY-MM-DD HH:mm:ss' }, T],
    ['YYYY/MM/DD HH:mm:ss, told', '2021/06/11 10:21:18', { format: 'YYYY/MM/DD HH:mm:ss' }, T],
    ['Excel, told', '44358.43146', { format: 'excel' }, T],
    ['Excel, told, past serial 100000', '100000', { format: 'excel' }, Date.UTC(2173, 9, 14)],
  ] as const)('%s: %s', (_name, cell, over, ms) => {
    expect(reader(over)(cell)).toBe(String(ms));
  });

  it('reads other spellings: one-digit parts, dots, a comma or "at" before the time, weekdays, AM/PM at 12', () => {
    const read = reader();
    expect(read('2021-6-1 9:05:00')).toBe(String(Date.UTC(2021, 5, 1, 9, 5)));
    expect(read('2021.06.11 10:21')).toBe(String(T_MINUTE));
    expect(read('25.06.2021 10:21')).toBe(String(Date.UTC(2021, 5, 25, 10, 21)));
    expect(read('June 11, 2021, 10:21:18 AM')).toBe(String(T));
    expect(read('Friday, June 11, 2021 at 10:21 PM')).toBe(String(Date.UTC(2021, 5, 11, 22, 21)));
    expect(read('11 Sept 2021')).toBe(String(Date.UTC(2021, 8, 11)));
    expect(read('dec-31-2021 12:00:00 am')).toBe(String(Date.UTC(2021, 11, 31, 0, 0)));
    expect(read('Dec-31-2021 12:00:00 PM')).toBe(String(Date.UTC(2021, 11, 31, 12, 0)));
    expect(read('Jun-11-2021 06:21:18 PM UTC+8')).toBe(String(T));
  });

  it('keeps canonical milliseconds as written, and refuses those out of range', () => {
    const read = reader();
    for (const cell of ['1767323045000', '7258118399999', '1000000000000']) expect(read(cell)).toBe(cell);
    for (const cell of ['7258118400000', '9999999999999', '0767323045000'])
      expect([cell, read(cell) instanceof CellError]).toEqual([cell, true]);
    expect(reader({ format: 'unix_ms' })('7258118400000')).toBeInstanceOf(CellError);
    expect(reader({ format: 'unix_s' })('1767323045000')).toBeInstanceOf(CellError);
  });
});

describe('compileTimeReader: day and month order', () => {
  it('refuses an ambiguous year-last date under auto, saying how to choose', () => {
    const why = refusal(reader(), '11/06/2021 10:21');
    expect(why).toContain('ambiguous');
    expect(why).toContain('11 June or November 6');
    expect(why).toMatch(/day_first or month_first/);
    expect(why).toContain('--date-order');
  });

  it('reads under auto a year-last date only one order can read, and one that reads the same both ways', () => {
    const read = reader();
    expect(read('25/06/2021 10:21')).toBe(String(Date.UTC(2021, 5, 25, 10, 21)));
    expect(read('06/25/2021 10:21')).toBe(String(Date.UTC(2021, 5, 25, 10, 21)));
    expect(read('06/06/2021')).toBe(String(Date.UTC(2021, 5, 6)));
  });

  it('refuses a date that does not fit the chosen order', () => {
    expect(refusal(reader({ order: 'month_first' }), '25/06/2021')).toMatch(/does not fit the chosen month-first order/);
    expect(refusal(reader({ order: 'day_first' }), '06/25/2021 10:21 PM')).toMatch(/does not fit the chosen day-first order/);
  });

  it('reads the same cell both ways when the order is chosen', () => {
    expect(reader({ order: 'day_first' })('01/02/2021')).toBe(String(Date.UTC(2021, 1, 1)));
    expect(reader({ order: 'month_first' })('01/02/2021')).toBe(String(Date.UTC(2021, 0, 2)));
  });
});

describe('compileTimeReader: Excel serials and Unix numbers are never taken for each other', () => {
  it('auto: numbers below 100000 are serial days, larger ones Unix seconds or milliseconds', () => {
    const read = reader();
    expect(read('44358')).toBe(String(Date.UTC(2021, 5, 11)));
    expect(read('1623406878')).toBe(String(T));
    // 99999 is a serial day (2173-10-13), 100000 Unix seconds (1970-01-02, refused).
    expect(read('99999')).toBe(String(Date.UTC(2173, 9, 13)));
    expect(refusal(read, '100000')).toMatch(/seconds and milliseconds mixed up/);
  });

  it('a serial told to be Unix time, and Unix time told to be a serial, are refused with what they look like', () => {
    expect(refusal(reader({ format: 'unix_s' }), '44358.43146')).toMatch(/Excel serial/);
    expect(refusal(reader({ format: 'unix_ms' }), '44358')).toMatch(/Excel serial/);
    expect(refusal(reader({ format: 'excel' }), '1623406878')).toMatch(/Excel serial day number.*Unix seconds/);
    expect(refusal(reader({ format: 'excel' }), '2021-06-11')).toMatch(/not a time/);
  });

  it('says what a spreadsheet did to a time it refuses: scientific notation, a two-digit year', () => {
    expect(refusal(reader(), '1,7676E+12')).toMatch(/is not a time \(.*\); it is in scientific notation, so a spreadsheet has rounded it/);
    expect(refusal(reader(), '05.01.26 08:00')).toMatch(
      /; a two-digit year cannot say its century: save the column with four-digit years$/,
    );
  });

  it('refuses a serial a spreadsheet rounded to fewer than 5 decimal places: 23:55 on 30 June saved as 44378.00 is not 1 July', () => {
    expect(refusal(reader(), '44378.00')).toBe(
      '"44378.00" is an Excel serial day number rounded to 2 decimal places: it tells the time only to 14.4 minutes, so the spreadsheet has moved it (perhaps into another day); save the column as a date and time with seconds, or as a number with at least 5 decimal places',
    );
    expect(refusal(reader(), '44378,0')).toMatch(/rounded to 1 decimal place: it tells the time only to 2.4 hours/);
    expect(refusal(reader({ format: 'excel' }), '44377.9965')).toMatch(
      /rounded to 4 decimal places: it tells the time only to 8.64 seconds/,
    );
    expect(reader()('44377.99653')).toBe(String(Date.UTC(2021, 5, 30, 23, 55)));
  });

  it('refuses serials before 2000 (Excel would show 1970 for 25569)', () => {
    expect(refusal(reader(), '25569')).toMatch(/out of range for an Excel serial day number \(expected 36526 to 109574/);
    expect(refusal(reader(), '36525.99')).toMatch(/out of range/);
  });
});

describe('compileTimeReader: time zones', () => {
  it('reads a time without a zone at utc_offset, and one with a zone at its own', () => {
    const read = reader({ utc_offset: '+08:00' });
    expect(read('2021-06-11 18:21:18')).toBe(String(T));
    expect(read('2021/06/11 18:21:18')).toBe(String(T));
    expect(read('2021-06-11T10:21:18Z')).toBe(String(T));
    expect(read('Jun-11-2021 10:21:18 AM +UTC')).toBe(String(T));
    expect(read('1623406878')).toBe(String(T));
    expect(reader({ utc_offset: '-05:30' })('2021-06-11 04:51:18')).toBe(String(T));
  });

  it('reads a time without a zone in an IANA time_zone, daylight saving included; time_zone wins over utc_offset', () => {
    const read = reader({ time_zone: 'Europe/Berlin', utc_offset: '+08:00' });
    expect(read('2021-06-11 12:21:18')).toBe(String(T)); // summer: +02:00
    expect(read('2021-01-11 11:21:18')).toBe(String(Date.UTC(2021, 0, 11, 10, 21, 18))); // winter: +01:00
    expect(reader({ time_zone: 'Europe/Berlin', order: 'day_first' })('11/06/2021 12:21')).toBe(String(T_MINUTE));
    expect(read('44358.43146')).toBe(String(Date.UTC(2021, 5, 11, 8, 21, 18)));
    expect(read('2021-06-11T10:21:18Z')).toBe(String(T));
    expect(read('1623406878')).toBe(String(T));
  });

  it('refuses a time the clocks skipped, and reads the times either side of the gap', () => {
    const read = reader({ time_zone: 'Europe/Berlin' });
    expect(refusal(read, '2021-03-28 02:30:00')).toMatch(/did not happen in Europe\/Berlin.*forward 60 minutes/);
    expect(read('2021-03-28 01:59:59')).toBe(String(Date.UTC(2021, 2, 28, 0, 59, 59)));
    expect(read('2021-03-28 03:00:00')).toBe(String(Date.UTC(2021, 2, 28, 1, 0, 0)));
    expect(refusal(reader({ time_zone: 'America/New_York' }), '03/14/2021 02:30 AM')).toMatch(/did not happen in America\/New_York/);
  });

  it('reads a time the clocks showed twice as the earlier one', () => {
    const read = reader({ time_zone: 'Europe/Berlin' });
    expect(read('2021-10-31 02:30:00')).toBe(String(Date.UTC(2021, 9, 31, 0, 30))); // still +02:00
    expect(read('2021-10-31 01:59:59')).toBe(String(Date.UTC(2021, 9, 30, 23, 59, 59)));
    expect(read('2021-10-31 03:00:00')).toBe(String(Date.UTC(2021, 9, 31, 2, 0)));
    expect(reader({ time_zone: 'America/New_York' })('2021-11-07 01:30:00')).toBe(String(Date.UTC(2021, 10, 7, 5, 30))); // EDT, -04:00
  });

  it('refuses an unknown time_zone when compiling, naming date.time_zone', () => {
    expect(() => reader({ time_zone: 'Europe/Berln' })).toThrow(/date\.time_zone: "Europe\/Berln" is not a time zone/);
    expect(() => reader({ time_zone: '+08:00' })).toThrow(/date\.time_zone/);
    expect(reader({ time_zone: 'UTC' })('2021-06-11 10:21:18')).toBe(String(T));
  });
});

describe('compileTimeReader: refusals', () => {
  it('refuses times outside 2000..2200, saying seconds and milliseconds may be mixed up', () => {
    const read = reader();
    expect(refusal(read, '99999999999999')).toMatch(
      /out of range \(expected a time between 2000 and 2200; seconds and milliseconds mixed up\?\)/,
    );
    expect(refusal(reader({ format: 'unix_ms' }), '1623406878')).toMatch(/seconds and milliseconds mixed up/);
    expect(refusal(reader({ format: 'unix_s' }), '1623406878000')).toMatch(/seconds and milliseconds mixed up/);
    expect(refusal(read, '1999-12-31 23:59:59')).toMatch(/out of range/);
    expect(refusal(read, '2200-01-01')).toMatch(/out of range/);
    expect(read('2199-12-31 23:59:59')).toBe(String(Date.UTC(2199, 11, 31, 23, 59, 59)));
    expect(read('2000-01-01 00:00:00')).toBe(String(Date.UTC(2000, 0, 1)));
  });

  it('refuses precision finer than a millisecond', () => {
    const read = reader();
    expect(refusal(read, '1623406878.1234')).toMatch(/more than millisecond precision/);
    expect(refusal(read, '2021-06-11T10:21:18.1234Z')).toMatch(/more than millisecond precision/);
    expect(refusal(read, '1623406878000.5')).toMatch(/fraction of a millisecond/);
    expect(read('1623406878.1230')).toBe(String(T + 123));
  });

  it.each([
    ['2021-02-29 00:00:00', 'auto', /February 2021 has no day 29/],
    ['31/06/2021', 'auto', /June 2021 has no day 31/],
    ['2021-06-11 24:00:00', 'auto', /not a valid time of day/],
    ['06/25/2021 13:00 PM', 'auto', /not a valid time of day/],
    ['2021-13-01T00:00:00Z', 'iso', /not a valid date/],
    ['2021-06-11T10:21:18+15:00', 'iso', /not a UTC offset/],
    ['yesterday', 'auto', /is not a time \(expected Unix seconds/],
    ['June 11 10:21', 'auto', /is not a time/],
    ['Jux-11-2021', 'auto', /is not a time/],
    ['11/06/21', 'auto', /is not a time/],
    ['2021-06-11', 'YYYY-MM-DD HH:mm:ss', /expected YYYY-MM-DD HH:mm:ss/],
    ['2021-06-11 10:21:18', 'YYYY/MM/DD HH:mm:ss', /expected YYYY\/MM\/DD HH:mm:ss/],
    ['2021/06/11 10:21', 'YYYY/MM/DD HH:mm:ss', /expected YYYY\/MM\/DD HH:mm:ss/],
    ['2021/06/11 10:21:18', 'iso', /expected ISO 8601/],
    ['11/06/2021', 'iso', /expected ISO 8601/],
    ['2021-06-11', 'unix_s', /expected Unix seconds/],
  ] as const)('refuses %s as %s', (cell, format, why) => {
    expect(refusal(reader({ format }), cell)).toMatch(why);
  });

  it('accepts 29 February in a leap year', () => {
    expect(reader()('2020-02-29 12:00:00')).toBe(String(Date.UTC(2020, 1, 29, 12)));
    expect(reader()('29/02/2000')).toBe(String(Date.UTC(2000, 1, 29)));
  });
});

describe('detectDateOrder', () => {
  it('decides day-first from a first part above 12, ignoring cells that are not year-last dates', () => {
    expect(detectDateOrder(['11/06/2021 10:21', '2021-06-11', '25/06/2021 09:00', 'Jun-11-2021', '', '03/07/2021'])).toEqual({
      order: 'day_first',
      conflict: false,
      examples: ['25/06/2021 09:00'],
      seen: 3,
    });
  });

  it('decides month-first from a second part above 12', () => {
    expect(detectDateOrder(['06/11/2021 10:21 PM', '06/25/2021 01:00 AM', ' 12-31-2021 '])).toEqual({
      order: 'month_first',
      conflict: false,
      examples: ['06/25/2021 01:00 AM', '12-31-2021'],
      seen: 3,
    });
  });

  it('leaves an ambiguous column undecided, with up to 3 cells that read differently in the two orders', () => {
    expect(detectDateOrder(['11/06/2021 10:21', '06/06/2021', '01/02/2021', '03/04/2021', '05/06/2021'])).toEqual({
      order: null,
      conflict: false,
      examples: ['11/06/2021 10:21', '01/02/2021', '03/04/2021'],
      seen: 5,
    });
    expect(detectDateOrder(['06/06/2021', '01/01/2021'])).toEqual({ order: null, conflict: false, examples: [], seen: 2 });
  });

  it('reports a conflict with examples of both orders', () => {
    const r = detectDateOrder(['11/06/2021', '25/06/2021', '26/06/2021', '06/25/2021 10:21', '06/26/2021']);
    expect(r).toMatchObject({ order: null, conflict: true, seen: 5 });
    expect(r.examples).toEqual(['25/06/2021', '06/25/2021 10:21', '26/06/2021']);
  });

  it('finds nothing to decide in a column without year-last dates', () => {
    expect(detectDateOrder(['2021-06-11 10:21:18', '1623406878', 'June 11, 2021'])).toEqual({
      order: null,
      conflict: false,
      examples: [],
      seen: 0,
    });
  });

  it('decides an order under which every cell of the column reads', () => {
    const cells = ['01/02/2021', '13/02/2021 08:00', '12/12/2021'];
    const { order } = detectDateOrder(cells);
    expect(order).toBe('day_first');
    const read = reader({ order: order! });
    expect(cells.map(read)).toEqual([Date.UTC(2021, 1, 1), Date.UTC(2021, 1, 13, 8), Date.UTC(2021, 11, 12)].map(String));
  });
});

describe('readTime (books)', () => {
  const s = Date.UTC(2026, 0, 2, 3, 4, 5);
  it.each([
    ['1767323045', 'auto', s],
    ['1767323045000', 'auto', s],
    ['1767323045.25', 'auto', s + 250],
    ['2026-01-02T03:04:05Z', 'auto', s],
    ['2026-01-02T03:04:05.123Z', 'iso', s + 123],
    ['2026-01-02T11:04:05+08:00', 'iso', s],
    ['2026-01-02 03:04:05', 'auto', s],
    ['2026-01-02T03:04:05', 'iso', s],
    ['1767323045', 'unix_s', s],
    ['1767323045000', 'unix_ms', s],
  ] as const)('%s (%s)', (cell, format, ms) => {
    expect(readTime(cell, format, 0)).toBe(ms);
  });

  it('reads a time without a zone in the given offset', () => {
    expect(readTime('2026-01-02 11:04:05', 'YYYY-MM-DD HH:mm:ss', 8 * 60)).toBe(s);
    expect(readTime('2026-01-02T03:04:05Z', 'iso', 8 * 60)).toBe(s);
  });

  it.each([
    ['1767323045000', 'unix_s'],
    ['2026-01-02', 'YYYY-MM-DD HH:mm:ss'],
    ['2026-02-30T00:00:00Z', 'iso'],
    ['2026-13-01T00:00:00Z', 'iso'],
    ['1767323045', 'iso'],
    ['yesterday', 'auto'],
    ['1767323045.1234', 'auto'],
    ['0', 'auto'],
    ['99999999999999', 'auto'],
    // The books read Unix time and ISO 8601 only: a serial day is Unix seconds there (1970), refused.
    ['44358', 'auto'],
    ['2026/01/02 03:04:05', 'auto'],
  ] as const)('refuses %s as %s', (cell, format) => {
    expect(readTime(cell, format, 0)).toBeInstanceOf(CellError);
  });
});
