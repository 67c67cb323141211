import { parse } from 'lossless-json';
import { expect, test } from 'vitest';
import { parseExactJson } from './exact';
import { claimedJson } from './claimed';

test('the claim is stored as sent: numbers keep their digits, strings stay strings', () => {
  const text =
    '{"amount":100.50,"fee":"0.1","big":123456789012345678901234567890.000000000000000001,"n":-1e-7,"s":"a\\"b","nested":[1,{"x":2.0}],"z":null}';
  expect(claimedJson(parse(text))).toBe(text);
});

test('a claim that came over HTTP is stored as the text it was sent in', () => {
  const text = '{"txs":[{ "amount" : 1.0e2,"to":"0xAB" }]}';
  const [claim] = (parseExactJson(text) as { txs: unknown[] }).txs;
  expect(claimedJson(claim)).toBe('{ "amount" : 1.0e2,"to":"0xAB" }');
});
