import { isLosslessNumber, parse } from 'lossless-json';
import { expect, test } from 'vitest';
import { parseExactJson, SOURCE_TEXT, type WithSource } from './exact';

const VALID = [
  '0',
  '-0',
  '1.5e-7',
  '-12.50E+3',
  '123456789012345678901234567890.000000000000000001',
  '"x"',
  '""',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  ' [ 1 , 2 ] ',
  '{"a":"b\\"c\\\\d\\u00e9\\n","b":[{"c":0.10}],"d":null}',
  '{"a":1,"a":1}',
  '{"__proto__":{"x":1}}',
  '\t\r\n{"k" : [ true , false ] }\n',
  '"\u00e9\ud83d\ude00"',
];
const INVALID = [
  '',
  ' ',
  '01',
  '1.',
  '.5',
  '-',
  '+1',
  '1e',
  '1e+',
  '"abc',
  '"a\u0001"',
  '"\\x"',
  '"\\u12"',
  '[1,]',
  '[,1]',
  '{"a":1,}',
  '{a:1}',
  "{'a':1}",
  '{"a" 1}',
  '{"a":1 "b":2}',
  '{"a":1,"a":2}',
  'tru',
  'nul',
  '[1] x',
  'NaN',
  'Infinity',
  '[',
  '{',
  '{"a":',
  '/* */1',
];
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (isLosslessNumber(x) ? `#${x.value}` : x)));

test('reads what lossless-json reads, to the same values, and refuses what it refuses', () => {
  for (const text of VALID) expect(plain(parseExactJson(text)), text).toEqual(plain(parse(text)));
  for (const text of INVALID) {
    expect(() => parse(text), text).toThrow();
    expect(() => parseExactJson(text), text).toThrow(SyntaxError);
  }
  expect(Object.getPrototypeOf(parseExactJson('{"__proto__":{"x":1}}'))).toBe(Object.prototype);
});

test('objects in arrays carry their text as sent; others do not', () => {
  const text = '{"txs":[ {"amount": 1.50 , "s":"a\\"b"},{"x":[{"y":2}]} ],"o":{"z":1}}';
  const v = parseExactJson(text) as { txs: WithSource[]; o: WithSource } & WithSource;
  expect(v.txs[0]![SOURCE_TEXT]).toBe('{"amount": 1.50 , "s":"a\\"b"}');
  expect(v.txs[1]![SOURCE_TEXT]).toBe('{"x":[{"y":2}]}');
  expect(v[SOURCE_TEXT]).toBeUndefined();
  expect(v.o[SOURCE_TEXT]).toBeUndefined();
  expect(Object.keys(v.txs[0]!)).toEqual(['amount', 's']);
});

test('keys read again and again (the same names on every claim, and names alike in length and ends) are each their own text', () => {
  const keys = ['amount', 'anount', 'amounT', 'a', '', 'b\\"c', 'é', 'ê', 'k\\u0065z', 'key', 'x'.repeat(65), 'x'.repeat(64), 'tx'];
  const text = `[${Array.from({ length: 40 }, (_, i) => `{${keys.map((k, j) => `"${k}":${i * 100 + j}`).join(',')}}`).join(',')}]`;
  expect(plain(parseExactJson(text))).toEqual(plain(parse(text)));
  const first = (parseExactJson(text) as Record<string, unknown>[])[3]!;
  expect(Object.keys(first)).toEqual([
    'amount',
    'anount',
    'amounT',
    'a',
    '',
    'b"c',
    'é',
    'ê',
    'kez',
    'key',
    'x'.repeat(65),
    'x'.repeat(64),
    'tx',
  ]);
  // A key cut short by the end of the text, or holding a character a string may not, is still refused.
  for (const bad of ['[{"amount":1},{"amount', '[{"amount":1},{"amo\u0001unt":1}]', '[{"ab":1},{"a\\x":1}]'])
    expect(() => parseExactJson(bad), bad).toThrow(SyntaxError);
});
