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

/**
 * Fraction digits as written ("679.470000": 6), where the cell is digits, one decimal separator
 * and digits, and was read as such (plain: the amount read from it); undefined for any other
 * shape ("27659", "1,234" read as thousands).
 */
export function writtenPlaces(cell: string, plain: string): number | undefined {
  const m = /^\d+[.,](\d+)$/.exec(cell);
  if (m === null) return undefined;
  return toPlainDecimal(cell.replace(',', '.')) === plain ? m[1]!.length : undefined;
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

export const SEPARATOR_WORDS: Record<string, string> = { '.': 'a decimal point', ',': 'a decimal comma' };
export const ORDER_WORDS: Record<string, string> = { day_first: 'day first', month_first: 'month first' };

/**
 * Why a stated reading (a decimal separator, a date order) cannot be the file's: the file's first
 * rows show the other one, without conflict among themselves. Null when they agree or do not tell.
 */
export function contradicts(
  stated: string,
  found: string | null,
  finding: { conflict: boolean; examples: string[] },
  words: Record<string, string>,
): string | null {
  if (finding.conflict || found === null || found === stated) return null;
  const shown = finding.examples.map((e) => JSON.stringify(e)).join(', ');
  return `${words[stated]} was stated, but the file's first rows show ${words[found]} (${shown}), so its other values would be read wrong; state ${words[found]}, or leave it to the file`;
}
