import { expect } from '@playwright/test';
import { z } from 'zod';
import type { ApiAnswer } from './sign';

/*
 * Reading the /nps API as an outside client does: over HTTP, and every answer checked against the
 * contract's strict schema of that endpoint, so a key renamed, added or left out fails the journey.
 */

const EnvelopeKeys = ['status', 'data', 'msg'];

/** An unsigned request (the catalogue and the address check need no credentials). */
export async function unsignedCall(apiBase: string, method: 'GET' | 'POST', pathAndQuery: string, body?: unknown): Promise<ApiAnswer> {
  const res = await fetch(`${apiBase.replace(/\/$/, '')}${pathAndQuery}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(json).sort(), `the envelope of ${method} ${pathAndQuery}`).toEqual([...EnvelopeKeys].sort());
  return { http: res.status, status: json.status as number, data: json.data, msg: json.msg as string };
}

/** The answer's `data` on success, parsed with the endpoint's schema; a failure names the path at fault. */
export function dataOf<S extends z.ZodType>(schema: S, answer: ApiAnswer): z.output<S> {
  expect(answer.msg, 'the envelope msg').toBe('');
  expect([answer.http, answer.status]).toEqual([200, 0]);
  const parsed = schema.safeParse(answer.data);
  if (!parsed.success)
    throw new Error(`the answer does not fit the contract:\n${z.prettifyError(parsed.error)}\n${JSON.stringify(answer.data)}`);
  return parsed.data;
}
