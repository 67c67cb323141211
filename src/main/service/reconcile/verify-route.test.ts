import { strictAnswers } from '../http/answers.test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { buildServer } from '../http/server';
import { signedInject } from '../http/signed.test-support';
import { tempService } from '../test-support';
import { insertRecords } from './fixtures.test-support';

const W1 = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';
const TX1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const TX2 = 'aaaaaaaa-0000-4000-8000-000000000002';
const TX3 = 'aaaaaaaa-0000-4000-8000-000000000003';
const HASH1 = '0x' + '1a'.repeat(32);
const T = Date.UTC(2026, 0, 2, 3, 4, 5);
const VERIFY = '/nps/bill/verify/txs';

let clock = T;
const svc = tempService({ now: () => clock });
const app = buildServer(svc, { log: () => {}, rateLimit: false });
strictAnswers(app);
let secret: string;

beforeAll(async () => {
  insertRecords(svc.ctx.db, [
    {
      transaction_id: TX1,
      wallet_id: W1,
      request_id: 'req-1',
      hash: HASH1,
      type: 'Withdrawal',
      amount: '0.3',
      fee: '0.000000000000000001',
      to: '0x52908400098527886E0F7030069857D2E4169EE7',
      amount_actual: '0.299999999999999999',
      chain_id: 'ETH',
      token_id: 'ETH',
      created_at: T + 250,
      confirmed_at: T + 60_000,
    },
    {
      transaction_id: TX2,
      wallet_id: W2,
      request_id: 'req-2',
      hash: 'b'.repeat(64),
      type: 'Deposit',
      chain_id: 'TRON',
      token_id: 'TRON_USDT',
      amount: '5',
      created_at: T,
    },
    { transaction_id: TX3, wallet_id: W1, request_id: 'req-3', type: 'Withdrawal', amount: '7', created_at: T },
  ]);
  secret = (await svc.invoke('keys-create', { label: 'robot', wallets: null }, { actor: 'cli' })).api_secret;
});

afterAll(async () => {
  await app.close();
  svc.dispose();
});

beforeEach(() => {
  clock += 1;
});

type Result = Record<`${string}_match`, boolean> & {
  result: boolean;
  tx?: Record<string, unknown> | null;
  data?: Record<string, unknown> | null;
  ticket_id: string | null;
};
const flagsOf = (r: Result) => Object.fromEntries(Object.entries(r).filter(([k]) => k.endsWith('_match')));
const verify = (body: object | string, query = '') => signedInject(app, secret, { method: 'POST', url: VERIFY + query, body }, clock);
const results = async (body: object | string, query = '') => {
  const res = await verify(body, query);
  expect(res.body).toMatchObject({ status: 0, msg: '' });
  return res.body.data as Result[];
};
const errorOf = async (body: object | string, query = '') => {
  const res = await verify(body, query);
  expect(res.body.data).toBeNull();
  return { status: res.body.status, http: res.http, msg: res.body.msg };
};

describe('item rules: the whole request refused with 1002 naming the item', () => {
  test.each([
    [{ txs: [{ transaction_id: TX1, amount: 1 }, { amount: 1 }] }, /^txs\[1\]: needs at least one of request_id, transaction_id, hash/],
    [{ txs: [{ transaction_id: '', hash: '', request_id: '', amount: 1 }] }, /^txs\[0\]: needs at least one of/],
    [{ txs: [{ request_id: 'req-2', type: 'Deposit', amount: 5 }] }, /^txs\[0\]\.request_id: cannot be the only identifier of a Deposit/],
    [{ txs: [{ transaction_id: TX1 }] }, /^txs\[0\]: needs at least one field to compare/],
    [{ txs: [{ transaction_id: TX1, amount_delta: 1 }] }, /^txs\[0\]: needs at least one field to compare/],
    [{ txs: [{ transaction_id: TX1, amount: 'ten' }] }, /^txs\[0\]\.amount: must be a number or a decimal string/],
    [{ txs: [{ transaction_id: TX1, amount: 1, amount_delta: -0.1 }] }, /^txs\[0\]\.amount_delta: must be a number >= 0/],
    [{ txs: [{ transaction_id: TX1, time: 1.5 }] }, /^txs\[0\]\.time: must be an integer/],
    [{ txs: [{ transaction_id: TX1, time: '1767323045' }] }, /^txs\[0\]\.time: must be an integer/],
    [
      { txs: [{ transaction_id: TX1, time: 1, time_type: 'Updated' }] },
      /^txs\[0\]\.time_type: must be one of Created, Confirmed, Completed/,
    ],
    [{ txs: [{ transaction_id: TX1, time: 1, time_delta: -1 }] }, /^txs\[0\]\.time_delta: must be an integer from 0 to 9007199254740991$/],
    [{ txs: [{ transaction_id: TX1, type: 'Refund' }] }, /^txs\[0\]\.type: must be one of Deposit, Withdrawal/],
    [{ txs: [{ transaction_id: 42, amount: 1 }] }, /^txs\[0\]\.transaction_id: must be a string/],
    [{ txs: ['nope'] }, /^txs\[0\]: must be an object/],
    [{ txs: [[1]] }, /^txs\[0\]: must be an object/],
    [{ txs: [{ transaction_id: TX1, amount: 1, time: 253402300800 }] }, /^txs\[0\]\.time: must be an integer from 0 to 253402300799/],
    [{ txs: [{ transaction_id: TX1, status: 3 }] }, /^txs\[0\]\.status: must be one of/],
    [{ txs: [] }, /^txs: must hold at least one transaction/],
    [{}, /^txs: is required/],
    [{ txs: {} }, /^txs: must be an array/],
    [{ wallet_id: 'W1', txs: [{ transaction_id: TX1, amount: 1 }] }, /^wallet_id: must be UUID-shaped/],
  ])('%j', async (body, msg) => {
    const e = await errorOf(body);
    expect(e.status).toBe(1002);
    expect(e.http).toBe(400);
    expect(e.msg).toMatch(msg);
  });

  test('?shape must be A or B', async () => {
    const e = await errorOf({ txs: [{ transaction_id: TX1, amount: 1 }] }, '?shape=C');
    expect(e).toMatchObject({ status: 1002, msg: expect.stringMatching(/^shape: must be A or B/) });
  });

  test('a bad item anywhere refuses the whole request: no run is stored', async () => {
    const before = (await svc.invoke('runs-list', {}, { actor: 'ui' })).total;
    await errorOf({
      txs: [
        { transaction_id: TX1, amount: 1 },
        { transaction_id: TX1, amount: 'x' },
      ],
    });
    expect((await svc.invoke('runs-list', {}, { actor: 'ui' })).total).toBe(before);
  });
});

describe('batch size', () => {
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ request_id: `missing-${i}`, amount: i }));

  test('1000 items are accepted, answered in order', async () => {
    const data = await results({ txs: [{ transaction_id: TX1, amount: '0.3' }, ...items(999)] });
    expect(data).toHaveLength(1000);
    expect(data[0]!.result).toBe(true);
    expect(data.slice(1).every((d) => d.result === false && d.tx === null)).toBe(true);
  });

  test('1001 items are refused with 4001, whatever the items hold', async () => {
    expect(await errorOf({ txs: items(1001) })).toMatchObject({
      status: 4001,
      http: 400,
      msg: expect.stringMatching(/^txs: 1001 .*at most 1000/),
    });
    clock += 1;
    expect(await errorOf({ txs: [...items(1000), 'garbage'] })).toMatchObject({ status: 4001 });
  });
});

describe('wallet_id', () => {
  test('unknown wallet: 3004', async () => {
    expect(await errorOf({ wallet_id: '33333333-3333-4333-8333-333333333333', txs: [{ transaction_id: TX1, amount: 1 }] })).toMatchObject({
      status: 3004,
      http: 404,
      msg: expect.stringMatching(/^wallet_id: unknown wallet/),
    });
  });

  test("limits lookups to that wallet: another wallet's record is not found", async () => {
    const data = await results({
      wallet_id: W1.toUpperCase(),
      txs: [
        { transaction_id: TX1, amount: '0.3' },
        { transaction_id: TX2, amount: 5 },
      ],
    });
    expect(data.map((d) => d.result)).toEqual([true, false]);
    expect(data[1]).toMatchObject({ tx: null, ticket_id: null, amount_match: false, time_match: false });
  });
});

describe('lookup through the HTTP door', () => {
  test('exact decimals from the request text: 0.3 matches 0.3 with no tolerance; an 18-decimal amount one unit off does not', async () => {
    const body = `{"txs":[
      {"transaction_id":"${TX1}","amount":0.3,"amount_delta":0},
      {"transaction_id":"${TX1}","amount":0.30000000000000004,"amount_delta":0},
      {"transaction_id":"${TX1}","amount_actual":0.299999999999999999,"fee":0.000000000000000001,"amount_delta":0},
      {"transaction_id":"${TX1}","amount_actual":0.299999999999999998,"amount_delta":0}]}`;
    const data = await results(body);
    expect(data.map((d) => d.result)).toEqual([true, false, true, false]);
  });

  test('by hash (any case, chain agreeing), by request_id, and identifiers that must all agree', async () => {
    const data = await results({
      txs: [
        { hash: HASH1.toUpperCase().replace('0X', '0x'), chain_id: 'ETH', amount: '0.3' },
        { hash: HASH1, chain_id: 'BSC_BNB', amount: '0.3' },
        { request_id: 'req-3', amount: 7 },
        { hash: 'b'.repeat(64), type: 'deposit', amount: 5 },
        { transaction_id: TX1, request_id: 'req-3', amount: '0.3' },
        { hash: HASH1, request_id: 'req-1', amount: '0.3' },
      ],
    });
    expect(data.map((d) => d.result)).toEqual([true, false, true, true, false, true]);
    expect(data[1]!.tx).toBeNull();
    expect(data[4]!.tx).toBeNull();
  });

  test('Shape A (default): record under tx, times in whole Unix seconds; a mismatch carries its ticket', async () => {
    const data = await results({ txs: [{ transaction_id: TX1, amount: '0.31', time: T / 1000, time_delta: 0 }] });
    expect(data[0]).toMatchObject({ result: false, amount_match: false, time_match: true });
    expect(data[0]!.ticket_id).toMatch(/^[0-9a-f-]{36}$/);
    // The source's keys in its order: the nine flags, result, the record, then the addition ticket_id.
    expect(Object.keys(data[0]!)).toEqual([
      'chain_id_match',
      'token_id_match',
      'to_match',
      'status_match',
      'type_match',
      'amount_match',
      'fee_match',
      'amount_actual_match',
      'time_match',
      'result',
      'tx',
      'ticket_id',
    ]);
    expect(Object.keys(data[0]!.tx!)).toEqual([
      'wallet_id',
      'type',
      'status',
      'amount',
      'to',
      'fee_ratio',
      'fee_fixed',
      'fee',
      'er',
      'amount_actual',
      'hash',
      'chain_id',
      'token_id',
      'created_at',
      'confirmed_at',
      'completed_at',
      'transaction_id',
      'request_id',
    ]);
    // Text the ledger does not record is "", never null.
    expect(data[0]!.tx).toMatchObject({ fee_ratio: '', fee_fixed: '', er: '' });
    expect(data[0]).not.toHaveProperty('data');
    expect(data[0]!.tx).toMatchObject({
      transaction_id: TX1,
      created_at: T / 1000,
      confirmed_at: T / 1000 + 60,
      completed_at: null,
      amount: '0.3',
    });
    expect(data[0]!.tx).not.toHaveProperty('import_id');
  });

  test('Shape B: record under data, times ISO 8601 UTC with milliseconds', async () => {
    const data = await results({ txs: [{ transaction_id: TX1, amount: '0.3' }] }, '?shape=B');
    expect(data[0]).not.toHaveProperty('tx');
    expect(data[0]!.data).toMatchObject({
      created_at: '2026-01-02T03:04:05.250Z',
      confirmed_at: '2026-01-02T03:05:05.000Z',
      completed_at: null,
    });
    expect(data[0]!.ticket_id).toBeNull();
  });

  test('the answer sent as text over HTTP is the answer the handler gives other callers, in both shapes', async () => {
    const txs = [
      { transaction_id: TX1, amount: '0.3' },
      { hash: HASH1.toUpperCase().replace('0X', '0x'), amount: '0.31', type: 'deposit' },
      { request_id: 'req-3', amount: 7, time: T / 1000 + 3600, time_delta: 0 },
      { request_id: 'nope', amount: 1 },
    ];
    for (const [shape, query] of [
      ['A', ''],
      ['B', '?shape=B'],
    ] as const) {
      clock += 1;
      const sent = await results({ txs }, query);
      // The same claims again through the handler map: the mismatches land on the same Pending tickets.
      const given = await svc.invoke('reconcile-verify-txs', { txs, shape }, { actor: 'ui' });
      expect(sent).toEqual(given);
      expect(sent.map((d) => d.result)).toEqual([true, false, false, false]);
      expect(flagsOf(sent[1]!)).toEqual({
        chain_id_match: true,
        token_id_match: true,
        to_match: true,
        status_match: true,
        type_match: false,
        amount_match: false,
        fee_match: true,
        amount_actual_match: true,
        time_match: true,
      });
      expect(sent[3]).toEqual({
        ...Object.fromEntries(Object.keys(flagsOf(sent[1]!)).map((f) => [f, false])),
        result: false,
        [shape === 'A' ? 'tx' : 'data']: null,
        ticket_id: null,
      });
    }
  });

  test('source rule 2: a Deposit claim is matched on transaction_id or hash whatever its request_id; request_id alone is refused', async () => {
    const data = await results({
      txs: [
        { transaction_id: TX2, request_id: 'not-ours', type: 'Deposit', amount: 5 },
        { hash: 'b'.repeat(64), request_id: 'not-ours', type: 'deposit', amount: 5 },
        // No type given, the record found is a Deposit: its request_id is not compared either.
        { transaction_id: TX2, request_id: 'not-ours', amount: 5 },
        // A Withdrawal's request_id is compared: a different one is not this record.
        { transaction_id: TX3, request_id: 'not-ours', amount: 7 },
      ],
    });
    expect(data.map((d) => d.result)).toEqual([true, true, true, false]);
    expect(data[3]!.tx).toBeNull();
    clock += 1;
    const refused = await errorOf({
      txs: [
        { transaction_id: TX1, amount: 1 },
        { request_id: 'req-2', type: 'Deposit', amount: 5 },
      ],
    });
    expect(refused).toMatchObject({ status: 1002, msg: expect.stringMatching(/^txs\[1\]\.request_id: /) });
  });

  test('every call is stored as a run: who, when, each item as sent, its result', async () => {
    const body = `{"txs":[{"transaction_id":"${TX1}","amount":0.30},{"request_id":"nope","amount":1}]}`;
    await results(body);
    const runs = await svc.invoke('runs-list', { page: 1, page_size: 1 }, { actor: 'ui' });
    const run = runs.list[0]!;
    expect(run).toMatchObject({ source: 'api', label: 'robot', item_count: 2, matched: 1, mismatched: 0, not_found: 1, created_at: clock });
    expect(run.api_key).toMatch(/^[0-9a-f]{64}$/);
    const detail = await svc.invoke('run-get', { run_id: run.run_id, page: 1, page_size: 10, filter: 'all' }, { actor: 'ui' });
    expect(detail.items.list[0]).toMatchObject({
      idx: 0,
      claimed: { transaction_id: TX1, amount: '0.30' },
      result: true,
      record: { transaction_id: TX1 },
    });
    expect(detail.items.list[1]).toMatchObject({ idx: 1, claimed: { request_id: 'nope', amount: 1 }, result: false, record: null });
    const notFound = await svc.invoke('run-get', { run_id: run.run_id, page: 1, page_size: 10, filter: 'not_found' }, { actor: 'ui' });
    expect(notFound.items.total).toBe(1);
  });
});

describe('the envelope on every failure', () => {
  test('invalid JSON: 1001; wrong content type: 1004; unknown path: 1005', async () => {
    const bad = await signedInject(app, secret, { method: 'POST', url: VERIFY, body: '{"txs":[' }, clock);
    expect(bad.body).toMatchObject({ status: 1001, data: null });
    clock += 1;
    const res = await signedInject(
      app,
      secret,
      { method: 'POST', url: VERIFY, body: 'x', headers: { 'content-type': 'text/plain' } },
      clock,
    );
    expect(res.body).toMatchObject({ status: 1004, data: null });
    const get = await app.inject({ method: 'GET', url: VERIFY });
    expect(get.statusCode).toBe(405);
    expect(get.json()).toMatchObject({ status: 1005, data: null });
  });

  test('a body over 5 MiB: 1003; without a registered key, 2001 before the body is read', async () => {
    const payload = `{"txs":["${'x'.repeat(5 * 1024 * 1024)}"]}`;
    clock += 1;
    const res = await signedInject(app, secret, { method: 'POST', url: VERIFY, body: payload }, clock);
    expect(res.http).toBe(413);
    expect(res.body).toEqual({ status: 1003, data: null, msg: 'body: larger than the 5 MiB this path takes' });
    const anonymous = await app.inject({ method: 'POST', url: VERIFY, headers: { 'content-type': 'application/json' }, payload });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ status: 2001, data: null });
  });
});

describe('openapi.json', () => {
  test('documents both signed routes with their security, the claim schema and their error codes', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/nps/openapi.json' })).json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            security?: unknown[];
            requestBody?: {
              content: Record<
                string,
                { schema: { properties: { txs: { maxItems: number; items: { properties: Record<string, unknown> } } } } }
              >;
            };
            responses: Record<string, { description: string }>;
          }
        >
      >;
    };
    const verify = doc.paths[VERIFY]!.post!;
    expect(verify.security).toHaveLength(1);
    const txs = verify.requestBody!.content['application/json']!.schema.properties.txs;
    expect(txs.maxItems).toBe(1000);
    expect(Object.keys(txs.items.properties)).toEqual(expect.arrayContaining(['transaction_id', 'amount', 'amount_delta', 'time_type']));
    expect(verify.responses['401']!.description).toMatch(/2004/);
    expect(verify.responses['400']!.description).toMatch(/4001/);
    expect(doc.paths['/nps/ticket']!.get!.responses['404']!.description).toMatch(/3003/);
  });
});
