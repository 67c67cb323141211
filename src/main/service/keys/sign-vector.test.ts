import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildServer } from '../http/server';
import { insertRecords } from '../reconcile/fixtures.test-support';
import { tempService } from '../test-support';
import { signingDigest, verifyRequest } from './sign';

/*
 * docs/api.md's signing test vector, read from the document itself: a client written from that
 * page alone signs exactly as the service verifies, or this fails.
 */

const doc = readFileSync(join(import.meta.dirname, '../../../../docs/api.md'), 'utf8');
const section = doc.split('### Test vector')[1]!.split('\n### ')[0]!;
/** A row `| name | `value` |` of the vector's tables. */
const row = (name: string): string => {
  const m = new RegExp(`^\\| ${name.replace(/[()]/g, '\\$&')} \\| \`([^\`]*)\` \\|$`, 'm').exec(section);
  if (!m) throw new Error(`docs/api.md's test vector has no row "${name}"`);
  return m[1]!;
};
const v = {
  secret: row('API secret (seed)'),
  key: row('API key (its public key)'),
  method: row('method'),
  path: row('path'),
  nonce: row('nonce'),
  query: row('query'),
  body: row('body'),
  text: /```text\n(.*)\n```/.exec(section)![1]!,
  first: row("SHA-256 of the text's UTF-8 bytes"),
  digest: row('SHA-256 of those 32 bytes (the digest)'),
  signature: row('Ed25519 signature of the digest'),
};

describe("docs/api.md's signing test vector", () => {
  test('its text, both digests, the key and the signature follow from its inputs, as the page says', () => {
    // Written from the page: the text joined with |, its UTF-8 bytes, SHA-256 twice (the second over raw bytes).
    const text = [v.method, v.path, v.nonce, v.query, v.body].join('|');
    expect(v.text).toBe(text);
    expect(v.path.startsWith('/nps/')).toBe(true);
    const bytes = Buffer.from(text, 'utf8');
    expect(bytes.length).toBeGreaterThan(text.length);
    expect(section).toContain(`(${text.length} characters, ${bytes.length} bytes in UTF-8)`);
    const first = createHash('sha256').update(bytes).digest();
    expect(first.toString('hex')).toBe(v.first);
    const digest = createHash('sha256').update(first).digest();
    expect(digest.toString('hex')).toBe(v.digest);
    // Not the hex of the first digest: that is a common mistake, and gives another digest.
    expect(createHash('sha256').update(v.first).digest('hex')).not.toBe(v.digest);

    const seedDer = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(v.secret, 'hex')]);
    const privateKey = createPrivateKey({ key: seedDer, format: 'der', type: 'pkcs8' });
    expect(createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex')).toBe(v.key);
    // Ed25519 is deterministic: the same seed and digest give the same signature.
    expect(sign(null, digest, privateKey).toString('hex')).toBe(v.signature);

    // The service's own implementation agrees on every step.
    const parts = { method: v.method, path: v.path, nonce: v.nonce, query: v.query, body: Buffer.from(v.body, 'utf8') };
    expect(signingDigest(parts).toString('hex')).toBe(v.digest);
    expect(verifyRequest(v.key, v.signature, parts)).toBe(true);
    expect(verifyRequest(v.key, v.signature, { ...parts, path: v.path.replace(/^\/nps/, '') })).toBe(false);
  });
});

describe('the Cobo-style headers made from the vector', () => {
  const svc = tempService({ now: () => Number(v.nonce) });
  const app = buildServer(svc, { log: () => {} });
  const claim = JSON.parse(v.body) as { txs: { transaction_id: string; amount: number; time: number }[] };
  const send = (headers: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: `${v.path}?${v.query}`,
      headers: { 'content-type': 'application/json', ...headers },
      payload: v.body,
    });

  beforeAll(async () => {
    insertRecords(svc.ctx.db, [
      {
        transaction_id: claim.txs[0]!.transaction_id,
        wallet_id: '7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b',
        type: 'Deposit',
        amount: String(claim.txs[0]!.amount),
        created_at: claim.txs[0]!.time * 1000,
      },
    ]);
    await svc.invoke('keys-add', { public_key: v.key, label: 'test vector', wallets: null }, { actor: 'cli' });
  });
  afterAll(async () => {
    await app.close();
    svc.dispose();
  });

  test("are accepted by the service at the nonce's moment, whatever the headers' case; a changed byte is refused", async () => {
    const res = await send({ 'BIZ-API-KEY': v.key, 'Biz-Api-Nonce': v.nonce, 'Biz-Api-Signature': v.signature });
    expect(res.json()).toMatchObject({
      status: 0,
      msg: '',
      data: [{ result: true, amount_match: true, time_match: true, data: { transaction_id: claim.txs[0]!.transaction_id } }],
    });
    // Shape B, as the vector's query asks: times as ISO 8601.
    expect((res.json() as { data: { data: { created_at: unknown } }[] }).data[0]!.data.created_at).toBe('2026-01-05T08:00:00.000Z');

    // The same headers again are a replay; with the signature of another body, a bad signature.
    const again = await send({ 'biz-api-key': v.key, 'BIZ-API-NONCE': v.nonce, 'biz-api-signature': v.signature.toUpperCase() });
    expect(again.json()).toMatchObject({ status: 2004 });
    const tampered = await app.inject({
      method: 'POST',
      url: `${v.path}?${v.query}`,
      headers: {
        'content-type': 'application/json',
        'BIZ-API-KEY': v.key,
        'Biz-Api-Nonce': String(Number(v.nonce) + 1),
        'Biz-Api-Signature': v.signature,
      },
      payload: v.body,
    });
    expect(tampered.json()).toMatchObject({ status: 2005 });
  });
});
