import { afterAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { AddressVerifyResult } from '../../../shared/address';
import { Chain, ChainPage, Token, TokenPage } from '../../../shared/catalogue';
import { VerifyResultA, VerifyResultB, VerifyResultsA } from '../../../shared/reconcile';
import { TicketPublic } from '../../../shared/tickets';
import { insertRecords } from '../reconcile/fixtures.test-support';
import { tempService } from '../test-support';
import { envelopeSerializer, outputJsonSchema } from './serialize';

/*
 * The source description's resource tables (docs/api.md, "Resources"), copied here as
 * data: field and JSON type, in the source's order. Each strict contract schema must carry exactly
 * these fields first, in this order, with these types; anything after them is an addition and says
 * so. Renaming any one field of the contract to another name, nesting the flags in an object or
 * naming a page's array otherwise fails here.
 */

type JsonType = 'string' | 'integer' | 'boolean' | 'object' | 'array';
type SourceTable = readonly (readonly [field: string, type: JsonType])[];

const SOURCE = {
  Token: [
    ['chain_id', 'string'],
    ['token_id', 'string'],
    ['symbol', 'string'],
    ['contract_address', 'string'],
    ['decimal', 'integer'],
    ['dust_threshold', 'string'],
    ['can_deposit', 'boolean'],
    ['can_withdraw', 'boolean'],
  ],
  Chain: [
    ['chain_id', 'string'],
    ['chain_identifier', 'string'],
    ['native_token_id', 'string'],
    ['confirming_threshold', 'integer'],
    ['explorer_tx_url', 'string'],
    ['explorer_address_url', 'string'],
    ['enabled', 'boolean'],
  ],
  TokensData: [
    ['total', 'integer'],
    ['tokens', 'array'],
  ],
  ChainsData: [
    ['total', 'integer'],
    ['chains', 'array'],
  ],
  AddressResult: [
    ['is_valid', 'boolean'],
    ['address', 'string'],
  ],
  /** Times are "integer or string": Shape A's integer, Shape B's string, each checked below. */
  TransactionRecord: [
    ['wallet_id', 'string'],
    ['type', 'string'],
    ['status', 'string'],
    ['amount', 'string'],
    ['to', 'string'],
    ['fee_ratio', 'string'],
    ['fee_fixed', 'string'],
    ['fee', 'string'],
    ['er', 'string'],
    ['amount_actual', 'string'],
    ['hash', 'string'],
    ['chain_id', 'string'],
    ['token_id', 'string'],
  ],
  TransactionTimes: ['created_at', 'confirmed_at', 'completed_at'],
  VerificationResult: [
    ['chain_id_match', 'boolean'],
    ['token_id_match', 'boolean'],
    ['to_match', 'boolean'],
    ['status_match', 'boolean'],
    ['type_match', 'boolean'],
    ['amount_match', 'boolean'],
    ['fee_match', 'boolean'],
    ['amount_actual_match', 'boolean'],
    ['time_match', 'boolean'],
    ['result', 'boolean'],
  ],
  Ticket: [
    ['ticket_id', 'string'],
    ['transaction_id', 'string'],
    ['abnormals', 'string'],
    ['desc', 'string'],
    ['status', 'string'],
    ['created_at', 'integer'],
    ['updated_at', 'integer'],
  ],
} as const satisfies Record<string, SourceTable | readonly string[]>;

interface Property {
  type?: string | string[];
  'x-addition'?: boolean;
  description?: string;
}
const propertiesOf = (schema: z.ZodType) => outputJsonSchema(schema).properties as Record<string, Property>;
const typesOf = (p: Property) => (Array.isArray(p.type) ? p.type : [p.type]);

/** The schema's fields begin with the table's, in order and of its types; the rest are marked additions. */
function expectSourceFields(schema: z.ZodType, table: SourceTable, after: readonly string[] = []) {
  const props = propertiesOf(schema);
  const names = Object.keys(props);
  expect(names.slice(0, table.length)).toEqual(table.map(([f]) => f));
  for (const [field, type] of table) expect(typesOf(props[field]!), field).toContain(type);
  const rest = names.slice(table.length + after.length);
  expect(names.slice(table.length, table.length + after.length)).toEqual(after);
  for (const field of rest) {
    expect(props[field]!['x-addition'], `${field} is an addition and must say so`).toBe(true);
    expect(props[field]!.description).toMatch(/^Addition/);
  }
  // Strict: an answer with a key the contract does not list does not parse.
  const out = outputJsonSchema(schema) as { additionalProperties?: boolean; required?: string[] };
  expect(out.additionalProperties).toBe(false);
  expect(out.required).toEqual(names);
}

describe("the contract schemas carry the source description's names and types", () => {
  test('Token and Chain', () => {
    expectSourceFields(Token, SOURCE.Token);
    expectSourceFields(Chain, SOURCE.Chain);
  });

  test('the catalogue pages: data = {total, tokens} and {total, chains}', () => {
    expectSourceFields(TokenPage, SOURCE.TokensData);
    expectSourceFields(ChainPage, SOURCE.ChainsData);
  });

  test('the address result is exactly {is_valid, address}', () => {
    expectSourceFields(AddressVerifyResult, SOURCE.AddressResult);
    expect(Object.keys(propertiesOf(AddressVerifyResult))).toHaveLength(2);
  });

  test('verification results: the flags and result at the top, then tx (A) or data (B), then additions', () => {
    expectSourceFields(VerifyResultA, SOURCE.VerificationResult, ['tx']);
    expectSourceFields(VerifyResultB, SOURCE.VerificationResult, ['data']);
  });

  test("the transaction record: the source's sixteen fields in its order; times integer in Shape A and string in Shape B; text never null", () => {
    const a = propertiesOf(VerifyResultA).tx as { properties: Record<string, Property> };
    const b = propertiesOf(VerifyResultB).data as { properties: Record<string, Property> };
    const recordA = VerifyResultA.shape.tx.unwrap();
    const recordB = VerifyResultB.shape.data.unwrap();
    expectSourceFields(recordA, [...SOURCE.TransactionRecord, ...SOURCE.TransactionTimes.map((f) => [f, 'integer'] as const)]);
    expectSourceFields(recordB, [...SOURCE.TransactionRecord, ...SOURCE.TransactionTimes.map((f) => [f, 'string'] as const)]);
    for (const [field] of SOURCE.TransactionRecord) {
      expect(typesOf(a.properties[field]!), field).not.toContain('null');
      expect(typesOf(b.properties[field]!), field).not.toContain('null');
    }
    expect(Object.keys(a.properties).slice(16)).toEqual(['transaction_id', 'request_id']);
  });

  test('the ticket: its seven fields, then additions', () => {
    expectSourceFields(TicketPublic, SOURCE.Ticket);
  });
});

describe('answers are written by the serializer compiled from the schema, which guards the names', () => {
  const svc = tempService();
  afterAll(() => svc.dispose());
  const W = '11111111-1111-4111-8111-111111111111';
  const TX = 'aaaaaaaa-0000-4000-8000-000000000001';

  /** A copy of an object schema with one field renamed (its value schema kept). */
  const renamed = <S extends z.ZodObject>(schema: S, from: string, to: string) =>
    z.strictObject(Object.fromEntries(Object.entries(schema.shape).map(([k, v]) => [k === from ? to : k, v])) as z.ZodRawShape);

  test('a real catalogue page written by its schema is the same JSON, key for key, as the values', async () => {
    const page = await svc.invoke('catalogue-chains-list', { chain_id: 'ETH' }, { actor: 'api' });
    const text = envelopeSerializer(ChainPage)(page);
    expect(text).toBe(JSON.stringify({ status: 0, data: page, msg: '' }));
  });

  test('a schema with one field renamed cannot write the real answer: it fails instead of sending a wrong name', async () => {
    const page = await svc.invoke('catalogue-chains-list', { chain_id: 'ETH' }, { actor: 'api' });
    const bad = z.strictObject({ ...ChainPage.shape, chains: z.array(renamed(Chain, 'confirming_threshold', 'threshold')) });
    expect(() => envelopeSerializer(bad)(page)).toThrow(/"threshold" is required/);

    insertRecords(svc.ctx.db, [{ transaction_id: TX, wallet_id: W, amount: '1.5', created_at: 1_767_323_045_250 }]);
    const results = await svc.invoke(
      'reconcile-verify-txs',
      { txs: [{ transaction_id: TX, amount: '1.5' }], shape: 'A' },
      { actor: 'api' },
    );
    expect(envelopeSerializer(VerifyResultsA)(results)).toBe(JSON.stringify({ status: 0, data: results, msg: '' }));
    const badRecord = z.array(renamed(VerifyResultA, 'amount_match', 'amount_flag'));
    expect(() => envelopeSerializer(badRecord)(results)).toThrow(/"amount_flag" is required/);
    const badTx = z.array(
      z.strictObject({ ...VerifyResultA.shape, tx: renamed(VerifyResultA.shape.tx.unwrap(), 'fee_ratio', 'feeRatio').nullable() }),
    );
    expect(() => envelopeSerializer(badTx)(results)).toThrow(/"feeRatio" is required/);
  });
});
