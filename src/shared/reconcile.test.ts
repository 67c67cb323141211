import { parse } from 'lossless-json';
import { expect, test } from 'vitest';
import { isItemIssue, readVerifyItem, VERIFY_ITEM_JSON_SCHEMA } from './reconcile';

type Prop = { type: string[]; enum?: unknown[]; minimum?: number; maximum?: number };
const props = VERIFY_ITEM_JSON_SCHEMA.properties as Record<string, Prop>;
const base = { transaction_id: 'aaaaaaaa-0000-4000-8000-000000000001', amount: 1 };
const issueOf = (json: string) => {
  const r = readVerifyItem(parse(json));
  return isItemIssue(r) ? r : null;
};

test('the documented schema and the reader agree on every field: documented values are read, values outside it are refused naming the field', () => {
  expect(Object.keys(props)).toEqual([
    'request_id',
    'transaction_id',
    'hash',
    'chain_id',
    'token_id',
    'to',
    'type',
    'status',
    'amount',
    'fee',
    'amount_actual',
    'amount_delta',
    'time',
    'time_type',
    'time_delta',
  ]);
  for (const [name, p] of Object.entries(props)) {
    const claim = (v: string) => JSON.stringify({ ...base, [name]: '@' }).replace('"@"', v);
    const good = p.enum
      ? JSON.stringify(p.enum[0])
      : p.type.includes('integer')
        ? String(p.maximum ?? p.minimum)
        : p.type.includes('number')
          ? '0.5'
          : '"x"';
    expect(issueOf(claim(good)), `${name}: ${good}`).toBeNull();
    const bad = [p.type.includes('string') ? '{}' : '"1"'];
    if (p.enum) bad.push('"not-a-word"');
    if (p.minimum !== undefined) bad.push(String(p.minimum - 1));
    if (p.maximum !== undefined) bad.push(String(p.maximum + 1));
    for (const v of bad) expect(issueOf(claim(v))?.path, `${name}: ${v}`).toEqual([name]);
  }
});
