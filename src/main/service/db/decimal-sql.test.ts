import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { decimalKey } from './decimal-sql';

describe('decimal_key', () => {
  it('orders decimal strings exactly as their values, where floats would tie', () => {
    const values = [
      '-100',
      '-10.5',
      '-10',
      '-2',
      '-1.25',
      '-1.2',
      '-1',
      '-0.000000000000000001',
      '0',
      '0.000000000000000001',
      '0.1',
      '1',
      '1.2',
      '1.25',
      '2',
      '10',
      '100',
      '9007199254740993',
      '9007199254740993.000000000000000001',
    ];
    const shuffled = [...values].reverse();
    const byKey = [...shuffled].sort((a, b) => (decimalKey(a) < decimalKey(b) ? -1 : decimalKey(a) > decimalKey(b) ? 1 : 0));
    expect(byKey).toEqual([...values].sort((a, b) => new Big(a).cmp(new Big(b))));
    expect(byKey).toEqual(values);
  });

  it('keys equal values alike and text that is no number after every number', () => {
    expect(decimalKey('1.50')).toBe(decimalKey('01.5'));
    expect(decimalKey('-0')).toBe(decimalKey('0.00'));
    expect(decimalKey('abc') > decimalKey('99999999999999999999')).toBe(true);
    expect(decimalKey('') > decimalKey('1')).toBe(true);
  });
});
