import { PLAIN_DECIMAL, toPlainDecimal } from '../../../shared/primitives';

/* Cell readers for ledger files: pure functions from a cell's text to a stored value or a reason. */

/**
 * A copy of s that does not keep alive the large text it was cut from: V8 represents a substring
 * as a view into its parent, so a cell kept for long (a cache key, a reported id) would otherwise
 * hold a whole megabyte read chunk in memory. Concatenating flattens into a fresh string.
 */
export const detach = (s: string): string => (' ' + s).slice(1);

/** A cell that could not be read: why, in words an accountant can act on. */
export class CellError {
  constructor(readonly reason: string) {}
}

export interface NumberFormat {
  decimal_separator: '.' | ',';
  thousands_separator: '' | ',' | '.' | ' ' | "'" | '_';
}

const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** Already in stored form: no sign, no leading zero, no trailing fractional zero, no exponent. */

/**
 * A decimal amount, exactly: thousands separators dropped, the decimal separator made '.',
 * scientific notation ("1.5E-7", as spreadsheets write) moved into place without rounding.
 */
export function readDecimal(cell: string, fmt: NumberFormat): string | CellError {
  if (PLAIN_DECIMAL.test(cell) && !cell.startsWith('-') && (fmt.decimal_separator === '.' || !cell.includes('.'))) return cell;
  let text = cell;
  if (fmt.thousands_separator !== '' && text.includes(fmt.thousands_separator)) {
    text = text.split(fmt.thousands_separator).join('');
  }
  if (fmt.decimal_separator === ',') text = text.replace(',', '.');
  if (!PLAIN_NUMBER.test(text)) {
    return new CellError(`${JSON.stringify(cell)} is not a number${fmt.decimal_separator === ',' ? ' (decimal comma expected)' : ''}`);
  }
  const plain = toPlainDecimal(text);
  if (plain === undefined) return new CellError(`${JSON.stringify(cell)} is not a number`);
  return plain;
}

/** Fraction digits of a plain decimal string. */
export const decimalPlaces = (plain: string): number => {
  const dot = plain.indexOf('.');
  return dot < 0 ? 0 : plain.length - dot - 1;
};

export type DateFormat = 'auto' | 'unix_s' | 'unix_ms' | 'iso' | 'YYYY-MM-DD HH:mm:ss';

/** Below this an integer time is seconds, at or above it milliseconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const SECONDS_LIMIT = 100_000_000_000;
const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(2200, 0, 1);

const UNIX_RE = /^(\d+)(?:\.(\d+))?$/;
const UNIX_MS_CANONICAL = /^[1-9]\d{12}$/;
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Minutes east of UTC for "+08:00" / "-0530" / "+08" / "Z". */
export function offsetMinutes(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (!m) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

function unixToMs(whole: string, frac: string | undefined, unit: 's' | 'ms'): number | CellError {
  if (unit === 's') {
    if (frac !== undefined && frac.replace(/0+$/, '').length > 3) return new CellError('has more than millisecond precision');
    return Number(whole) * 1000 + Number((frac ?? '').padEnd(3, '0').slice(0, 3));
  }
  if (frac !== undefined && /[^0]/.test(frac)) return new CellError('has a fraction of a millisecond');
  return Number(whole);
}

function isoToMs(m: RegExpExecArray, defaultOffset: number): number | CellError {
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return new CellError('is not a valid date and time');
  const local = Date.UTC(Number(y), month - 1, day, hour, minute, second);
  if (new Date(local).getUTCDate() !== day) return new CellError('is not a valid date');
  if (frac.replace(/0+$/, '').length > 3) return new CellError('has more than millisecond precision');
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const offset = zone === undefined ? defaultOffset : offsetMinutes(zone.toUpperCase());
  return local + ms - offset * 60_000;
}

/**
 * A moment as Unix milliseconds. Unix seconds (a fraction of up to 3 digits allowed), Unix
 * milliseconds, ISO 8601 (a missing zone means utcOffset), or "YYYY-MM-DD HH:mm:ss" in utcOffset.
 */
export function readTime(cell: string, format: DateFormat, utcOffsetMinutes: number): number | CellError {
  if ((format === 'auto' || format === 'unix_ms') && cell.length === 13 && UNIX_MS_CANONICAL.test(cell)) {
    const n = Number(cell);
    if (n >= EARLIEST && n < LATEST) return n;
  }
  let ms: number | CellError;
  const unix = UNIX_RE.exec(cell);
  if (format === 'unix_s' || format === 'unix_ms') {
    if (!unix) return new CellError(`${JSON.stringify(cell)} is not Unix ${format === 'unix_s' ? 'seconds' : 'milliseconds'}`);
    ms = unixToMs(unix[1]!, unix[2], format === 'unix_s' ? 's' : 'ms');
  } else if (format === 'auto' && unix) {
    ms = unixToMs(unix[1]!, unix[2], Number(unix[1]) < SECONDS_LIMIT ? 's' : 'ms');
  } else {
    const iso = ISO_RE.exec(cell);
    if (!iso || (format === 'YYYY-MM-DD HH:mm:ss' && (iso[4] === undefined || iso[6] === undefined))) {
      const expected = format === 'auto' ? 'Unix seconds, Unix milliseconds or ISO 8601' : format === 'iso' ? 'ISO 8601' : format;
      return new CellError(`${JSON.stringify(cell)} is not a time (expected ${expected})`);
    }
    ms = isoToMs(iso, utcOffsetMinutes);
  }
  if (ms instanceof CellError) return ms;
  if (!Number.isSafeInteger(ms) || ms < EARLIEST || ms >= LATEST) {
    return new CellError(
      `${JSON.stringify(cell)} is out of range (expected a time between 2000 and 2200; seconds and milliseconds mixed up?)`,
    );
  }
  return ms;
}

const LATEST_TEXT = String(LATEST);

/**
 * The stored form of a moment as text: readTime's milliseconds, or the cell itself when it already
 * is canonical Unix milliseconds in range (most machine exports), with no conversion either way.
 */
export function readTimeText(cell: string, format: DateFormat, utcOffsetMinutes: number): string | CellError {
  // Thirteen digits are at least 1e12 ms (2001), after EARLIEST; same-length digit strings compare as numbers.
  if ((format === 'auto' || format === 'unix_ms') && cell.length === 13 && cell < LATEST_TEXT && UNIX_MS_CANONICAL.test(cell)) return cell;
  const ms = readTime(cell, format, utcOffsetMinutes);
  return ms instanceof CellError ? ms : String(ms);
}

/** Match a word against a fixed set, case-insensitively; the set's own spelling is kept. */
export function canonicalWord<T extends string>(words: readonly T[]): (cell: string) => T | undefined {
  const byLower = new Map(words.map((w) => [w.toLowerCase(), w]));
  return (cell) => {
    // Most cells are spelled as the set spells them: no lower-case copy for those.
    for (const w of words) if (w === cell) return w;
    return byLower.get(cell.toLowerCase());
  };
}

const IS_HEX = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEF') IS_HEX[c.charCodeAt(0)] = 1;

const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** UUID-shaped: 8-4-4-4-12 hex digits. */
export const isUuid = (s: string): boolean => uuidLower(s) !== undefined;

/**
 * A UUID-shaped cell (8-4-4-4-12 hex digits) in lower case, the cell itself when it already is;
 * undefined when not UUID-shaped. Two per row: a hot path, so the common case is one pattern test.
 */
export function uuidLower(s: string): string | undefined {
  // Most cells already are: one native pattern test, cheaper than the loop below.
  if (LOWER_UUID.test(s)) return s;
  if (s.length !== 36) return undefined;
  let upper = false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return undefined;
    } else if (c > 127 || IS_HEX[c] === 0) return undefined;
    else if (c <= 70 && c >= 65) upper = true;
  }
  return upper ? s.toLowerCase() : s;
}

/** Tab, line breaks and other control characters would break the staging file and every display. */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHAR = /[\u0000-\u001f\u007f]/;
/** The longest identifier, address or hash a record keeps. */
export const TEXT_LIMIT = 256;

/** Text taken as given (a chain family whose form is not checked): one line of reasonable length. */
export const isPlainText = (cell: string): boolean => cell.length <= TEXT_LIMIT && !CONTROL_CHAR.test(cell);

const EVM_HASH = /^0x[0-9a-fA-F]{64}$/;
const LOWER_EVM_HASH = /^0x[0-9a-f]{64}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
const LOWER_HEX64 = /^[0-9a-f]{64}$/;
const BASE58_SIG = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;

/**
 * A transaction hash in the form its chain family uses, lower-cased where it is hex (so a search
 * and a lookup need not care about case). Other families are taken as given.
 */
export function readHash(cell: string, family: string): string | CellError {
  // Already lower-case (most exports): kept as it is, no copy.
  if (family === 'ETH') {
    if (LOWER_EVM_HASH.test(cell)) return cell;
    return EVM_HASH.test(cell)
      ? cell.toLowerCase()
      : new CellError(`${JSON.stringify(cell)} is not an EVM transaction hash (0x and 64 hex digits)`);
  }
  if (family === 'TRON' || family === 'BTC') {
    const bare = family === 'TRON' && cell.startsWith('0x') ? cell.slice(2) : cell;
    if (LOWER_HEX64.test(bare)) return bare;
    return HEX64.test(bare)
      ? bare.toLowerCase()
      : new CellError(`${JSON.stringify(cell)} is not a ${family} transaction hash (64 hex digits)`);
  }
  if (family === 'SOL') {
    return BASE58_SIG.test(cell) ? cell : new CellError(`${JSON.stringify(cell)} is not a Solana signature (Base58)`);
  }
  return isPlainText(cell) ? cell : new CellError('is not a transaction hash');
}
