/*
 * Cells of a report or ledger file, as text the same in CSV and XLSX: times as ISO 8601 UTC,
 * amounts exactly as their decimal strings, and text that a spreadsheet would run as a formula
 * made harmless.
 */

/**
 * A cell a spreadsheet would read as a formula: = + @ tab CR, or - not followed by a plain number.
 * A plain decimal ("-12.5") keeps its sign unguarded: a spreadsheet reads it as that number and
 * nothing else, so a negative amount stays exact and sortable in the file.
 */
const FORMULA_START = /^(?:[=+@\t\r]|-(?!\d+(?:\.\d+)?$))/;

/** Text as written, with a leading ' where a spreadsheet would otherwise run it. */
export const guardText = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

/** Unix milliseconds as ISO 8601 UTC ("2024-05-31T23:59:59.000Z"); "" when not recorded. */
export const isoUtc = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '' : new Date(ms).toISOString());

/** A claim's time: Unix seconds (a books' time), or milliseconds where the number is that large. */
export const isoOfClaimTime = (v: unknown, until?: unknown): string => {
  // A books date without a time claims its whole day: shown as that date (the UTC date of the day's middle is the books' own).
  if (typeof v === 'number' && typeof until === 'number') return `${isoUtc(((v + until) / 2) * 1000).slice(0, 10)} (all day)`;
  if (typeof v === 'number' && Number.isFinite(v)) return isoUtc(Math.abs(v) < 100_000_000_000 ? v * 1000 : v);
  return textOf(v);
};

/** Any value as cell text: "" for nothing, objects as JSON. */
export function textOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * What a column holds decides how the XLSX writes it; CSV writes every kind as text. `amount` is an
 * exact decimal kept as text; `decimal` is one written as a number a spreadsheet adds up, in its
 * `format` (the CSV keeps its exact text).
 */
type CellKind = 'text' | 'amount' | 'decimal' | 'time' | 'count' | 'link';

export interface TableColumn<T> {
  key: string;
  header: string;
  /** Width in characters (XLSX). */
  width: number;
  kind: CellKind;
  /** The cell's text (a count may be a number). */
  value: (row: T) => string | number;
  /** A `decimal` cell's number format (XLSX), such as "#,##0.000000"; undefined: General. */
  format?: (row: T) => string | undefined;
}

/**
 * Whether a spreadsheet's number holds every digit of a plain decimal: Excel keeps 15 significant
 * digits, so a decimal with more is shown (and summed) rounded, and its exact text must stand beside it.
 */
export function numberHoldsDecimal(plain: string): boolean {
  const digits = plain.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return digits.length <= 15;
}

/** The number format of an amount in a token of `decimals` places: grouped thousands, every place shown (Excel shows at most 30). */
export function decimalsFormat(decimals: number | undefined): string | undefined {
  if (decimals === undefined) return undefined;
  const places = Math.min(Math.max(0, decimals), 30);
  return places === 0 ? '#,##0' : `#,##0.${'0'.repeat(places)}`;
}

/** One row as guarded cell text, in the columns' order (CSV). */
export const textRow = <T>(columns: readonly TableColumn<T>[], row: T): string[] =>
  columns.map((c) => {
    const v = c.value(row);
    return typeof v === 'number' ? String(v) : guardText(v);
  });
