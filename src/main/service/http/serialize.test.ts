import build from 'fast-json-stringify';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { VerifyResultsA, VerifyResultsB } from '../../../shared/reconcile';
import { envelopeBytes, envelopeSerializer, exactShapeTest, outputJsonSchema } from './serialize';

/*
 * Answers of exactly their schema's shape are written by JSON.stringify (serialize.ts says why):
 * they must be the very bytes the serializer compiled from the schema writes, and anything else
 * must still go to that serializer, failing or coerced as before.
 */

/** The serializer compiled from the schema, as every answer was written before. */
const compiledOnly = (schema: z.ZodType) => {
  const write = build({
    type: 'object',
    properties: { status: { type: 'integer' }, data: outputJsonSchema(schema), msg: { type: 'string' } },
    required: ['status', 'data', 'msg'],
    additionalProperties: false,
  });
  return (value: unknown) => write({ status: 0, data: value, msg: '' });
};

/** Whatever a call does: its text, or the error it throws. */
const outcome = (fn: () => string): string => {
  try {
    return fn();
  } catch (err) {
    return `threw ${(err as Error).message}`;
  }
};

const ODD = [
  '',
  'plain',
  'quote " and \\ back',
  'tab\tline\nbreak \u0001 \u001f',
  'é 中 😀',
  'lone \ud800 surrogate',
  'x'.repeat(60) + '"',
  'y'.repeat(5000),
];

const record = (i: number) => ({
  wallet_id: ODD[i % ODD.length]!,
  type: 'Deposit',
  status: 'Completed',
  amount: `${i}.000000000000000001`,
  to: ODD[(i + 1) % ODD.length]!,
  fee_ratio: '',
  fee_fixed: '',
  fee: '0.1',
  er: '',
  amount_actual: '',
  hash: `0x${'ab'.repeat(32)}`,
  chain_id: 'ETH',
  token_id: 'ETH_USDT',
  created_at: i % 3 === 0 ? null : 1_700_000_000 + i,
  confirmed_at: i % 2 === 0 ? null : -5,
  completed_at: Number.MAX_SAFE_INTEGER,
  transaction_id: `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`,
  request_id: ODD[(i + 2) % ODD.length]!,
});
const flags = (i: number) => ({
  chain_id_match: true,
  token_id_match: i % 2 === 0,
  to_match: true,
  status_match: true,
  type_match: true,
  amount_match: i % 3 !== 0,
  fee_match: true,
  amount_actual_match: true,
  time_match: true,
});
const resultsA = Array.from({ length: 24 }, (_, i) => ({
  ...flags(i),
  result: i % 3 !== 0 && i % 2 === 0,
  tx: i % 5 === 4 ? null : record(i),
  ticket_id: i % 3 === 0 ? `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, '0')}` : null,
}));

describe('answers of exactly their shape', () => {
  test('are the bytes the compiled serializer writes, odd strings, nulls, large and negative integers included', () => {
    const written = envelopeSerializer(VerifyResultsA)(resultsA);
    expect(exactShapeTest(outputJsonSchema(VerifyResultsA))!(resultsA)).toBe(true);
    expect(written).toBe(compiledOnly(VerifyResultsA)(resultsA));
    expect(JSON.parse(written)).toEqual({ status: 0, data: resultsA, msg: '' });
    const resultsB = resultsA.map(({ tx, ...r }) => ({
      ...r,
      data: tx && { ...tx, created_at: tx.created_at === null ? null : '2026-01-02T03:04:05.678Z', confirmed_at: null, completed_at: null },
    }));
    expect(envelopeSerializer(VerifyResultsB)(resultsB)).toBe(compiledOnly(VerifyResultsB)(resultsB));
    expect(envelopeSerializer(VerifyResultsA)([])).toBe('{"status":0,"data":[],"msg":""}');
    // As the HTTP door sends them: the same bytes, a long list written in pieces.
    for (const n of [0, 1, 63, 64, 65, 128, 129, 1000]) {
      const list = Array.from({ length: n }, (_, i) => resultsA[i % resultsA.length]!);
      const sent = envelopeBytes(VerifyResultsA)(list);
      expect(Buffer.from(sent).toString('utf8')).toBe(compiledOnly(VerifyResultsA)(list));
    }
  });

  test('anything else goes to the compiled serializer: a field missing, renamed, added or out of order, a wrong type, a Date', () => {
    const variants: unknown[] = [
      resultsA.map(({ ticket_id: _t, ...r }) => r),
      resultsA.map(({ ticket_id, ...r }) => ({ ...r, ticketId: ticket_id })),
      resultsA.map((r) => ({ ...r, extra: 1 })),
      resultsA.map(({ result, ...r }) => ({ result, ...r })),
      resultsA.map((r) => ({ ...r, tx: r.tx && { ...r.tx, created_at: 1.5 } })),
      resultsA.map((r) => ({ ...r, tx: r.tx && { ...r.tx, amount: 12 } })),
      resultsA.map((r) => ({ ...r, tx: r.tx && { ...r.tx, created_at: Number.NaN } })),
      resultsA.map((r) => ({ ...r, tx: r.tx && { ...r.tx, hash: new Date(0) } })),
      resultsA.map((r) => ({ ...r, result: 1 })),
      resultsA.map((r) => Object.assign(Object.create({ inherited: true }) as object, r)),
      null,
      { not: 'a list' },
    ];
    const test = exactShapeTest(outputJsonSchema(VerifyResultsA))!;
    for (const v of variants) {
      expect(test(v)).toBe(false);
      expect(outcome(() => envelopeSerializer(VerifyResultsA)(v))).toBe(outcome(() => compiledOnly(VerifyResultsA)(v)));
      expect(outcome(() => String(envelopeBytes(VerifyResultsA)(v)))).toBe(outcome(() => compiledOnly(VerifyResultsA)(v)));
    }
  });

  test('a schema using any other keyword has no such test: all its values go to the compiled serializer', () => {
    expect(exactShapeTest(outputJsonSchema(z.union([z.object({ a: z.string() }), z.object({ b: z.number() })])))).toBeUndefined();
    expect(exactShapeTest(outputJsonSchema(z.object({ at: z.iso.datetime() })))).toBeUndefined();
    expect(exactShapeTest(outputJsonSchema(z.object({ list: z.tuple([z.string(), z.number()]) })))).toBeUndefined();
    expect(exactShapeTest(outputJsonSchema(z.object({ a: z.string(), b: z.number().nullable() })))).toBeTypeOf('function');
    // One of several types, each written as JSON.stringify writes it.
    const either = z.array(z.union([z.string(), z.number()]));
    expect(exactShapeTest(outputJsonSchema(either))).toBeTypeOf('function');
    for (const v of [['5', 5, 1.5, 'x"'], [Number.NaN], [true]])
      expect(outcome(() => envelopeSerializer(either)(v))).toBe(outcome(() => compiledOnly(either)(v)));
  });
});
