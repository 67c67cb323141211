import { parse } from 'lossless-json';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect, test } from 'vitest';
import { isItemIssue, readVerifyItem, VERIFY_ITEM_JSON_SCHEMA } from './reconcile';

const base = { transaction_id: 'aaaaaaaa-0000-4000-8000-000000000001', amount: 1 };
const issueOf = (json: string) => {
  const r = readVerifyItem(parse(json));
  return isItemIssue(r) ? r : null;
};
const validate = new Ajv2020({ strict: false }).compile(VERIFY_ITEM_JSON_SCHEMA);

/** Values of each kind of field, good and bad, as JSON text. */
const SAMPLES = {
  text: ['"x"', '""', 'null', '1', '{}', 'true'],
  word: ['"Deposit"', '"deposit"', '"DEPOSIT"', '"Withdrawal"', '"Completed"', '"created"', '""', 'null', '"Depositx"', '" Deposit"', '1'],
  amount: ['1', '0.5', '-2', '1e3', '"12.5"', '"-3"', '"1e3"', '"1.5E-7"', '""', 'null', '"abc"', '" 1"', '"1."', '"+1"', '{}', 'true'],
  integer: ['0', '5', '-1', '253402300799', '253402300800', '9007199254740991', '9007199254740992', '"5"', '""', 'null', '1.5', 'true'],
};

test('the documented schema and the reader agree on every field: a claim the schema accepts is read, one it refuses is refused naming the field', () => {
  const props = VERIFY_ITEM_JSON_SCHEMA.properties as Record<string, unknown>;
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
  const kindOf = (name: string): keyof typeof SAMPLES =>
    ['type', 'status', 'time_type'].includes(name)
      ? 'word'
      : ['amount', 'fee', 'amount_actual', 'amount_delta'].includes(name)
        ? 'amount'
        : ['time', 'time_delta'].includes(name)
          ? 'integer'
          : 'text';
  let accepted = 0;
  for (const name of Object.keys(props)) {
    // The other fields keep the claim valid (an identifier and a field to compare), whatever this one holds.
    const others =
      name === 'transaction_id'
        ? { hash: '0xabc', chain_id: 'ETH' }
        : name === 'amount'
          ? { transaction_id: base.transaction_id, chain_id: 'ETH' }
          : base;
    for (const v of SAMPLES[kindOf(name)]) {
      const json = JSON.stringify({ ...others, [name]: '@' }).replace('"@"', v);
      const issue = issueOf(json);
      expect(validate(JSON.parse(json)), `${name}: ${v} (reader: ${issue?.message ?? 'read'})`).toBe(issue === null);
      if (issue) expect(issue.path, `${name}: ${v}`).toEqual([name]);
      else accepted++;
    }
  }
  expect(accepted).toBeGreaterThan(60);
});

test('the schema says the rules across fields: an identifier, a Deposit’s, and a field to compare', () => {
  for (const claim of [
    {},
    { amount: 1 },
    { transaction_id: '', hash: null, request_id: '', amount: 1 },
    { transaction_id: 'aaaaaaaa-0000-4000-8000-000000000001' },
    { transaction_id: 'aaaaaaaa-0000-4000-8000-000000000001', chain_id: '', amount: null, time_type: 'Created' },
    { request_id: 'r1', type: 'deposit', amount: 1 },
    { request_id: 'r1', type: 'Deposit', transaction_id: '', amount: 1 },
    { request_id: 'r1', type: 'Withdrawal', amount: 1 },
    { request_id: 'r1', amount: 1 },
    { hash: '0xabc', type: 'DEPOSIT' },
    { transaction_id: 'x', time: 0 },
    { transaction_id: 'x', time: '' },
  ]) {
    const json = JSON.stringify(claim);
    expect(validate(JSON.parse(json)), json).toBe(issueOf(json) === null);
  }
});
