import type { Mapping } from '../../../shared/ledger';
import { PLAIN_DECIMAL, toPlainDecimal } from '../../../shared/primitives';
import { byDoor } from '../said';
import { CellError } from './values';

/*
 * Amounts as files write them, read exactly and never misread. A file saved in a European locale
 * writes 0,5 where an explorer writes 0.5; read with the wrong separator it becomes 5 without a
 * word. So a cell's separators are read only where they can mean one thing:
 *  - the decimal separator is decided per file: from the numbers themselves (a cell like 0,5,
 *    1.234,56 or 12,3456 can only have a decimal comma), or from the user when the file cannot
 *    tell (1,234 alone is 1234 or 1.234);
 *  - a thousands separator is read only between groups of three digits (1,234,567.8), so a cell
 *    that does not fit the file's format is refused with the reason, never read another way.
 */

type Separator = '.' | ',';

/** What one cell says about the file's decimal separator. */
type Evidence = 'none' | Separator | 'ambiguous' | 'invalid';

/** Characters spreadsheets put between groups of thousands besides ',' and '.'. */
const SPACES = /[ \u00a0\u202f']/g;
const HAS_SPACE = /[ \u00a0\u202f']/;
const DIGITS = /^\d+$/;
/** Digits in groups of three, each group after the first led by one space-like separator (1 234 567, 1'234). */
const SPACE_GROUPED = /^\d{1,3}(?:[ \u00a0\u202f']\d{3})+$/;
/** Why a cell is no number, with what a spreadsheet's shape of it says: spaces not between groups of three, an accountant's parentheses. */
function notANumber(cell: string): string {
  const c = cell.trim();
  if (HAS_SPACE.test(c))
    return `${JSON.stringify(cell)} is not a number: a space or apostrophe in a number is read only between groups of three digits (1 234,56 or 1'234.56)`;
  if (/^\(.*\)$/.test(c))
    return `${JSON.stringify(cell)} is not a number: an amount in parentheses is an accountant's negative, and amounts are recorded as numbers >= 0 (the direction is the type)`;
  return `${JSON.stringify(cell)} is not a number`;
}

/** Whether `int` is digits in groups of three separated by `sep` (the first group 1 to 3 digits). */
function grouped(int: string, sep: string): boolean {
  const groups = int.split(sep);
  if (groups.length < 2) return false;
  if (!/^\d{1,3}$/.test(groups[0]!)) return false;
  for (let i = 1; i < groups.length; i++) if (!/^\d{3}$/.test(groups[i]!)) return false;
  return true;
}

/** The cell without sign, exponent and space-like thousands separators; null when it is not number-shaped at all. */
function body(cell: string): { digits: string; spaced: boolean } | null {
  let s = cell.trim();
  if (s.startsWith('-') || s.startsWith('+')) s = s.slice(1);
  const e = s.search(/[eE]/);
  if (e >= 0) {
    if (!/^[+-]?\d+$/.test(s.slice(e + 1))) return null;
    s = s.slice(0, e);
  }
  const spaced = HAS_SPACE.test(s);
  if (spaced) {
    // Only between groups of three digits before the decimal separator: "0 5" is no number, never 5.
    const at = s.search(/[.,]/);
    const int = at < 0 ? s : s.slice(0, at);
    if (!SPACE_GROUPED.test(int) || (at >= 0 && HAS_SPACE.test(s.slice(at)))) return null;
    s = s.replace(SPACES, '');
  }
  if (s === '' || !/^[\d.,]+$/.test(s)) return null;
  return { digits: s, spaced };
}

/** What a cell says about the decimal separator of its file. */
function evidenceOf(cell: string): Evidence {
  const b = body(cell);
  if (b === null) return 'invalid';
  const s = b.digits;
  const dot = s.indexOf('.');
  const comma = s.indexOf(',');
  if (dot < 0 && comma < 0) return DIGITS.test(s) ? 'none' : 'invalid';
  if (dot >= 0 && comma >= 0) {
    // Both: the last one is the decimal separator, the other must group thousands before it.
    const decimal: Separator = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    const at = s.lastIndexOf(decimal);
    if (s.indexOf(decimal) !== at || !grouped(s.slice(0, at), thousands) || !DIGITS.test(s.slice(at + 1))) return 'invalid';
    return decimal;
  }
  const sep: Separator = dot >= 0 ? '.' : ',';
  const other: Separator = sep === '.' ? ',' : '.';
  const parts = s.split(sep);
  if (parts.length > 2) return grouped(s, sep) ? other : 'invalid';
  const [int, frac] = parts as [string, string];
  if (frac === '' || !DIGITS.test(frac) || (int !== '' && !DIGITS.test(int))) return int !== '' && frac === '' ? sep : 'invalid';
  // A thousands separator needs one to three digits before it, not starting with 0, and exactly three after.
  if (frac.length !== 3 || int === '' || int.length > 3 || int.startsWith('0')) return sep;
  // A space-grouped number uses spaces for thousands: its one separator is the decimal one.
  if (b.spaced) return sep;
  return 'ambiguous';
}

export interface SeparatorFinding {
  /** The separator the cells show, or null when they do not tell. */
  separator: Separator | null;
  /** Some cells show a decimal point and others a decimal comma. */
  conflict: boolean;
  /** Up to three cells: those that decided (separator found), the ambiguous ones (separator null), or one of each kind (conflict). */
  examples: string[];
}

/** The decimal separator a column's cells (a file's first rows) show. */
export function detectDecimalSeparator(cells: Iterable<string>): SeparatorFinding {
  const seen: Record<Separator, string[]> = { '.': [], ',': [] };
  const ambiguous: string[] = [];
  for (const cell of cells) {
    const e = evidenceOf(cell);
    if (e === '.' || e === ',') {
      if (seen[e].length < 2) seen[e].push(cell.trim());
    } else if (e === 'ambiguous' && ambiguous.length < 3 && !ambiguous.includes(cell.trim())) ambiguous.push(cell.trim());
  }
  if (seen['.'].length && seen[','].length) return { separator: null, conflict: true, examples: [seen['.'][0]!, seen[','][0]!] };
  if (seen['.'].length) return { separator: '.', conflict: false, examples: seen['.'] };
  if (seen[','].length) return { separator: ',', conflict: false, examples: seen[','] };
  return { separator: null, conflict: false, examples: ambiguous };
}

const FLAG_HINT = byDoor('give --decimal-separator . or ,', 'choose the Decimal separator in the import dialog');

/** A number in scientific notation: digits, then E and the exponent. */
const EXPONENT = /\d\s*[eE][+-]?\d+\s*$/;
const SCIENTIFIC = (cell: string) =>
  `${JSON.stringify(cell)} is in scientific notation, which this export never has: the file was saved by a spreadsheet, which may have rounded the number; import the explorer's own file, or save the column as text with every decimal`;

/**
 * A reader of amount cells for a mapping's number format. With decimal_separator 'auto' and no
 * decision from the file's first rows, the first cell that shows the separator decides it for the
 * rest of the file; a cell that could be read either way before then is refused, not guessed.
 * `hint` says how the caller's user chooses the separator (the ledger import's flag by default).
 */
export function compileDecimalReader(number: Mapping['number'], hint = FLAG_HINT): (cell: string) => string | CellError {
  let decimal: Separator | null = number.decimal_separator === 'auto' ? null : number.decimal_separator;
  const thousands = number.thousands_separator;

  const read = (cell: string, sep: Separator): string | CellError => {
    let s = cell;
    const other = sep === '.' ? ',' : '.';
    const b = body(s);
    if (b === null) return new CellError(notANumber(cell));
    if (b.spaced) {
      if (thousands !== 'auto' && thousands !== ' ' && thousands !== "'") {
        return new CellError(
          `${JSON.stringify(cell)} is not a number (it has spaces or apostrophes, and the format has no such thousands separator)`,
        );
      }
      s = s.replace(SPACES, '');
    }
    const at = s.indexOf(other);
    if (at >= 0) {
      const allowed = thousands === 'auto' || thousands === other;
      const dec = s.indexOf(sep);
      const int = (dec < 0 ? s : s.slice(0, dec)).replace(/^[+-]/, '').replace(/[eE].*$/, '');
      if (!allowed || !grouped(int, other)) {
        const name = sep === '.' ? 'a decimal point' : 'a decimal comma';
        return new CellError(
          `${JSON.stringify(cell)} does not fit this file's numbers (${name}; "${other}" only between groups of three digits); if the file uses ${sep === '.' ? 'decimal commas' : 'decimal points'}, ${hint}`,
        );
      }
      s = s.split(other).join('');
    }
    if (sep === ',') s = s.replace(',', '.');
    const plain = toPlainDecimal(s);
    return plain === undefined ? new CellError(`${JSON.stringify(cell)} is not a number`) : plain;
  };

  const scientific = number.scientific !== false;
  const readCell = (cell: string): string | CellError => {
    // Most cells are plain decimal numbers with a point or none (what explorers write): no copy, no check more.
    if (PLAIN_DECIMAL.test(cell) && !cell.startsWith('-') && (decimal !== ',' || !cell.includes('.'))) {
      if (decimal === null && cell.includes('.')) {
        const e = evidenceOf(cell);
        if (e === 'ambiguous') return new CellError(`${JSON.stringify(cell)} can be read as ${cell} or ${cell.replace('.', '')}; ${hint}`);
        decimal = '.';
      }
      return cell;
    }
    if (!scientific && EXPONENT.test(cell)) return new CellError(SCIENTIFIC(cell));
    if (decimal === null) {
      const e = evidenceOf(cell);
      if (e === 'invalid') return new CellError(notANumber(cell));
      if (e === 'ambiguous') {
        const sep = cell.includes(',') ? ',' : '.';
        const asDecimal = cell.replace(sep, '.').trim();
        const asThousands = cell.replace(sep, '').trim();
        return new CellError(`${JSON.stringify(cell)} can be read as ${asDecimal} or ${asThousands}; ${hint}`);
      }
      if (e === 'none') return read(cell, '.');
      decimal = e;
    }
    return read(cell, decimal);
  };
  const unit = number.unit?.toUpperCase();
  if (unit === undefined) return readCell;
  return (cell) => {
    const m = /^(.*\d)\s+([A-Za-z][\w.]*)$/.exec(cell);
    if (m === null) return readCell(cell);
    if (m[2]!.toUpperCase() !== unit) return new CellError(`${JSON.stringify(cell)} is in ${m[2]}, not ${unit}`);
    return readCell(m[1]!);
  };
}
