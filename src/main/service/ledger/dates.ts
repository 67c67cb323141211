import { IANAZone } from 'luxon';
import type { Mapping } from '../../../shared/ledger';
import { CellError } from './values';
import { byDoor } from '../said';

/*
 * Time cells as ledger exports write them, read into Unix milliseconds (DATE_FORMATS in
 * shared/ledger.ts). The shapes read:
 *  - Unix seconds (a fraction of up to 3 digits allowed) and Unix milliseconds;
 *  - Excel serial day numbers ("44358.43146"), in Excel's 1900 date system;
 *  - ISO 8601 ("2021-06-11T10:21:18Z", "2021-06-11 10:21:18", with or without a zone);
 *  - year first with any of - / . ("2021/06/11 10:21:18", Tronscan);
 *  - year last ("11/06/2021 10:21", "06/11/2021 10:21 PM"), whose day and month order is the
 *    mapping's `order`: a cell that only one order can read is read so, an ambiguous one is refused
 *    under 'auto', and one that does not fit a chosen order is refused (detectDateOrder decides it
 *    from the file);
 *  - month names in English ("Jun-11-2021 10:21:18 AM +UTC", Etherscan's web page; "11-Jun-2021";
 *    "June 11, 2021 10:21"; "Fri, 11 Jun 2021 10:21:18 GMT").
 * A time may carry AM/PM, a fraction of a second (up to milliseconds) and a zone (Z, UTC, GMT,
 * "+UTC", +08:00, +0800, +08, UTC+8); without one it is read in the mapping's time_zone (an IANA
 * name, daylight saving included: luxon's zone data, from the runtime's Intl) when given, else in
 * its utc_offset (explorers export UTC).
 *
 * The common machine forms (13-digit Unix milliseconds, Unix seconds, ISO and "YYYY-MM-DD
 * HH:mm:ss" at a fixed offset) are read digit by digit or with one pattern, then Date.UTC, without
 * the library: an import reads a million rows of them. An IANA zone's offset is looked up through
 * the library once per local day.
 */

/** Below this an integer time is seconds, at or above it milliseconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const SECONDS_LIMIT = 100_000_000_000;
/** Below this a number is an Excel serial day (100000 is 2173-10-14), at or above it Unix seconds (1970-01-02). */
const SERIAL_LIMIT = 100_000;
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(2200, 0, 1);
const LATEST_TEXT = String(LATEST);
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/**
 * The serial day of 1970-01-01 in Excel's 1900 date system. That system counts a 29 February 1900
 * that never was (serial 60, kept from Lotus 1-2-3), so from 1 March 1900 on serial n is n days
 * after 1899-12-30: 25569 days before the Unix epoch.
 */
const EXCEL_UNIX_EPOCH = 25_569;
const EXCEL_EARLIEST = EXCEL_UNIX_EPOCH + EARLIEST / DAY_MS;
const EXCEL_LATEST = EXCEL_UNIX_EPOCH + LATEST / DAY_MS;

const UNIX_RE = /^(\d+)(?:\.(\d+))?$/;
const UNIX_MS_CANONICAL = /^[1-9]\d{12}$/;
const SERIAL_RE = /^(\d+)(?:[.,](\d+))?$/;
/** Decimal places a serial day's time needs (5: to 0.864 s, as a spreadsheet's General format writes it); fewer is a rounded time. */
const SERIAL_MIN_PLACES = 5;
/** ISO 8601 calendar dates, also with a space for T (after machineIso, for the spellings it does not take). */
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/*
 * Other text dates: a date head, then an optional time and an optional zone. The time's groups
 * (hour, minute, second, fraction, a or p of AM/PM) and the zone's come last in every pattern.
 */
const TIME = String.raw`(?:(?:T|,?\s+(?:at\s+)?)(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:\s*([ap])\.?m\.?)?)?`;
const ZONE = String.raw`(?:\s*(Z|[+-]?(?:UTC|GMT)(?:[+-]\d{1,2}(?::?\d{2})?)?|[+-]\d{2}(?::?\d{2})?))?`;
const WEEKDAY = String.raw`(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?`;
const withTime = (head: string) => new RegExp(`^${head}${TIME}${ZONE}$`, 'i');
/** 2021/06/11, 2021-6-11, 2021.06.11: year, separator, month, day. */
const YEAR_FIRST_RE = withTime(String.raw`(\d{4})([-/.])(\d{1,2})\2(\d{1,2})`);
/** 11/06/2021, 06-11-2021, 11.06.2021: two parts whose order is the mapping's, separator, year. */
const YEAR_LAST_RE = withTime(String.raw`(\d{1,2})([-/.])(\d{1,2})\2(\d{4})`);
/** Jun-11-2021, June 11, 2021, Jun 11th 2021: month name, day, year. */
const MONTH_NAME_FIRST_RE = withTime(String.raw`${WEEKDAY}([a-z]{3,9})\.?(?:-|\s+)(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+|-)(\d{4})`);
/** 11-Jun-2021, 11 June 2021, Fri, 11 Jun 2021: day, month name, year. */
const DAY_FIRST_NAME_RE = withTime(String.raw`${WEEKDAY}(\d{1,2})(?:st|nd|rd|th)?(?:-|\s+)([a-z]{3,9})\.?,?(?:-|\s+)(\d{4})`);

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
/** Lower-case English month names and abbreviations -> month number (1-12). */
const MONTH_BY_NAME = new Map<string, number>();
MONTH_NAMES.forEach((name, i) => {
  MONTH_BY_NAME.set(name.toLowerCase(), i + 1);
  MONTH_BY_NAME.set(name.slice(0, 3).toLowerCase(), i + 1);
});
MONTH_BY_NAME.set('sept', 9);

const q = (cell: string) => JSON.stringify(cell);

/** Minutes east of UTC for "+08:00" / "-0530" / "+08" / "Z" (a mapping's utc_offset, already checked by its schema). */
function offsetMinutes(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

/** A zone written as an offset (Z, UTC, GMT, +08:00, +0800, +08, UTC+8) as a mapping's utc_offset ("+08:00"); undefined when it is none. */
export function offsetOf(zone: string): string | undefined {
  const minutes = cellZoneMinutes(zone.trim());
  if (Number.isNaN(minutes)) return undefined;
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.trunc(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Minutes east of UTC for a zone written in a cell (Z, UTC, GMT, +UTC, +08:00, +0800, +08, UTC+8); NaN when it is none. */
function cellZoneMinutes(zone: string): number {
  const z = zone.toUpperCase();
  if (z === 'Z' || z === 'UTC' || z === 'GMT' || z === '+UTC' || z === '+GMT' || z === '-UTC' || z === '-GMT') return 0;
  const m = /^(?:[+-]?(?:UTC|GMT))?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(z);
  if (!m) return NaN;
  const hours = Number(m[2]);
  const minutes = Number(m[3] ?? 0);
  if (hours > 14 || minutes > 59) return NaN;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * Wall-clock time to Unix milliseconds in the import's zone. `wall` is the cell's date and time
 * read as if they were UTC; the result is the moment, or why that wall-clock time names none.
 */
type Localizer = (wall: number, cell: string) => number | CellError;

const fixedOffset =
  (minutes: number): Localizer =>
  (wall) =>
    wall - minutes * MINUTE_MS;

/**
 * Wall-clock times in an IANA zone, daylight saving included. A time the clocks skipped (2021-03-28
 * 02:30 in Europe/Berlin) is refused; a time the clocks showed twice (2021-10-31 02:30 there) is
 * read as the earlier of the two, the one still on summer time: an export written by a clock
 * without a zone cannot say which it meant, and the earlier keeps the rows of that hour in order
 * with those before it.
 * Throws when the name is not a zone the runtime knows.
 */
function ianaZone(name: string): Localizer {
  // Node 22's ICU takes an offset ("+08:00") as a zone too; an offset is utc_offset's, on every runtime.
  if (/^[+-]/.test(name) || !IANAZone.isValidZone(name)) {
    throw new Error(
      `date.time_zone: ${q(name)} is not a time zone name this system knows; give an IANA name such as Europe/Berlin, America/New_York or UTC, or leave it out and give utc_offset`,
    );
  }
  const zone = IANAZone.create(name);
  // Local day -> the offset in force all that day (minutes), or NaN for a day on which it changes.
  // A zone's offset is a lookup through Intl (microseconds), so it is done once per local day.
  const byDay = new Map<number, number>();
  return (wall, cell) => {
    const day = Math.floor(wall / DAY_MS);
    let offset = byDay.get(day);
    if (offset === undefined) {
      // Every moment whose wall-clock time falls on this day lies within this window (offsets are
      // within +-14 h), and offsets change months apart: the same offset at both ends means one
      // offset all day.
      const start = day * DAY_MS;
      const before = zone.offset(start - 15 * HOUR_MS);
      const after = zone.offset(start + DAY_MS + 15 * HOUR_MS);
      offset = before === after ? before : NaN;
      byDay.set(day, offset);
    }
    if (!Number.isNaN(offset)) return wall - offset * MINUTE_MS;
    // The offset changes this day: each offset in force around it that gives back this wall-clock time is a reading.
    const earlier = zone.offset(wall - DAY_MS);
    const later = zone.offset(wall + DAY_MS);
    let best = NaN;
    for (const o of [earlier, later]) {
      const utc = wall - o * MINUTE_MS;
      if (zone.offset(utc) === o && !(utc >= best)) best = utc;
    }
    if (Number.isNaN(best)) {
      return new CellError(
        `${q(cell)} is a time that did not happen in ${name}: the clocks went forward ${Math.abs(later - earlier)} minutes then (daylight saving); check the time zone and the time`,
      );
    }
    return best;
  };
}

const daysInMonth = (year: number, month: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : month === 4 || month === 6 || month === 9 || month === 11
      ? 30
      : 31;

/** Two decimal digits at i as a number, or -1. */
function twoDigits(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * The machine exports' own spellings, "YYYY-MM-DD HH:mm:ss" and "YYYY-MM-DDTHH:mm:ss", each
 * optionally with ".sss" and then "Z", read digit by digit: the cell's wall-clock time as if it
 * were UTC (the caller looks for the Z), or NaN for any other text (or a date that needs a
 * reason), which then takes the patterns below.
 */
function machineIso(cell: string): number {
  const n = cell.length;
  const body = cell.charCodeAt(n - 1) === 90 ? n - 1 : n;
  if (body !== 19 && body !== 23) return NaN;
  const sep = cell.charCodeAt(10);
  if (
    cell.charCodeAt(4) !== 45 ||
    cell.charCodeAt(7) !== 45 ||
    (sep !== 32 && sep !== 84) ||
    cell.charCodeAt(13) !== 58 ||
    cell.charCodeAt(16) !== 58
  ) {
    return NaN;
  }
  const century = twoDigits(cell, 0);
  const yy = twoDigits(cell, 2);
  const month = twoDigits(cell, 5);
  const day = twoDigits(cell, 8);
  const hour = twoDigits(cell, 11);
  const minute = twoDigits(cell, 14);
  const second = twoDigits(cell, 17);
  if ((century | yy | month | day | hour | minute | second) < 0) return NaN;
  let ms = 0;
  if (body === 23) {
    const cs = twoDigits(cell, 20);
    const last = cell.charCodeAt(22) - 48;
    if (cell.charCodeAt(19) !== 46 || cs < 0 || last < 0 || last > 9) return NaN;
    ms = cs * 10 + last;
  }
  const year = century * 100 + yy;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59 || (day > 28 && day > daysInMonth(year, month)))
    return NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
}

/** Milliseconds of a fraction of a second ("5" is 500), or NaN when it is finer than a millisecond. */
function fractionMs(frac: string | undefined): number {
  if (frac === undefined) return 0;
  if (frac.length > 3 && !/^\d{3}0+$/.test(frac)) return NaN;
  return Number(frac.padEnd(3, '0').slice(0, 3));
}

/**
 * A date and time from their parts: checked (no 30 February, no 24:00), then placed in the cell's
 * zone when it has one, else in the import's.
 */
function partsToMs(
  cell: string,
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  frac: string | undefined,
  zone: string | undefined,
  local: Localizer,
): number | CellError {
  if (month < 1 || month > 12 || day < 1 || day > 31) return new CellError(`${q(cell)} is not a valid date`);
  if (hour > 23 || minute > 59 || second > 59) return new CellError(`${q(cell)} is not a valid time of day`);
  const ms = fractionMs(frac);
  if (Number.isNaN(ms)) return new CellError(`${q(cell)} has more than millisecond precision`);
  if (day > 28 && day > daysInMonth(year, month))
    return new CellError(`${q(cell)} is not a valid date (${MONTH_NAMES[month - 1]} ${year} has no day ${day})`);
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (zone === undefined) return local(wall, cell);
  const offset = cellZoneMinutes(zone);
  if (Number.isNaN(offset)) return new CellError(`${q(cell)} has a zone that is not a UTC offset (${zone})`);
  return wall - offset * MINUTE_MS;
}

/** The date and time of a match of one of the text patterns, whose time groups start at index t. */
function textToMs(
  cell: string,
  m: RegExpExecArray,
  year: number,
  month: number,
  day: number,
  t: number,
  local: Localizer,
): number | CellError {
  let hour = m[t] === undefined ? 0 : Number(m[t]);
  const meridiem = m[t + 4];
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return new CellError(`${q(cell)} is not a valid time of day (${hour} o'clock with AM/PM)`);
    hour = (hour % 12) + (meridiem === 'p' || meridiem === 'P' ? 12 : 0);
  }
  return partsToMs(cell, year, month, day, hour, Number(m[t + 1] ?? 0), Number(m[t + 2] ?? 0), m[t + 3], m[t + 5], local);
}

function isoToMs(cell: string, m: RegExpExecArray, local: Localizer): number | CellError {
  return partsToMs(
    cell,
    Number(m[1]),
    Number(m[2]),
    Number(m[3]),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
    m[7],
    m[8],
    local,
  );
}

/** Unix seconds or milliseconds as milliseconds, or why not. */
function unixToMs(cell: string, whole: string, frac: string | undefined, unit: 's' | 'ms'): number | CellError {
  if (unit === 's') {
    const ms = fractionMs(frac);
    if (Number.isNaN(ms)) return new CellError(`${q(cell)} has more than millisecond precision`);
    return Number(whole) * 1000 + ms;
  }
  if (frac !== undefined && /[^0]/.test(frac)) return new CellError(`${q(cell)} has a fraction of a millisecond`);
  return Number(whole);
}

/**
 * An Excel serial day number as milliseconds: whole days since 1899-12-30, the fraction the time of
 * day, in the import's zone (a spreadsheet keeps wall-clock time). A whole number is the day's
 * start; a fraction of fewer than SERIAL_MIN_PLACES digits was rounded by the spreadsheet and is
 * refused (44378.00 may be 23:55 the day before). The fraction is rounded to the
 * nearest second when it has too few digits to carry milliseconds (up to 7 digits: 7 resolve
 * 8.64 ms; a spreadsheet's "General" format writes about 5, as in 44358.43146, which is 10:21:18),
 * else to the nearest millisecond.
 */
function serialToMs(cell: string, whole: string, frac: string | undefined, local: Localizer): number | CellError {
  const days = Number(whole);
  if (days < EXCEL_EARLIEST || days >= EXCEL_LATEST) {
    const hint = days >= SERIAL_LIMIT ? '; Unix seconds or milliseconds? choose that format, or auto' : '';
    return new CellError(
      `${q(cell)} is out of range for an Excel serial day number (expected ${EXCEL_EARLIEST} to ${EXCEL_LATEST - 1}, the years 2000 to 2199)${hint}`,
    );
  }
  let timeMs = 0;
  if (frac !== undefined && frac.length < SERIAL_MIN_PLACES) {
    const step = 86_400 / 10 ** frac.length;
    const resolution = step >= 3600 ? `${step / 3600} hours` : step >= 60 ? `${step / 60} minutes` : `${step} seconds`;
    return new CellError(
      `${q(cell)} is an Excel serial day number rounded to ${frac.length} decimal place${frac.length > 1 ? 's' : ''}: it tells the time only to ${resolution}, so the spreadsheet has moved it (perhaps into another day); save the column as a date and time with seconds, or as a number with at least ${SERIAL_MIN_PLACES} decimal places`,
    );
  }
  if (frac !== undefined) {
    const dayFraction = Number(`0.${frac}`);
    timeMs = frac.length <= 7 ? Math.round(dayFraction * 86_400) * 1000 : Math.round(dayFraction * DAY_MS);
  }
  return local((days - EXCEL_UNIX_EPOCH) * DAY_MS + timeMs, cell);
}

/** Day and month of a year-last date's two parts under the mapping's order, or why they cannot be read. */
function yearLastDayMonth(cell: string, a: number, b: number, order: Mapping['date']['order']): [number, number] | CellError {
  if (order === 'day_first') {
    if (b > 12 && a <= 12)
      return new CellError(`${q(cell)} does not fit the chosen day-first order (there is no month ${b}); is the file month-first?`);
    return [a, b];
  }
  if (order === 'month_first') {
    if (a > 12 && b <= 12)
      return new CellError(`${q(cell)} does not fit the chosen month-first order (there is no month ${a}); is the file day-first?`);
    return [b, a];
  }
  if (a > 12 && b <= 12) return [a, b];
  if (b > 12 && a <= 12) return [b, a];
  if (a === b || a > 12 || b > 12 || a === 0 || b === 0) return [a, b];
  return new CellError(
    `${q(cell)} is ambiguous: ${a} ${MONTH_NAMES[b - 1]} or ${MONTH_NAMES[a - 1]} ${b}? Choose the date order: ${byDoor('day_first or month_first (--date-order)', 'day first or month first')}`,
  );
}

/** Why a moment is refused as outside 2000 to 2200, with what a number so far out probably is. */
function outOfRange(cell: string, unixShaped: boolean): CellError {
  const base = `${q(cell)} is out of range (expected a time between 2000 and 2200`;
  if (!unixShaped) return new CellError(`${base})`);
  if (Number(UNIX_RE.exec(cell)?.[1]) < SERIAL_LIMIT) {
    return new CellError(`${base}; is it an Excel serial day number? choose the format excel, or auto)`);
  }
  return new CellError(`${base}; seconds and milliseconds mixed up?)`);
}

/** What a cell that is no time probably went through, where its shape says so. */
function hintFor(cell: string): string {
  if (/^\d+(?:[.,]\d+)?\s*[eE]\+?\d+$/.test(cell.trim()))
    return '; it is in scientific notation, so a spreadsheet has rounded it: save the column as a number with every digit, or as a date and time';
  if (/^\d{1,2}[./-]\d{1,2}[./-]\d{2}(?:\D|$)/.test(cell.trim()))
    return '; a two-digit year cannot say its century: save the column with four-digit years';
  return '';
}

const EXPECTED: Record<Mapping['date']['format'], string> = {
  auto: 'expected Unix seconds or milliseconds, an Excel serial day number, or a date and time such as 2021-06-11 10:21:18, 2021/06/11 10:21:18, 11/06/2021 10:21 or Jun-11-2021 10:21:18 AM',
  unix_s: 'expected Unix seconds',
  unix_ms: 'expected Unix milliseconds',
  iso: 'expected ISO 8601, such as 2021-06-11T10:21:18Z',
  'YYYY-MM-DD HH:mm:ss': 'expected YYYY-MM-DD HH:mm:ss',
  'YYYY/MM/DD HH:mm:ss': 'expected YYYY/MM/DD HH:mm:ss',
  excel: 'expected an Excel serial day number, such as 44358.43146',
};

/**
 * A time reader for a mapping's date settings: cell (trimmed) -> Unix milliseconds as decimal
 * text, or CellError with a reason an accountant can act on. A canonical 13-digit Unix
 * milliseconds cell in range is returned as it is.
 * Throws an Error naming date.time_zone when time_zone is not a zone the runtime knows, so an
 * import refuses the file before it reads a row.
 */
export function compileTimeReader(date: Mapping['date']): (cell: string) => string | CellError {
  const { format, order } = date;
  const local = date.time_zone !== undefined ? ianaZone(date.time_zone) : fixedOffset(offsetMinutes(date.utc_offset));
  const notATime = (cell: string) => new CellError(`${q(cell)} is not a time (${EXPECTED[format]})${hintFor(cell)}`);
  const msFast = format === 'auto' || format === 'unix_ms';
  const textual = format === 'auto' || format === 'iso' || format === 'YYYY-MM-DD HH:mm:ss';

  /** The moment (Unix ms, range not yet checked), or why the cell names none. */
  const read = (cell: string): number | CellError => {
    if (textual && cell.length >= 19) {
      const wall = machineIso(cell);
      if (wall === wall) return cell.charCodeAt(cell.length - 1) === 90 ? wall : local(wall, cell);
    }
    const c0 = cell.charCodeAt(0);
    if (c0 >= 48 && c0 <= 57) {
      if (format === 'excel') {
        const serial = SERIAL_RE.exec(cell);
        return serial ? serialToMs(cell, serial[1]!, serial[2], local) : notATime(cell);
      }
      const unix = format === 'auto' || format === 'unix_s' || format === 'unix_ms' ? UNIX_RE.exec(cell) : null;
      if (unix) {
        const whole = unix[1]!;
        const n = Number(whole);
        if (format === 'auto') {
          if (n < SERIAL_LIMIT) return serialToMs(cell, whole, unix[2], local);
          return unixToMs(cell, whole, unix[2], n < SECONDS_LIMIT ? 's' : 'ms');
        }
        // Unix seconds below 100,000 are 1970-01-02: such a number is a serial day, or no time at all.
        if (n < SERIAL_LIMIT) return outOfRange(cell, true);
        return unixToMs(cell, whole, unix[2], format === 'unix_s' ? 's' : 'ms');
      }
      if (format === 'unix_s' || format === 'unix_ms') return notATime(cell);
      if (format === 'auto') {
        // A serial day with a decimal comma (a spreadsheet in a European locale).
        const serial = SERIAL_RE.exec(cell);
        if (serial && Number(serial[1]) < SERIAL_LIMIT) return serialToMs(cell, serial[1]!, serial[2], local);
      }
      if (textual) {
        const iso = ISO_RE.exec(cell);
        if (iso) {
          if (format === 'YYYY-MM-DD HH:mm:ss' && (iso[4] === undefined || iso[6] === undefined)) return notATime(cell);
          return isoToMs(cell, iso, local);
        }
        if (format !== 'auto') return notATime(cell);
      }
      const ymd = YEAR_FIRST_RE.exec(cell);
      if (ymd) {
        if (format === 'YYYY/MM/DD HH:mm:ss' && (ymd[2] !== '/' || ymd[5] === undefined || ymd[7] === undefined || ymd[9] !== undefined)) {
          return notATime(cell);
        }
        return textToMs(cell, ymd, Number(ymd[1]), Number(ymd[3]), Number(ymd[4]), 5, local);
      }
      if (format !== 'auto') return notATime(cell);
      const dmy = YEAR_LAST_RE.exec(cell);
      if (dmy) {
        const dm = yearLastDayMonth(cell, Number(dmy[1]), Number(dmy[3]), order);
        if (dm instanceof CellError) return dm;
        return textToMs(cell, dmy, Number(dmy[4]), dm[1], dm[0], 5, local);
      }
      const named = DAY_FIRST_NAME_RE.exec(cell);
      if (named) {
        const month = MONTH_BY_NAME.get(named[2]!.toLowerCase());
        return month === undefined ? notATime(cell) : textToMs(cell, named, Number(named[3]), month, Number(named[1]), 4, local);
      }
      return notATime(cell);
    }
    if (format !== 'auto') return notATime(cell);
    const named = MONTH_NAME_FIRST_RE.exec(cell) ?? DAY_FIRST_NAME_RE.exec(cell);
    if (!named) return notATime(cell);
    const monthFirst = MONTH_BY_NAME.get(named[1]!.toLowerCase());
    if (monthFirst !== undefined) return textToMs(cell, named, Number(named[3]), monthFirst, Number(named[2]), 4, local);
    const month = MONTH_BY_NAME.get((named[2] ?? '').toLowerCase());
    return month === undefined ? notATime(cell) : textToMs(cell, named, Number(named[3]), month, Number(named[1]), 4, local);
  };

  return (cell) => {
    // Thirteen digits are at least 1e12 ms (2001), after EARLIEST; same-length digit strings compare as numbers.
    if (msFast && cell.length === 13 && cell < LATEST_TEXT && UNIX_MS_CANONICAL.test(cell)) return cell;
    const ms = read(cell);
    if (ms instanceof CellError) return ms;
    if (!Number.isSafeInteger(ms) || ms < EARLIEST || ms >= LATEST) {
      // Serial days out of range are refused in serialToMs; a number here was read as Unix time.
      return outOfRange(cell, format !== 'excel' && UNIX_RE.test(cell) && !(format === 'auto' && Number(cell) < SERIAL_LIMIT));
    }
    return String(ms);
  };
}

/**
 * A moment as Unix milliseconds, for the books (reconcile/books-map.ts): Unix seconds (a fraction
 * of up to 3 digits allowed), Unix milliseconds, ISO 8601 (a missing zone means utcOffsetMinutes),
 * or "YYYY-MM-DD HH:mm:ss" at utcOffsetMinutes. 'auto' takes integers below 100,000,000,000 as
 * seconds, larger ones as milliseconds, and text as ISO 8601.
 */
export function readTime(
  cell: string,
  format: 'auto' | 'unix_s' | 'unix_ms' | 'iso' | 'YYYY-MM-DD HH:mm:ss',
  utcOffsetMinutes: number,
): number | CellError {
  if ((format === 'auto' || format === 'unix_ms') && cell.length === 13 && UNIX_MS_CANONICAL.test(cell)) {
    const n = Number(cell);
    if (n >= EARLIEST && n < LATEST) return n;
  }
  let ms: number | CellError;
  const unix = UNIX_RE.exec(cell);
  if (format === 'unix_s' || format === 'unix_ms') {
    if (!unix) return new CellError(`${q(cell)} is not Unix ${format === 'unix_s' ? 'seconds' : 'milliseconds'}`);
    ms = unixToMs(cell, unix[1]!, unix[2], format === 'unix_s' ? 's' : 'ms');
  } else if (format === 'auto' && unix) {
    ms = unixToMs(cell, unix[1]!, unix[2], Number(unix[1]) < SECONDS_LIMIT ? 's' : 'ms');
  } else {
    const iso = ISO_RE.exec(cell);
    if (!iso || (format === 'YYYY-MM-DD HH:mm:ss' && (iso[4] === undefined || iso[6] === undefined))) {
      const expected = format === 'auto' ? 'Unix seconds, Unix milliseconds or ISO 8601' : format === 'iso' ? 'ISO 8601' : format;
      return new CellError(`${q(cell)} is not a time (expected ${expected})`);
    }
    ms = isoToMs(cell, iso, fixedOffset(utcOffsetMinutes));
  }
  if (ms instanceof CellError) return ms;
  if (!Number.isSafeInteger(ms) || ms < EARLIEST || ms >= LATEST) return outOfRange(cell, true);
  return ms;
}

/** The year-last date shape detectDateOrder looks at (the reader's own). */
const isYearLast = (cell: string) => YEAR_LAST_RE.exec(cell);

/**
 * Day/month order from a column's cells (the file's first rows, up to thousands): a first part
 * above 12 means day_first, a second part above 12 month_first; both seen: conflict; neither:
 * null. `examples` has up to 3 cells: those that decided the order, those that conflict
 * (day-first and month-first ones), or, when nothing decides, those that read differently in the
 * two orders (11/06/2021; 06/06/2021
 * reads the same either way and is no example). order null with no examples means there is
 * nothing to choose. Cells that are not year-last dates are ignored; `seen` counts those that are.
 */
export function detectDateOrder(cells: Iterable<string>): {
  order: 'day_first' | 'month_first' | null;
  conflict: boolean;
  examples: string[];
  seen: number;
} {
  let seen = 0;
  const dayFirst: string[] = [];
  const monthFirst: string[] = [];
  const ambiguous: string[] = [];
  for (const raw of cells) {
    const cell = raw.trim();
    const m = isYearLast(cell);
    if (!m) continue;
    seen++;
    const a = Number(m[1]);
    const b = Number(m[3]);
    if (a > 12 && b <= 12) {
      if (dayFirst.length < 2) dayFirst.push(cell);
    } else if (b > 12 && a <= 12) {
      if (monthFirst.length < 2) monthFirst.push(cell);
    } else if (a !== b && a <= 12 && b <= 12 && a > 0 && b > 0 && ambiguous.length < 3 && !ambiguous.includes(cell)) {
      ambiguous.push(cell);
    }
  }
  if (dayFirst.length > 0 && monthFirst.length > 0) {
    return {
      order: null,
      conflict: true,
      examples: [dayFirst[0]!, monthFirst[0]!, ...dayFirst.slice(1), ...monthFirst.slice(1)].slice(0, 3),
      seen,
    };
  }
  if (dayFirst.length > 0) return { order: 'day_first', conflict: false, examples: dayFirst, seen };
  if (monthFirst.length > 0) return { order: 'month_first', conflict: false, examples: monthFirst, seen };
  return { order: null, conflict: false, examples: ambiguous, seen };
}
