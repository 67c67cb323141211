import { expect } from '@playwright/test';
import { createHash, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';

/*
 * A client of the /nps API written from docs/api.md alone (the Cobo WaaS 2.0 scheme), not from the
 * service's code: if the two disagreed, the journeys would say so.
 */

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface ApiAnswer {
  http: number;
  status: number;
  data: unknown;
  msg: string;
}

export function newKeyPair(): { api_key: string; api_secret: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_ED25519_PREFIX.length);
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { api_key: raw.toString('hex'), api_secret: seed.toString('hex') };
}

export async function signedCall(
  apiBase: string,
  key: { api_key: string; api_secret: string },
  method: 'GET' | 'POST',
  path: string,
  opts: { query?: string; body?: unknown } = {},
): Promise<ApiAnswer> {
  const url = new URL(apiBase);
  const fullPath = url.pathname.replace(/\/$/, '') + path;
  const body = opts.body === undefined ? '' : JSON.stringify(opts.body);
  const nonce = String(Date.now());
  const text = `${method}|${fullPath}|${nonce}|${opts.query ?? ''}|${body}`;
  const digest = createHash('sha256').update(createHash('sha256').update(text, 'utf8').digest()).digest();
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(key.api_secret, 'hex')]),
    format: 'der',
    type: 'pkcs8',
  });
  const signature = sign(null, digest, privateKey).toString('hex');
  const res = await fetch(`${url.origin}${fullPath}${opts.query ? `?${opts.query}` : ''}`, {
    method,
    headers: {
      'BIZ-API-KEY': key.api_key,
      'Biz-Api-Nonce': nonce,
      'Biz-Api-Signature': signature,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body || undefined,
  });
  const json = (await res.json()) as { status: number; data: unknown; msg: string };
  expect(Object.keys(json).sort(), `the envelope of ${method} ${path}`).toEqual(['data', 'msg', 'status']);
  return { http: res.status, ...json };
}
