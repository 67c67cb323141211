import { createHash, createPublicKey, sign, verify } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  apiKeyOfSecret,
  generateApiKeyPair,
  privateKeyFromSeed,
  publicKeyFromHex,
  signedHeaders,
  signingDigest,
  signRequest,
  verifyRequest,
} from './sign';

// RFC 8032, section 7.1, TEST 1 (empty message).
const RFC_SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const RFC_PUBLIC = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const RFC_SIGNATURE =
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';

describe('keys', () => {
  test('the API key is the raw 32-byte public key of the 32-byte seed (RFC 8032 vector)', () => {
    expect(apiKeyOfSecret(RFC_SEED)).toBe(RFC_PUBLIC);
    const jwk = createPublicKey(privateKeyFromSeed(RFC_SEED)).export({ format: 'jwk' });
    expect(Buffer.from(jwk.x!, 'base64url').toString('hex')).toBe(RFC_PUBLIC);
    expect(publicKeyFromHex(RFC_PUBLIC).export({ format: 'jwk' }).x).toBe(jwk.x);
  });

  test('signing is Ed25519 as RFC 8032 defines it', () => {
    expect(sign(null, Buffer.alloc(0), privateKeyFromSeed(RFC_SEED)).toString('hex')).toBe(RFC_SIGNATURE);
  });

  test('a generated pair: 64 hex digits each, the key derived from the secret', () => {
    const { api_key, api_secret } = generateApiKeyPair();
    expect(api_key).toMatch(/^[0-9a-f]{64}$/);
    expect(api_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(apiKeyOfSecret(api_secret)).toBe(api_key);
    expect(generateApiKeyPair().api_secret).not.toBe(api_secret);
  });
});

describe('string to sign', () => {
  const parts = {
    method: 'post',
    path: '/nps/bill/verify/txs',
    nonce: '1767323045000',
    query: 'shape=B',
    body: '{"txs":[{"hash":"0x1","amount":0.1}]}',
  };

  test('digest is SHA-256 of SHA-256 of METHOD|PATH|NONCE|QUERY|BODY, method upper-cased', () => {
    const once = createHash('sha256')
      .update('POST|/nps/bill/verify/txs|1767323045000|shape=B|{"txs":[{"hash":"0x1","amount":0.1}]}')
      .digest();
    expect(signingDigest(parts).toString('hex')).toBe(createHash('sha256').update(once).digest('hex'));
  });

  test('body as bytes and as text give the same digest; empty query and body are empty fields', () => {
    expect(signingDigest({ ...parts, body: Buffer.from(parts.body) })).toEqual(signingDigest(parts));
    const once = createHash('sha256').update('GET|/nps/ticket|1||').digest();
    expect(signingDigest({ method: 'GET', path: '/nps/ticket', nonce: '1', query: '', body: '' })).toEqual(
      createHash('sha256').update(once).digest(),
    );
  });

  test('the signature is an Ed25519 signature over the 32 digest bytes, checked against the public key', () => {
    const sig = signRequest(RFC_SEED, parts);
    expect(sig).toMatch(/^[0-9a-f]{128}$/);
    expect(verify(null, signingDigest(parts), publicKeyFromHex(RFC_PUBLIC), Buffer.from(sig, 'hex'))).toBe(true);
    expect(verifyRequest(RFC_PUBLIC, sig, parts)).toBe(true);
    expect(verifyRequest(RFC_PUBLIC.toUpperCase(), sig.toUpperCase(), parts)).toBe(true);
  });

  test.each([
    ['method', { method: 'GET' }],
    ['path', { path: '/nps/bill/verify/txs/' }],
    ['nonce', { nonce: '1767323045001' }],
    ['query', { query: 'shape=A' }],
    ['body', { body: '{"txs":[{"hash":"0x1","amount":0.10}]}' }],
  ])('changing the %s breaks the signature', (_name, change) => {
    const sig = signRequest(RFC_SEED, parts);
    expect(verifyRequest(RFC_PUBLIC, sig, { ...parts, ...change })).toBe(false);
  });

  test('malformed keys and signatures do not verify and do not throw', () => {
    const sig = signRequest(RFC_SEED, parts);
    expect(verifyRequest('zz', sig, parts)).toBe(false);
    expect(verifyRequest(RFC_PUBLIC, sig.slice(2), parts)).toBe(false);
    expect(verifyRequest(RFC_PUBLIC, 'g'.repeat(128), parts)).toBe(false);
  });

  test('signedHeaders: the key, the nonce (Unix ms) and the signature over them', () => {
    const h = signedHeaders(RFC_SEED, { method: 'GET', path: '/nps/ticket', query: 'a=1', body: '' }, 1767323045123);
    expect(h['BIZ-API-KEY']).toBe(RFC_PUBLIC);
    expect(h['Biz-Api-Nonce']).toBe('1767323045123');
    expect(
      verifyRequest(RFC_PUBLIC, h['Biz-Api-Signature']!, {
        method: 'GET',
        path: '/nps/ticket',
        query: 'a=1',
        body: '',
        nonce: '1767323045123',
      }),
    ).toBe(true);
  });
});
