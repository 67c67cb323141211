import { describe, expect, it } from 'vitest';
import { deriveTransactionId } from './ids';
import { guessDelimiter, JsonArraySplitter } from '../tables/source';
import { CellError, isUuid, readDecimal, readHash, uuidLower, writtenPlaces } from './values';

const dot = { decimal_separator: '.', thousands_separator: '' } as const;

describe('readDecimal', () => {
  it.each([
    ['1.5E-7', '0.00000015'],
    ['2.5E+3', '2500'],
    ['1e3', '1000'],
    ['1.23456789012345678901E+2', '123.456789012345678901'],
    ['250.123456789012345678', '250.123456789012345678'],
    ['0.000000000000000001', '0.000000000000000001'],
    ['1.50', '1.5'],
    ['007', '7'],
    ['.5', '0.5'],
    ['0', '0'],
    ['-0.0', '0'],
    ['-0', '0'],
    ['-12.5', '-12.5'],
    ['-12.50', '-12.5'],
    ['-1.5E-2', '-0.015'],
    ['0.10', '0.1'],
  ])('%s -> %s, exactly', (cell, plain) => {
    expect(readDecimal(cell, dot)).toBe(plain);
  });

  it('reads a decimal comma and thousands separators when told', () => {
    expect(readDecimal('1.234,56', { decimal_separator: ',', thousands_separator: '.' })).toBe('1234.56');
    expect(readDecimal('12,345.678901', { decimal_separator: '.', thousands_separator: ',' })).toBe('12345.678901');
    expect(readDecimal("1'000", { decimal_separator: '.', thousands_separator: "'" })).toBe('1000');
    expect(readDecimal('12,5', { decimal_separator: ',', thousands_separator: '' })).toBe('12.5');
  });

  it.each(['12,5', '1 000', 'abc', '', '1.2.3', '0x10', 'NaN', 'Infinity', '1e', '$5'])('refuses %j with the default format', (cell) => {
    expect(readDecimal(cell, dot)).toBeInstanceOf(CellError);
  });
});

describe('writtenPlaces', () => {
  it.each([
    ['679.470000', '679.47', 6],
    ['27659.000000', '27659', 6],
    ['0.000010000000000000', '0.00001', 18],
    ['0,90000000', '0.9', 8],
  ])('counts the fraction digits of %j as written', (cell, plain, places) => {
    expect(writtenPlaces(cell, plain)).toBe(places);
  });

  it('says nothing of a cell without a fraction, or whose separator was read as thousands', () => {
    expect(writtenPlaces('27659', '27659')).toBeUndefined();
    expect(writtenPlaces('1,234', '1234')).toBeUndefined();
    expect(writtenPlaces('1,234.500000', '1234.5')).toBeUndefined();
  });
});

describe('readHash', () => {
  it('lower-cases EVM and TRON hashes and checks their shape', () => {
    expect(readHash('0x' + 'AB'.repeat(32), 'ETH')).toBe('0x' + 'ab'.repeat(32));
    expect(readHash('0x' + 'ab'.repeat(32), 'ETH')).toBe('0x' + 'ab'.repeat(32));
    expect(readHash('0X' + 'ab'.repeat(32), 'ETH')).toBeInstanceOf(CellError);
    expect(readHash('AB'.repeat(32), 'TRON')).toBe('ab'.repeat(32));
    expect(readHash('0x' + 'ab'.repeat(32), 'TRON')).toBe('ab'.repeat(32));
    expect(readHash('ab'.repeat(32), 'ETH')).toBeInstanceOf(CellError);
    expect(readHash('0x' + 'ab'.repeat(31), 'ETH')).toBeInstanceOf(CellError);
    expect(readHash('anything', 'OTHER')).toBe('anything');
    expect(readHash('two\nlines', 'OTHER')).toBeInstanceOf(CellError);
    expect(readHash('x'.repeat(257), 'OTHER')).toBeInstanceOf(CellError);
  });
});

describe('isUuid', () => {
  it('accepts 8-4-4-4-12 hex digits in any case and nothing else', () => {
    expect(isUuid('3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6f')).toBe(true);
    expect(isUuid('3F6C1D2E-8A4B-4C7D-9E2F-1A2B3C4D5E6F')).toBe(true);
    for (const bad of [
      '3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6',
      '3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6g',
      '3f6c1d2e8a4b-4c7d-9e2f-1a2b3c4d5e6f0',
      '3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6\u0130',
      ' 3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6f',
    ]) {
      expect([bad, isUuid(bad)]).toEqual([bad, false]);
      expect(uuidLower(bad)).toBeUndefined();
    }
    expect(uuidLower('3F6C1D2E-8A4B-4C7D-9E2F-1A2B3C4D5E6F')).toBe('3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6f');
    expect(uuidLower('3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6f')).toBe('3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6f');
  });
});

describe('derived transaction ids', () => {
  it('are stable UUID v5 values that change with any part', () => {
    const a = deriveTransactionId(['w', 'ETH', '0xabc']);
    expect(a).toBe(deriveTransactionId(['w', 'ETH', '0xabc']));
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deriveTransactionId(['w', 'ETH', '0xabd'])).not.toBe(a);
    expect(deriveTransactionId(['w', 'ETHX', '0xabc'])).not.toBe(a);
  });

  it('keep the values stores already hold (the ids of earlier imports)', () => {
    expect(deriveTransactionId(['w', 'ETH', '0xabc'])).toBe('50d99c73-1961-554c-b8e9-6657f9b6e0b2');
    expect(deriveTransactionId(['wallet é 中', 'TRON', 'ff'.repeat(32), '2'])).toBe('146d5afd-f20e-5e77-8c43-83b20090db67');
  });
});

describe('JsonArraySplitter', () => {
  const split = (chunks: string[]) => {
    const out: string[] = [];
    const s = new JsonArraySplitter((t) => out.push(t.trim()));
    for (const c of chunks) s.push(c);
    s.end();
    return out;
  };

  it('finds elements across chunk boundaries, ignoring brackets and commas in strings', () => {
    const text = '[{"a":"x,]}","b":[1,2]} , {"c":"q\\"]"},{"d":{"e":[]}}]';
    const whole = split([text]);
    expect(whole).toEqual(['{"a":"x,]}","b":[1,2]}', '{"c":"q\\"]"}', '{"d":{"e":[]}}']);
    for (let cut = 1; cut < text.length; cut++) expect(split([text.slice(0, cut), text.slice(cut)])).toEqual(whole);
  });

  it('accepts an empty array and refuses what is not one', () => {
    expect(split([' [ ] '])).toEqual([]);
    expect(() => split(['{"a":1}'])).toThrow(/expected \[/);
    expect(() => split(['[{"a":1},'])).toThrow(/not closed/);
    expect(() => split(['[{"a":1},,{"b":2}]'])).toThrow(/empty/);
    expect(() => split(['[1] x'])).toThrow(/after the closing/);
  });
});

describe('guessDelimiter', () => {
  it('picks the separator of the header line, quotes respected', () => {
    expect(guessDelimiter('a,b,c')).toBe(',');
    expect(guessDelimiter('a;b;"c,d"')).toBe(';');
    expect(guessDelimiter('a\tb\tc')).toBe('\t');
    expect(guessDelimiter('"x,y,z";b;c;d')).toBe(';');
  });
});

describe('AddressCache', () => {
  it('agrees with the address endpoint on valid and invalid EVM and TRON addresses', async () => {
    const { AddressCache } = await import('./addresses');
    const { checkEvmAddress, checkTronAddress } = await import('../addresses/check');
    const cache = new AddressCache();
    const evm = [
      '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      '0xdac17f958d2ee523a2206206994597c13d831ec7',
      '0xDAC17F958D2EE523A2206206994597C13D831EC7',
      '0xdAC17F958D2ee523a2206206994597C13D831eC7',
      '0xdAC17F958D2ee523a2206206994597C13D831ec',
      'dAC17F958D2ee523a2206206994597C13D831ec7',
    ];
    const tron = [
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6T',
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6',
      '41a614f803b6fd780986a42c78ec9c7f77e6ded13c',
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj0t',
      'AR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    ];
    for (let round = 0; round < 2; round++) {
      for (const a of evm) expect([a, cache.problem(a, 'ETH') === null]).toEqual([a, checkEvmAddress(a).is_valid]);
      for (const a of tron) expect([a, cache.problem(a, 'TRON') === null]).toEqual([a, checkTronAddress(a).is_valid]);
    }
    expect(cache.problem('0xdAC17F958D2ee523a2206206994597C13D831eC7', 'ETH')).toMatch(/EIP-55/);
    expect(cache.problem('anything', 'BTC')).toBeNull();
    expect(cache.problem('bc1q\tx', 'BTC')).toBe('is not an address');
  });
});
