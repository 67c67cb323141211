import type { FastifyInstance } from 'fastify';
import { signedHeaders } from '../keys/sign';

export interface SignedCall {
  method: 'GET' | 'POST';
  /** Path and raw query, exactly as sent. */
  url: string;
  /** Raw body text; an object is sent as its JSON. */
  body?: string | object;
  /** Unix ms; default the service clock's now. */
  nonce?: number;
  /** Replace or add headers after signing (to tamper, or to leave one out with ''). */
  headers?: Record<string, string>;
}

/** Sign a request as docs/api.md says (through the one signing module) and send it with inject. */
export async function signedInject(app: FastifyInstance, secret: string, call: SignedCall, now: number = Date.now()) {
  const body = call.body === undefined ? '' : typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
  const q = call.url.indexOf('?');
  const signed = signedHeaders(
    secret,
    { method: call.method, path: q < 0 ? call.url : call.url.slice(0, q), query: q < 0 ? '' : call.url.slice(q + 1), body },
    call.nonce ?? now,
  );
  const headers: Record<string, string> = { ...signed, ...(body !== '' ? { 'content-type': 'application/json' } : {}) };
  for (const [k, v] of Object.entries(call.headers ?? {})) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
    if (v !== '') headers[k] = v;
  }
  const res = await app.inject({ method: call.method, url: call.url, headers, ...(body !== '' ? { payload: body } : {}) });
  return { http: res.statusCode, headers: res.headers, body: res.json() as { status: number; data: unknown; msg: string } };
}
