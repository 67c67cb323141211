import { strictAnswers } from './answers.test-support';
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { insertRecords } from '../reconcile/fixtures.test-support';
import { signedHeaders } from '../keys/sign';
import { tempService } from '../test-support';
import { buildServer, startServer } from './server';
import { signedInject } from './signed.test-support';

const W1 = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';
const TX1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const TX2 = 'aaaaaaaa-0000-4000-8000-000000000002';
const T = Date.UTC(2026, 0, 2, 3, 4, 5);

const VERIFY = '/nps/bill/verify/txs';
const body = (txs: object[], extra: object = {}) => ({ ...extra, txs });
const claim1 = { transaction_id: TX1, amount: '10' };

let clock = T;
let svc: ReturnType<typeof tempService>;
let app: ReturnType<typeof buildServer>;
let secret: string;
let apiKey: string;

function open(dataDir?: string) {
  svc = tempService({ now: () => clock, ...(dataDir ? { dataDir } : {}) });
  app = buildServer(svc, { log: () => {} });
  strictAnswers(app);
}

beforeEach(async () => {
  clock = T;
  open();
  insertRecords(svc.ctx.db, [
    { transaction_id: TX1, wallet_id: W1, amount: '10', created_at: T },
    { transaction_id: TX2, wallet_id: W2, amount: '20', created_at: T },
  ]);
  const key = await svc.invoke('keys-create', { label: 'books robot', wallets: null }, { actor: 'cli' });
  secret = key.api_secret;
  apiKey = key.api_key;
});

afterEach(async () => {
  await app.close();
  svc.dispose();
});

const call = (c: Parameters<typeof signedInject>[2], withSecret = secret) => signedInject(app, withSecret, c, clock);

function expectError(res: Awaited<ReturnType<typeof call>>, status: number, http: number, msg?: RegExp) {
  expect(res.body.status).toBe(status);
  expect(res.http).toBe(http);
  expect(res.body.data).toBeNull();
  expect(typeof res.body.msg).toBe('string');
  expect(res.body.msg.length).toBeGreaterThan(0);
  if (msg) expect(res.body.msg).toMatch(msg);
}

describe('a signed request', () => {
  test('signed by the book (Node crypto, no project code) is accepted and marks the key used', async () => {
    // RFC 8032 TEST 1 key pair, registered as a key made elsewhere.
    const seed = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
    const pub = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
    await svc.invoke('keys-add', { public_key: pub, label: 'elsewhere', wallets: null }, { actor: 'cli' });
    const payload = `{"txs":[{"transaction_id":"${TX1}","amount":10}]}`;
    const nonce = String(clock);
    const toSign = `POST|${VERIFY}|${nonce}|shape=A|${payload}`;
    const digest = createHash('sha256').update(createHash('sha256').update(toSign, 'utf8').digest()).digest();
    const key = createPrivateKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        d: Buffer.from(seed, 'hex').toString('base64url'),
        x: Buffer.from(pub, 'hex').toString('base64url'),
      },
      format: 'jwk',
    });
    const res = await app.inject({
      method: 'POST',
      url: `${VERIFY}?shape=A`,
      headers: {
        'content-type': 'application/json',
        'biz-api-key': pub,
        'BIZ-API-NONCE': nonce,
        'Biz-Api-Signature': sign(null, digest, key).toString('hex'),
      },
      payload,
    });
    expect(res.json()).toMatchObject({ status: 0, msg: '', data: [{ result: true }] });
    const keys = await svc.invoke('keys-list', {}, { actor: 'ui' });
    expect(keys.find((k) => k.api_key === pub)!.last_used_at).toBe(clock);
  });

  test('success through the shared signing module', async () => {
    const res = await call({ method: 'POST', url: VERIFY, body: body([claim1]) });
    expect(res.http).toBe(200);
    expect(res.body.status).toBe(0);
  });

  test('a nonce anywhere inside the window passes, at the edge too', async () => {
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]), nonce: clock - 60_000 })).body.status).toBe(0);
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]), nonce: clock + 60_000 })).body.status).toBe(0);
  });
});

describe('authentication failures', () => {
  test.each(['BIZ-API-KEY', 'Biz-Api-Nonce', 'Biz-Api-Signature'])('missing %s: 2001', async (header) => {
    const res = await call({ method: 'POST', url: VERIFY, body: body([claim1]), headers: { [header]: '' } });
    expectError(res, 2001, 401, new RegExp(header));
  });

  test('no credentials at all: 2001, before the body is looked at', async () => {
    const res = await app.inject({
      method: 'POST',
      url: VERIFY,
      headers: { 'content-type': 'application/json' },
      payload: '{"txs":"nope"}',
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ status: 2001, data: null });
  });

  test('unknown key: 2002', async () => {
    const other = (await svc.invoke('keys-create', { label: 'x', wallets: null }, { actor: 'cli' })).api_secret;
    await svc.invoke(
      'keys-revoke',
      { api_key: (await svc.invoke('keys-list', {}, { actor: 'ui' })).find((k) => k.label === 'x')!.api_key },
      { actor: 'ui' },
    );
    const stranger = 'ab'.repeat(32);
    expectError(await call({ method: 'POST', url: VERIFY, body: body([claim1]) }, stranger), 2002, 401, /unknown/);
    expectError(await call({ method: 'POST', url: VERIFY, body: body([claim1]), headers: { 'BIZ-API-KEY': 'not-hex' } }), 2002, 401);
    expectError(await call({ method: 'POST', url: VERIFY, body: body([claim1]) }, other), 2002, 401, /revoked/);
  });

  test('revoked key: 2002 from the moment of revocation', async () => {
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]) })).body.status).toBe(0);
    await svc.invoke('keys-revoke', { api_key: apiKey }, { actor: 'ui' });
    clock += 1;
    expectError(await call({ method: 'POST', url: VERIFY, body: body([claim1]) }), 2002, 401, /revoked/);
  });

  test.each([
    ['61 s old', T - 61_000],
    ['61 s ahead', T + 61_000],
    ['in seconds, not milliseconds', Math.floor(T / 1000)],
  ])('stale nonce (%s): 2003', async (_name, nonce) => {
    expectError(await call({ method: 'POST', url: VERIFY, body: body([claim1]), nonce }), 2003, 401, /Biz-Api-Nonce/);
  });

  test('a nonce that is not digits: 2003', async () => {
    expectError(await call({ method: 'POST', url: VERIFY, body: body([claim1]), headers: { 'Biz-Api-Nonce': `${T}.5` } }), 2003, 401);
  });

  test('replay: the same request twice is refused the second time (2004)', async () => {
    const req = { method: 'POST' as const, url: VERIFY, body: body([claim1]) };
    expect((await call(req)).body.status).toBe(0);
    clock += 5_000;
    expectError(await call({ ...req, nonce: T }), 2004, 401, /already used/);
  });

  test('replay after a restart on the same data directory: still 2004', async () => {
    const req = { method: 'POST' as const, url: VERIFY, body: body([claim1]), nonce: T };
    expect((await call(req)).body.status).toBe(0);
    const dataDir = svc.dataDir;
    await app.close();
    svc.close();
    clock = T + 30_000;
    open(dataDir);
    expectError(await call(req), 2004, 401);
  });

  test('replay after a restart with a wider nonce window: still refused, though the narrower window had forgotten the nonce', async () => {
    const req = { method: 'POST' as const, url: VERIFY, body: body([claim1]), nonce: T };
    expect((await call(req)).body.status).toBe(0);
    // Past the 60 s window: the next signed request prunes the pair.
    clock = T + 61_000;
    expect((await call({ ...req, nonce: clock })).body.status).toBe(0);
    const dataDir = svc.dataDir;
    await app.close();
    svc.close();
    // Restarted with a window of ten minutes: the first request's nonce is inside it again.
    svc = tempService({ now: () => clock, dataDir });
    app = buildServer(svc, { log: () => {}, auth: { nonceWindowMs: 600_000 } });
    strictAnswers(app);
    expectError(await call(req), 2003, 401, /^Biz-Api-Nonce: older than \d+, when this service widened the nonce window/);
    // The nonce the narrow window still knew stays used; one signed now passes, once, and is kept for the wide window's length.
    expectError(await call({ ...req, nonce: clock }), 2004, 401);
    clock += 1;
    expect((await call({ ...req, nonce: clock })).body.status).toBe(0);
    clock += 300_000;
    expectError(await call({ ...req, nonce: clock - 300_000 }), 2004, 401);
  });

  test('a failed signature does not use up the nonce', async () => {
    const req = { method: 'POST' as const, url: VERIFY, body: body([claim1]), nonce: T };
    expectError(await call({ ...req, headers: { 'Biz-Api-Signature': '00'.repeat(64) } }), 2005, 401);
    expect((await call(req)).body.status).toBe(0);
  });

  test('tampered body: 2005', async () => {
    const signedBody = JSON.stringify(body([claim1]));
    const headers = signedHeaders(secret, { method: 'POST', path: VERIFY, query: '', body: signedBody }, clock);
    const res = await app.inject({
      method: 'POST',
      url: VERIFY,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: signedBody.replace('"10"', '"11"'),
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ status: 2005, data: null });
  });

  test('a body re-serialised (same JSON, other bytes) does not verify: the raw bytes are signed', async () => {
    const signedBody = `{"txs": [{"transaction_id": "${TX1}", "amount": 10.0}]}`;
    const headers = signedHeaders(secret, { method: 'POST', path: VERIFY, query: '', body: signedBody }, clock);
    const sent = await app.inject({
      method: 'POST',
      url: VERIFY,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: signedBody,
    });
    expect(sent.json()).toMatchObject({ status: 0 });
    clock += 1;
    const h2 = signedHeaders(secret, { method: 'POST', path: VERIFY, query: '', body: signedBody }, clock);
    const reformatted = await app.inject({
      method: 'POST',
      url: VERIFY,
      headers: { ...h2, 'content-type': 'application/json' },
      payload: JSON.stringify(JSON.parse(signedBody)),
    });
    expect(reformatted.json()).toMatchObject({ status: 2005 });
  });

  test('tampered query: 2005', async () => {
    const payload = JSON.stringify(body([claim1]));
    const headers = signedHeaders(secret, { method: 'POST', path: VERIFY, query: 'shape=A', body: payload }, clock);
    const res = await app.inject({
      method: 'POST',
      url: `${VERIFY}?shape=B`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload,
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ status: 2005, data: null });
  });

  test('the query is signed as received, not re-encoded or re-ordered', async () => {
    const url = `/nps/ticket?ticket_id=${'c'.repeat(8)}-cccc-4ccc-8ccc-${'c'.repeat(12)}&wallet_id=${W1}`;
    const res = await call({ method: 'GET', url });
    expect(res.body.status).toBe(3003);
  });
});

describe('wallet scope', () => {
  let scoped: string;
  beforeEach(async () => {
    scoped = (await svc.invoke('keys-create', { label: 'W1 only', wallets: [W1] }, { actor: 'cli' })).api_secret;
  });

  test('wallet_id outside the key scope: 2006', async () => {
    expectError(
      await call({ method: 'POST', url: VERIFY, body: body([{ transaction_id: TX2, amount: 20 }], { wallet_id: W2 }) }, scoped),
      2006,
      403,
      /wallet_id/,
    );
    clock += 1;
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1], { wallet_id: W1 }) }, scoped)).body.status).toBe(0);
  });

  test("without wallet_id the lookups span the key scope only: another wallet's record is not found", async () => {
    const res = await call({ method: 'POST', url: VERIFY, body: body([claim1, { transaction_id: TX2, amount: 20 }]) }, scoped);
    const data = res.body.data as { result: boolean; tx: unknown }[];
    expect(data[0]!.result).toBe(true);
    expect(data[1]).toMatchObject({ result: false, tx: null, ticket_id: null });
  });

  test('an all-wallet key sees both wallets', async () => {
    const res = await call({ method: 'POST', url: VERIFY, body: body([claim1, { transaction_id: TX2, amount: 20 }]) });
    expect((res.body.data as { result: boolean }[]).map((d) => d.result)).toEqual([true, true]);
  });

  test('ticket lookup in a wallet outside the scope: 2006', async () => {
    const url = `/nps/ticket?wallet_id=${W2}&ticket_id=${'c'.repeat(8)}-cccc-4ccc-8ccc-${'c'.repeat(12)}`;
    expectError(await call({ method: 'GET', url }, scoped), 2006, 403);
  });
});

describe('the replay store', () => {
  test('is pruned of nonces that can no longer pass the window', async () => {
    const count = () => (svc.ctx.db.$client.prepare('SELECT count(*) AS n FROM used_nonces').get() as { n: number }).n;
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]) })).body.status).toBe(0);
    clock += 1000;
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]) })).body.status).toBe(0);
    expect(count()).toBe(2);
    clock += 125_000;
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]) })).body.status).toBe(0);
    expect(count()).toBe(1);
  });

  test('the window is configurable', async () => {
    await app.close();
    app = buildServer(svc, { log: () => {}, auth: { nonceWindowMs: 5_000 } });
    strictAnswers(app);
    expectError(await call({ method: 'POST', url: VERIFY, body: body([claim1]), nonce: clock - 6_000 }), 2003, 401, /within 5 s/);
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]), nonce: clock - 4_000 })).body.status).toBe(0);
  });
});

describe('rate limiting', () => {
  test('past its limit a key gets 4002 (HTTP 429) in the envelope, with Retry-After; other keys are unaffected', async () => {
    await app.close();
    app = buildServer(svc, { log: () => {}, rateLimit: { signed: 3 } });
    strictAnswers(app);
    for (let i = 0; i < 3; i++) {
      clock += 1;
      expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]) })).body.status).toBe(0);
    }
    clock += 1;
    const limited = await call({ method: 'POST', url: VERIFY, body: body([claim1]) });
    expectError(limited, 4002, 429, /rate limited: more than 3 signed requests with this API key a minute; retry in \d+ s/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const other = (await svc.invoke('keys-create', { label: 'other', wallets: null }, { actor: 'cli' })).api_secret;
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]) }, other)).body.status).toBe(0);
  });

  test("a flood of bad signatures under a key's header is refused in a bucket of its own: the key and good requests from the same address go on", async () => {
    await app.close();
    app = buildServer(svc, { log: () => {}, rateLimit: { signed: 3, failedAuth: 5 } });
    strictAnswers(app);
    const other = (await svc.invoke('keys-create', { label: 'other', wallets: null }, { actor: 'cli' })).api_secret;
    const forge = () => call({ method: 'POST', url: VERIFY, body: body([claim1]), headers: { 'BIZ-API-KEY': apiKey } }, other);
    for (let i = 0; i < 5; i++) {
      clock += 1;
      // Signed with another secret under this key's header: a bad signature, charged to the failures' bucket.
      expectError(await forge(), 2005, 401, /does not verify/);
    }
    for (let i = 0; i < 20; i++) {
      clock += 1;
      expectError(await forge(), 4002, 429, /requests failing authentication from this client/);
    }
    // Neither the key nor the address's good requests paid for it.
    for (let i = 0; i < 3; i++) {
      clock += 1;
      expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]) })).body.status).toBe(0);
    }
  });

  test('unsigned calls are limited per client, and every loopback address is the same client', async () => {
    await app.close();
    app = buildServer(svc, { log: () => {}, rateLimit: { reads: 2 } });
    strictAnswers(app);
    const get = (remoteAddress: string) => app.inject({ method: 'GET', url: '/nps/chains', remoteAddress });
    expect((await get('127.0.0.1')).statusCode).toBe(200);
    expect((await get('::1')).statusCode).toBe(200);
    for (const address of ['127.0.0.2', '127.9.9.9', '::ffff:127.0.0.1', '127.0.0.1']) {
      const res = await get(address);
      expect(res.statusCode, address).toBe(429);
      expect(res.json()).toMatchObject({ status: 4002, data: null, msg: expect.stringMatching(/unsigned requests from this client/) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Signed calls do not count against the reads.
    clock += 1;
    expect((await call({ method: 'POST', url: VERIFY, body: body([claim1]) })).body.status).toBe(0);
  });

  test('0 turns a bucket off', async () => {
    await app.close();
    app = buildServer(svc, { log: () => {}, rateLimit: { reads: 0, signed: 1 } });
    strictAnswers(app);
    for (let i = 0; i < 50; i++) expect((await app.inject({ method: 'GET', url: '/nps/chains' })).statusCode).toBe(200);
  });
});

describe('over a real socket', () => {
  test('a signed call with mixed-case header names succeeds, its replay does not', async () => {
    clock = Date.now();
    const server = await startServer(svc, { port: 0, log: () => {} });
    try {
      const payload = JSON.stringify(body([claim1]));
      const headers = {
        ...signedHeaders(secret, { method: 'POST', path: VERIFY, query: 'shape=B', body: payload }, clock),
        'Content-Type': 'application/json',
      };
      const send = () => fetch(`${server.url}${VERIFY}?shape=B`, { method: 'POST', headers, body: payload });
      const first = await send();
      expect(first.status).toBe(200);
      const json = (await first.json()) as { status: number; data: { data: { created_at: string } }[] };
      expect(json.status).toBe(0);
      expect(json.data[0]!.data.created_at).toBe('2026-01-02T03:04:05.000Z');
      const again = await send();
      expect(again.status).toBe(401);
      expect(await again.json()).toMatchObject({ status: 2004, data: null });
    } finally {
      await server.close();
    }
  });
});
