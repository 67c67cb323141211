import { describe, expect, it } from 'vitest';
import { compileDecimalReader, detectDecimalSeparator } from './numbers';
import { CellError } from './values';
import { sayFor } from '../said';

const auto = { decimal_separator: 'auto', thousands_separator: 'auto' } as const;
/** The reason as the command line says it (said.ts). */
const reason = (v: string | CellError) => (v instanceof CellError ? sayFor(v.reason, 'cli') : `read as ${v}`);

describe('the decimal separator of a file, from its numbers', () => {
  it('a decimal comma shows in 0,5, 1.234,56, 12,3456 and 1,5E-07', () => {
    for (const cells of [['0,5'], ['1.234,56'], ['12,3456'], ['1,5E-07'], ['100', '7', '0,25'], ['1 234,5']]) {
      // The cell that shows it is the example.
      expect(detectDecimalSeparator(cells)).toEqual({ separator: ',', conflict: false, examples: cells.filter((c) => c.includes(',')) });
    }
  });

  it('a decimal point shows in 0.5, 1,234.56, 1,234,567 and 0.123', () => {
    for (const cells of [['0.5'], ['1,234.56'], ['1,234,567'], ['0.123'], ['1234.567'], ['1.5E-7']]) {
      expect(detectDecimalSeparator(cells).separator).toBe('.');
    }
  });

  it('1,234 or 1.234 alone can be read either way: no separator, and the cells that are ambiguous', () => {
    expect(detectDecimalSeparator(['1,234', '12', '999,000'])).toEqual({
      separator: null,
      conflict: false,
      examples: ['1,234', '999,000'],
    });
    expect(detectDecimalSeparator(['1.234'])).toEqual({ separator: null, conflict: false, examples: ['1.234'] });
    // Whole numbers say nothing, and are no example of ambiguity.
    expect(detectDecimalSeparator(['1', '20', '300'])).toEqual({ separator: null, conflict: false, examples: [] });
  });

  it('a point in one cell and a comma in another is a conflict, with one example of each', () => {
    expect(detectDecimalSeparator(['0.5', '2', '0,25'])).toEqual({ separator: null, conflict: true, examples: ['0.5', '0,25'] });
  });
});

describe('reading amounts with the file’s separator', () => {
  it('decimal comma: 0,5 is 0.5 and 1.234,56 is 1234.56; 0.5 does not fit and is refused, never read as 5', () => {
    const read = compileDecimalReader({ decimal_separator: ',', thousands_separator: 'auto' });
    expect(read('0,5')).toBe('0.5');
    expect(read('1.234,56')).toBe('1234.56');
    expect(read('1.234.567')).toBe('1234567');
    expect(read('-3,25')).toBe('-3.25');
    expect(read('1,5E-07')).toBe('0.00000015');
    expect(reason(read('0.5'))).toMatch(/"0.5" does not fit this file's numbers \(a decimal comma/);
    expect(reason(read('1.2345'))).toMatch(/does not fit/);
  });

  it('decimal point: 1,234.5 is 1234.5; 0,5 does not fit and is refused, never read as 5', () => {
    const read = compileDecimalReader({ decimal_separator: '.', thousands_separator: 'auto' });
    expect(read('1,234.5')).toBe('1234.5');
    expect(read('0.000000000000000001')).toBe('0.000000000000000001');
    expect(read('1.50')).toBe('1.5');
    expect(reason(read('0,5'))).toMatch(
      /"0,5" does not fit this file's numbers \(a decimal point; "," only between groups of three digits\); if the file uses decimal commas, give --decimal-separator/,
    );
    expect(reason(read('12,34'))).toMatch(/does not fit/);
  });

  it('a thousands separator the format names only: with none, 1,234 is refused', () => {
    const read = compileDecimalReader({ decimal_separator: '.', thousands_separator: '' });
    expect(reason(read('1,234'))).toMatch(/does not fit/);
    expect(read('1234.5')).toBe('1234.5');
    const spaced = compileDecimalReader({ decimal_separator: ',', thousands_separator: ' ' });
    expect(spaced('1 234,5')).toBe('1234.5');
  });

  it('undecided: whole numbers pass, the first telling cell decides the rest, an ambiguous one before it is refused', () => {
    const read = compileDecimalReader(auto);
    expect(read('100')).toBe('100');
    expect(reason(read('1,234'))).toMatch(/"1,234" can be read as 1.234 or 1234; give --decimal-separator/);
    expect(read('0,75')).toBe('0.75');
    // Decided: a comma now.
    expect(read('1,234')).toBe('1.234');
    expect(reason(read('2.5'))).toMatch(/does not fit/);
  });

  it('a space or apostrophe only between groups of three digits: 0 5 is refused, never read as 5', () => {
    for (const format of [
      auto,
      { decimal_separator: ',', thousands_separator: 'auto' },
      { decimal_separator: '.', thousands_separator: "'" },
    ] as const) {
      const read = compileDecimalReader(format);
      for (const cell of ['0 5', "0'5", '0 75', '10 00.5', '1 23,5', '1 5 0 0', '1 234 5', '1  234', '12 345,6 7', '1234 567'])
        expect(reason(read(cell)), cell).toMatch(
          /is not a number: a space or apostrophe in a number is read only between groups of three digits/,
        );
    }
    const comma = compileDecimalReader({ decimal_separator: ',', thousands_separator: 'auto' });
    expect(comma('1 234,56')).toBe('1234.56');
    expect(comma('12\u00a0345\u202f678,9')).toBe('12345678.9');
    expect(compileDecimalReader(auto)("1'234.56")).toBe('1234.56');
    expect(detectDecimalSeparator(['0 5']).separator).toBeNull();
  });

  it("an amount in parentheses is refused saying it is an accountant's negative", () => {
    expect(reason(compileDecimalReader(auto)('(0,007)'))).toBe(
      '"(0,007)" is not a number: an amount in parentheses is an accountant\'s negative, and amounts are recorded as numbers >= 0 (the direction is the type)',
    );
  });

  it('not numbers at all', () => {
    const read = compileDecimalReader(auto);
    for (const cell of ['abc', '1..2', '1,2,3.4,5', '--1', '1e', '']) expect(read(cell)).toBeInstanceOf(CellError);
  });
});
