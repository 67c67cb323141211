import { parse } from 'lossless-json';
import Big from 'big.js';
import { describe, expect, test } from 'vitest';
import type { TransactionRecord } from '../../../shared/ledger';
import {
  FLAG_FIELDS,
  isItemIssue,
  MATCH_FLAGS,
  matchFlagOf,
  readVerifyItem,
  type FlagField,
  type VerifyItem,
} from '../../../shared/reconcile';
import { abnormalFields, describeMismatch, humanTime, identifiersAgree, lookupKey, matchClaim, recordShapeA, recordShapeB } from './match';
import { fixtureRecord } from './fixtures.test-support';

const W = '11111111-1111-4111-8111-111111111111';
const TX = 'aaaaaaaa-0000-4000-8000-000000000001';
const EVM_TO = '0x52908400098527886E0F7030069857D2E4169EE7';
const T0 = Date.UTC(2026, 0, 2, 3, 4, 5); // 2026-01-02T03:04:05Z
const isEvm = (chain: string) => chain === 'ETH' || chain === 'BSC_BNB';

const record: TransactionRecord = fixtureRecord({
  transaction_id: TX,
  wallet_id: W,
  request_id: 'req-1',
  type: 'Withdrawal',
  status: 'Completed',
  amount: '100.25',
  to: EVM_TO,
  fee: '0.5',
  amount_actual: '99.75',
  hash: '0x' + 'ab'.repeat(32),
  chain_id: 'ETH',
  token_id: 'ETH_USDT',
  created_at: T0,
  confirmed_at: T0 + 30_000,
  completed_at: null,
});

/** A claim as the JSON body parser hands it over: numbers keep their text. */
const claim = (json: string): VerifyItem => {
  const item = readVerifyItem(parse(json));
  if (isItemIssue(item)) throw new Error(`${item.path.join('.')}: ${item.message}`);
  return item;
};
const withId = (fields: string) => claim(`{"transaction_id":"${TX}",${fields}}`);
const only = (field: FlagField, value: boolean) => Object.fromEntries(FLAG_FIELDS.map((f) => [matchFlagOf(f), f === field ? value : true]));

describe('each flag, true and false', () => {
  const cases: [string, FlagField, boolean][] = [
    ['"chain_id":"ETH"', 'chain_id', true],
    ['"chain_id":"BSC_BNB"', 'chain_id', false],
    ['"chain_id":"eth"', 'chain_id', false],
    ['"token_id":"ETH_USDT"', 'token_id', true],
    ['"token_id":"eth_usdt"', 'token_id', false],
    [`"to":"${EVM_TO}"`, 'to', true],
    [`"to":"${EVM_TO.toLowerCase()}"`, 'to', true],
    [`"to":"${EVM_TO.slice(0, -1)}8"`, 'to', false],
    ['"status":"Completed"', 'status', true],
    ['"status":"COMPLETED"', 'status', true],
    ['"status":"Failed"', 'status', false],
    ['"type":"withdrawal"', 'type', true],
    ['"type":"Deposit","hash":"0x' + 'ab'.repeat(32) + '"', 'type', false],
    ['"amount":100.25', 'amount', true],
    ['"amount":"100.251"', 'amount', true],
    ['"amount":100.2511', 'amount', false],
    ['"fee":0.5', 'fee', true],
    ['"fee":0.502', 'fee', false],
    ['"amount_actual":"99.75"', 'amount_actual', true],
    ['"amount_actual":"99.7489"', 'amount_actual', false],
    [`"time":${T0 / 1000}`, 'time', true],
    [`"time":${T0 / 1000 + 11}`, 'time', false],
  ];
  test.each(cases)('%s -> %s %s', (fields, field, expected) => {
    const out = matchClaim(withId(fields), [record], isEvm);
    expect(out.record).toBe(record);
    expect(out.flags).toEqual(only(field, expected));
    expect(out.result).toBe(expected);
  });

  test('a field not given is true; every field agreeing gives result true', () => {
    const out = matchClaim(
      withId(
        `"chain_id":"ETH","token_id":"ETH_USDT","to":"${EVM_TO}","status":"completed","type":"Withdrawal","amount":100.25,"fee":"0.5","amount_actual":99.75,"time":${T0 / 1000}`,
      ),
      [record],
      isEvm,
    );
    expect(out.result).toBe(true);
    expect(Object.values(out.flags).every(Boolean)).toBe(true);
  });
});

describe('tolerances are inclusive at the boundary', () => {
  test.each([
    ['"amount":"100.251"', true],
    ['"amount":"100.249"', true],
    ['"amount":"100.2510000000000001"', false],
    ['"amount":"100.35","amount_delta":0.1', true],
    ['"amount":"100.3500001","amount_delta":"0.1"', false],
    ['"amount":"100.25","amount_delta":0', true],
    ['"amount":"100.2500000001","amount_delta":0', false],
  ])('%s -> %s', (fields, expected) => {
    expect(matchClaim(withId(fields), [record], isEvm).flags.amount_match).toBe(expected);
  });

  test.each([
    [T0 / 1000 + 10, 10, true],
    [T0 / 1000 - 10, 10, true],
    [T0 / 1000 + 11, 10, false],
    [T0 / 1000 - 11, 10, false],
    [T0 / 1000, 0, true],
    [T0 / 1000 + 1, 0, false],
    [T0 / 1000 + 3600, 3600, true],
  ])('time %d with time_delta %d -> %s', (time, delta, expected) => {
    expect(matchClaim(withId(`"time":${time},"time_delta":${delta}`), [record], isEvm).flags.time_match).toBe(expected);
  });

  test('time_type picks the moment: Confirmed is 30 s after Created', () => {
    expect(matchClaim(withId(`"time":${T0 / 1000 + 30},"time_type":"Confirmed","time_delta":0`), [record], isEvm).flags.time_match).toBe(
      true,
    );
    expect(matchClaim(withId(`"time":${T0 / 1000 + 30},"time_delta":0`), [record], isEvm).flags.time_match).toBe(false);
  });

  test('a moment not recorded is false, whatever the tolerance', () => {
    expect(matchClaim(withId(`"time":${T0 / 1000},"time_type":"Completed","time_delta":1000000`), [record], isEvm).flags.time_match).toBe(
      false,
    );
  });

  test('stored milliseconds compare as the whole second Shape A shows', () => {
    const ms = { ...record, created_at: T0 + 999 };
    expect(matchClaim(withId(`"time":${T0 / 1000},"time_delta":0`), [ms], isEvm).flags.time_match).toBe(true);
  });
});

describe('exact decimals', () => {
  test('0.1 + 0.2 claimed against a recorded 0.3 matches with no tolerance', () => {
    const r = { ...record, amount: '0.3', fee: '0.1', amount_actual: '0.2' };
    const out = matchClaim(withId('"amount":0.3,"fee":0.1,"amount_actual":0.2,"amount_delta":0'), [r], isEvm);
    expect(out.result).toBe(true);
  });

  test('an amount read through binary floating point would differ: 0.30000000000000004 does not match 0.3 at tolerance 0', () => {
    const r = { ...record, amount: '0.3' };
    expect(matchClaim(withId('"amount":0.30000000000000004,"amount_delta":0'), [r], isEvm).flags.amount_match).toBe(false);
  });

  test('18-decimal amounts off by one unit are told apart', () => {
    const r = { ...record, amount: '1234.567890123456789012' };
    expect(matchClaim(withId('"amount":1234.567890123456789012,"amount_delta":0'), [r], isEvm).flags.amount_match).toBe(true);
    expect(matchClaim(withId('"amount":1234.567890123456789013,"amount_delta":0'), [r], isEvm).flags.amount_match).toBe(false);
    expect(
      matchClaim(withId('"amount":"1234.567890123456789013","amount_delta":"0.000000000000000001"'), [r], isEvm).flags.amount_match,
    ).toBe(true);
  });

  test('scientific notation is exact too', () => {
    const r = { ...record, fee: '0.00000015' };
    expect(matchClaim(withId('"fee":1.5e-7,"amount_delta":0'), [r], isEvm).flags.fee_match).toBe(true);
  });

  test('a fee claimed where none is recorded is false', () => {
    expect(matchClaim(withId('"fee":0'), [{ ...record, fee: '' }], isEvm).flags.fee_match).toBe(false);
  });
});

describe('case rules for to', () => {
  test('exact on a chain that is not EVM', () => {
    const tron = { ...record, chain_id: 'TRON', to: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' };
    expect(matchClaim(withId('"to":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"'), [tron], isEvm).flags.to_match).toBe(true);
    expect(matchClaim(withId('"to":"tr7nhqjekqxgtci8q8zy4pl8otszgjlj6t"'), [tron], isEvm).flags.to_match).toBe(false);
  });
  test('a to claimed where none is recorded is false', () => {
    expect(matchClaim(withId(`"to":"${EVM_TO}"`), [{ ...record, to: '' }], isEvm).flags.to_match).toBe(false);
  });
  test('on an EVM chain, case-insensitive as JavaScript lower-cases text, beyond ASCII too', () => {
    const to = (claimed: string, recorded: string) =>
      matchClaim(withId(`"to":"${claimed}"`), [{ ...record, to: recorded }], isEvm).flags.to_match;
    expect(to(EVM_TO.toLowerCase(), EVM_TO)).toBe(true);
    expect(to(EVM_TO.toUpperCase(), EVM_TO.toLowerCase())).toBe(true);
    expect(to(EVM_TO.toLowerCase().replace(/.$/, 'f'), EVM_TO)).toBe(false);
    expect(to(`${EVM_TO}0`, EVM_TO)).toBe(false);
    // Letters outside ASCII fold as toLowerCase folds them: the Kelvin sign is a k, a capital sharp s is not ss.
    expect(to('0x\u212aab', '0xkAB')).toBe(true);
    expect(to('0x\u00c9t\u00e9', '0X\u00e9T\u00c9')).toBe(true);
    expect(to('0x\u1e9e', '0xss')).toBe(false);
    expect(to('0x\u0130', '0xi')).toBe(false);
  });
});

describe('lookup and identifiers', () => {
  test('order: transaction_id, else hash, else request_id', () => {
    expect(lookupKey(claim(`{"transaction_id":"${TX}","hash":"0x1","request_id":"r","amount":1}`)).by).toBe('transaction_id');
    expect(lookupKey(claim('{"hash":"0x1","request_id":"r","amount":1}')).by).toBe('hash');
    expect(lookupKey(claim('{"request_id":"r","amount":1}')).by).toBe('request_id');
  });

  test.each([
    [`{"transaction_id":"${TX}","request_id":"req-2","amount":1}`, false],
    [`{"transaction_id":"${TX}","request_id":"req-1","amount":1}`, true],
    [`{"transaction_id":"${TX}","hash":"0x${'cd'.repeat(32)}","amount":1}`, false],
    [`{"transaction_id":"${TX.toUpperCase()}","hash":"0x${'AB'.repeat(32)}","amount":1}`, true],
    [`{"hash":"${'ab'.repeat(32)}","amount":1}`, true],
    [`{"hash":"0x${'ab'.repeat(32)}","chain_id":"BSC_BNB","amount":1}`, false],
    [`{"transaction_id":"${TX}","chain_id":"BSC_BNB","amount":1}`, true],
    [`{"request_id":"REQ-1","amount":1}`, false],
  ])('%s agrees: %s', (json, agrees) => {
    expect(identifiersAgree(claim(json), record)).toBe(agrees);
  });

  test('identifiers that disagree: not found, every flag false, no record', () => {
    const out = matchClaim(withId('"request_id":"someone-else","amount":100.25'), [record], isEvm);
    expect(out).toEqual({ record: null, result: false, flags: Object.fromEntries(MATCH_FLAGS.map((f) => [f, false])) });
  });

  test('the flags carry the source names, in its order', () => {
    expect(Object.keys(matchClaim(withId('"amount":1'), [record], isEvm).flags)).toEqual([
      'chain_id_match',
      'token_id_match',
      'to_match',
      'status_match',
      'type_match',
      'amount_match',
      'fee_match',
      'amount_actual_match',
      'time_match',
    ]);
  });

  test('nothing to look at: not found', () => {
    expect(matchClaim(withId('"amount":1'), [], isEvm).record).toBeNull();
  });

  test('one hash with an ETH transfer and two token transfers: token_id picks, then amount, then to, then the first', () => {
    const hash = '0x' + 'cd'.repeat(32);
    const at = (n: number) => T0 + n * 1000;
    const eth = {
      ...record,
      transaction_id: 'bbbbbbbb-0000-4000-8000-000000000001',
      hash,
      token_id: 'ETH',
      amount: '5',
      to: '0x' + '1'.repeat(40),
      created_at: at(0),
    };
    const usdt = {
      ...record,
      transaction_id: 'bbbbbbbb-0000-4000-8000-000000000002',
      hash,
      token_id: 'ETH_USDT',
      amount: '7',
      to: '0x' + '2'.repeat(40),
      created_at: at(0),
    };
    const usdt2 = {
      ...record,
      transaction_id: 'bbbbbbbb-0000-4000-8000-000000000003',
      hash,
      token_id: 'ETH_USDT',
      amount: '9',
      to: '0x' + '3'.repeat(40),
      created_at: at(0),
    };
    const all = [usdt2, eth, usdt];
    const pick = (json: string) => matchClaim(claim(`{"hash":"${hash}",${json}}`), all, isEvm);
    // The claim names USDT with the ETH transfer's amount: checked against a USDT transfer (a mismatch), not the ETH one.
    expect(pick('"token_id":"ETH_USDT","amount":5').record).toBe(usdt);
    expect(pick('"token_id":"ETH_USDT","amount":5').result).toBe(false);
    // Two USDT transfers: `to` tells them apart.
    expect(pick(`"token_id":"ETH_USDT","to":"0x${'3'.repeat(40)}","amount":9`)).toMatchObject({ record: usdt2, result: true });
    expect(pick('"token_id":"ETH","amount":5')).toMatchObject({ record: eth, result: true });
    // No token named: the amount tells which transfer the claim is about.
    expect(pick('"amount":9')).toMatchObject({ record: usdt2, result: true });
    // Nothing tells them apart: the first of the hash's movements.
    expect(pick('"status":"Completed"').record).toBe(eth);
  });

  test('a swap under one hash: gas record, internal deposit and two token transfers each pair with their own claim', () => {
    const hash = '0x' + 'ef'.repeat(32);
    const me = '0x' + 'a'.repeat(40);
    const leg = (n: number, r: Partial<typeof record>) => ({
      ...record,
      transaction_id: `cccccccc-0000-4000-8000-00000000000${n}`,
      hash,
      fee: '',
      created_at: T0,
      ...r,
    });
    const gasRecord = leg(1, { type: 'Withdrawal', token_id: 'ETH', amount: '0', fee: '0.00375381', to: '0x' + '7'.repeat(40) });
    const internal = leg(2, { type: 'Deposit', token_id: 'ETH', amount: '1.782983790365391295', to: me });
    const uniOut = leg(3, { type: 'Withdrawal', token_id: 'ETH_UNI', amount: '200', to: '0x' + 'd'.repeat(40) });
    const lpIn = leg(4, { type: 'Deposit', token_id: 'ETH_UNI_V2', amount: '10.287331769492714639', to: me });
    const all = [uniOut, lpIn, gasRecord, internal];
    const pick = (json: string) => matchClaim(claim(`{"hash":"${hash}",${json}}`), all, isEvm);
    // "ETH in 1.78": the internal deposit, never the 0-ETH gas record of the same hash and token.
    expect(pick('"token_id":"ETH","type":"Deposit","amount":"1.782983790365391295"')).toMatchObject({ record: internal, result: true });
    // The same without a type: a claim that moves an amount never pairs with a record of gas alone.
    expect(pick('"token_id":"ETH","amount":"1.782983790365391295"')).toMatchObject({ record: internal, result: true });
    // A line of gas alone (a fee, no amount) pairs with the record that pays the fee.
    expect(pick('"token_id":"ETH","type":"Withdrawal","amount":"0","fee":"0.00375381"')).toMatchObject({ record: gasRecord, result: true });
    expect(pick('"fee":"0.00375381"')).toMatchObject({ record: gasRecord, result: true });
    expect(pick('"token_id":"ETH_UNI","type":"Withdrawal","amount":"200"')).toMatchObject({ record: uniOut, result: true });
    expect(pick('"token_id":"ETH_UNI_V2","type":"Deposit","amount":"10.287331769492714639"')).toMatchObject({ record: lpIn, result: true });
    // "ETH in 1.5": the deposit of the hash, its amount a mismatch; never the gas record, whose token and type also fit less.
    expect(pick('"token_id":"ETH","type":"Deposit","amount":"1.5"')).toMatchObject({ record: internal, result: false });
    // A hash with only its gas record: a claim that something moved is compared with it (an amount mismatch).
    expect(matchClaim(claim(`{"hash":"${hash}","token_id":"ETH","amount":"1"}`), [gasRecord], isEvm)).toMatchObject({
      record: gasRecord,
      flags: { amount_match: false },
    });
  });

  test('a gas claim compares the fee of a record that also moved an amount, not its amount', () => {
    const hash = '0x' + 'ab'.repeat(32);
    const paid = { ...record, hash, token_id: 'ETH', amount: '3.088134170906991928', fee: '0.009330179599786146' };
    expect(
      matchClaim(claim(`{"hash":"${hash}","type":"Withdrawal","amount":"0","fee":"0.009330179599786146"}`), [paid], isEvm),
    ).toMatchObject({
      record: paid,
      result: true,
    });
    expect(matchClaim(claim(`{"hash":"${hash}","fee":"0.02"}`), [paid], isEvm)).toMatchObject({
      result: false,
      flags: { fee_match: false, amount_match: true },
    });
  });

  test('in a books run a record booked already gives way to an equal one that is not; the best one taken is a duplicate', () => {
    const hash = '0x' + '12'.repeat(32);
    const a = { ...record, transaction_id: 'dddddddd-0000-4000-8000-000000000001', hash, token_id: 'ETH_UNI', amount: '200' };
    const b = { ...record, transaction_id: 'dddddddd-0000-4000-8000-000000000002', hash, token_id: 'ETH_UNI', amount: '200' };
    const c = claim(`{"hash":"${hash}","token_id":"ETH_UNI","amount":"200"}`);
    expect(matchClaim(c, [a, b], isEvm, (r) => r === a)).toMatchObject({ record: b, result: true });
    expect(matchClaim(c, [a, b], isEvm, () => true)).toMatchObject({ record: a, taken: true });
  });

  test('a day claimed agrees with any moment of that day, and none outside it', () => {
    const day = Date.UTC(2020, 9, 9) / 1000;
    const r = (h: number, m = 0) => ({ ...record, created_at: Date.UTC(2020, 9, 9, h, m) });
    const onDay = { ...claim(`{"transaction_id":"${record.transaction_id}","time":${day}}`), time_until: day + 86_400 };
    expect(matchClaim(onDay, [r(0)], isEvm).result).toBe(true);
    expect(matchClaim(onDay, [r(23, 59)], isEvm).result).toBe(true);
    expect(matchClaim(onDay, [r(24)], isEvm).flags.time_match).toBe(false);
    expect(matchClaim(onDay, [{ ...record, created_at: day * 1000 - 1 }], isEvm).flags.time_match).toBe(false);
  });

  test('several records behind one hash: the claim is checked against the one it describes', () => {
    const a = { ...record, transaction_id: 'aaaaaaaa-0000-4000-8000-00000000000a', amount: '5', to: '0x' + '1'.repeat(40) };
    const b = { ...record, transaction_id: 'aaaaaaaa-0000-4000-8000-00000000000b', amount: '7', to: '0x' + '2'.repeat(40) };
    const out = matchClaim(claim(`{"hash":"${record.hash}","amount":7,"to":"0x${'2'.repeat(40)}"}`), [a, b], isEvm);
    expect(out.record).toBe(b);
    expect(out.result).toBe(true);
  });
});

describe('source rule 2: request_id does not apply to a Deposit', () => {
  const deposit = { ...record, type: 'Deposit' as const };

  test('a Deposit claim drops its request_id: matched on transaction_id whatever request_id says', () => {
    const item = withId('"type":"deposit","request_id":"someone-else","amount":100.25');
    expect(item.request_id).toBeUndefined();
    expect(matchClaim(item, [deposit], isEvm).result).toBe(true);
  });

  test('request_id alone cannot identify a Deposit (1002 on request_id)', () => {
    expect(readVerifyItem(parse('{"type":"Deposit","request_id":"req-1","amount":1}'))).toEqual({
      path: ['request_id'],
      message: 'cannot be the only identifier of a Deposit; give transaction_id or hash',
    });
    expect(readVerifyItem(parse('{"type":"Deposit","request_id":"req-1","hash":"0x1","amount":1}'))).not.toHaveProperty('message');
  });

  test('a claim without type: request_id is not compared with a Deposit record, but is with a Withdrawal', () => {
    const item = withId('"request_id":"someone-else","amount":100.25');
    expect(matchClaim(item, [deposit], isEvm).result).toBe(true);
    expect(matchClaim(item, [record], isEvm).record).toBeNull();
  });
});

describe('abnormals and desc', () => {
  test('abnormals follow the documented order whatever the claim order', () => {
    const out = matchClaim(withId(`"time":${T0 / 1000 + 100},"amount":"1","to":"0x${'9'.repeat(40)}","chain_id":"TRON"`), [record], isEvm);
    expect(abnormalFields(out.flags)).toEqual(['chain_id', 'to', 'amount', 'time']);
  });

  test('desc says, per field, what was claimed and what is recorded', () => {
    const item = withId(`"amount":100.5,"time":${T0 / 1000 + 120},"status":"Failed","fee":"1"`);
    const out = matchClaim(item, [{ ...record, fee: '' }], isEvm);
    expect(describeMismatch(item, { ...record, fee: '' }, out.flags)).toBe(
      'status: claimed Failed, recorded Completed; ' +
        'amount: claimed 100.5, recorded 100.25 (off by 0.25, tolerance 0.001); ' +
        'fee: claimed 1, recorded nothing (tolerance 0.001); ' +
        'time: claimed 2026-01-02T03:06:05Z, recorded 2026-01-02T03:04:05Z as created_at (off by 120 s, tolerance 10 s)',
    );
  });

  test('desc names a moment that is not recorded', () => {
    const item = withId(`"time":${T0 / 1000},"time_type":"Completed"`);
    const out = matchClaim(item, [record], isEvm);
    expect(describeMismatch(item, record, out.flags)).toBe('time: claimed 2026-01-02T03:04:05Z, recorded nothing (no completed_at)');
  });

  test('humanTime shows milliseconds only when there are some', () => {
    expect(humanTime(T0)).toBe('2026-01-02T03:04:05Z');
    expect(humanTime(T0 + 7)).toBe('2026-01-02T03:04:05.007Z');
  });
});

describe('record shapes', () => {
  test('Shape A: whole Unix seconds; Shape B: ISO 8601 UTC with milliseconds; import bookkeeping left out', () => {
    const r = { ...record, created_at: T0 + 250, import_id: 'imp', updated_at: 5 };
    const a = recordShapeA(r);
    const b = recordShapeB(r);
    expect(a.created_at).toBe(T0 / 1000);
    expect(a.confirmed_at).toBe(T0 / 1000 + 30);
    expect(a.completed_at).toBeNull();
    expect(b.created_at).toBe('2026-01-02T03:04:05.250Z');
    expect(b.confirmed_at).toBe('2026-01-02T03:04:35.000Z');
    expect(b.completed_at).toBeNull();
    expect(a).not.toHaveProperty('import_id');
    expect(b).not.toHaveProperty('updated_at');
    expect(a.amount).toBe('100.25');
  });
});

describe('amounts compare exactly, as big.js computes them', () => {
  test('within amount_delta or not, and the difference the description names, for amounts of every scale and form', () => {
    const amounts = [
      '0',
      '-0',
      '1',
      '100',
      '100.25',
      '100.250000000000000001',
      '0.000000000000000001',
      '-5.5',
      '007.50',
      '123456789012345678901234.5',
      '1.999999999999999999',
    ];
    // The ledger may hold an amount in another form; one that is no number is never within any tolerance.
    const recorded = [...amounts, '1e-7', '1.5E3', '-2.5e+2', 'abc'];
    const deltas = ['0', '0.000000000000000001', '0.25', '1', '100', '1e-18'];
    let compared = 0;
    for (const c of amounts)
      for (const r of recorded)
        for (const d of deltas) {
          const read = readVerifyItem(parse(`{"transaction_id":"${TX}","amount":"${c}","amount_delta":"${d}"}`));
          // A claim's amount is a plain decimal once read; one the reader refuses is no claim.
          if (isItemIssue(read)) continue;
          const item = read;
          compared++;
          const out = matchClaim(item, [{ ...record, amount: r }], isEvm);
          let diff: Big | null;
          try {
            diff = new Big(item.amount!).minus(new Big(r)).abs();
          } catch {
            diff = null;
          }
          const within = diff !== null && diff.lte(new Big(item.amount_delta));
          expect([c, r, d, out.flags.amount_match]).toEqual([c, r, d, within]);
          if (!within)
            expect(describeMismatch(item, { ...record, amount: r }, out.flags)).toBe(
              `amount: claimed ${item.amount!}, recorded ${r} (${diff === null ? '' : `off by ${diff.toFixed()}, `}tolerance ${item.amount_delta})`,
            );
        }
    expect(compared).toBeGreaterThan(500);
  });
});
