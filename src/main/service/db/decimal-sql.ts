import type Database from 'better-sqlite3';

/*
 * Amounts are stored as exact decimal strings, so SQLite cannot order or bound them as numbers
 * without going through a float. decimal_key(text) is a string that sorts (with the default
 * binary collation) in exactly the numeric order of the decimal strings: sign, length of the integer part,
 * the digits (nines' complement for negatives), so `ORDER BY decimal_key(amount)` and
 * `decimal_key(amount) >= decimal_key(?)` are exact. Text that is not a plain decimal keys after
 * every number ('~'), so it never falls inside a bound.
 */

const PLAIN = /^(-)?(\d+)(?:\.(\d+))?$/;
const complement = (digits: string): string => digits.replace(/\d/g, (d) => String(9 - Number(d)));

export function decimalKey(text: string | null): string {
  const m = text === null ? null : PLAIN.exec(text.trim());
  if (!m) return '~';
  const int = m[2]!.replace(/^0+(?=\d)/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const zero = int === '0' && frac === '';
  const length = String(int.length).padStart(4, '0');
  if (!m[1] || zero) return `1${length}${int}.${frac}`;
  // Negative: a longer integer part is smaller, so its length is complemented too; ':' ends the
  // fraction and sorts after every digit, so -1.5 (more digits, smaller) comes before -1.
  return `0${complement(length)}${complement(int)}.${complement(frac)}:`;
}

/** Make decimal_key(text) available to this connection's SQL. */
export function registerDecimalFunctions(sqlite: Database.Database): void {
  sqlite.function('decimal_key', { deterministic: true }, (v: unknown) => decimalKey(v === null ? null : String(v)));
}
