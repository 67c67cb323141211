import { parse } from 'lossless-json';
import { expect, test } from 'vitest';
import { claimedJson } from './handlers';

test('the claim is stored as sent: numbers keep their digits, strings stay strings', () => {
  const text = '{"amount":100.50,"fee":"0.1","big":123456789012345678901234567890.000000000000000001,"n":-1e-7,"s":"a\\"b","nested":[1,{"x":2.0}],"z":null}';
  expect(claimedJson(parse(text))).toBe(text);
});
