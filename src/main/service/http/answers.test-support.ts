import type { FastifyInstance } from 'fastify';
import { afterEach, expect } from 'vitest';
import { z } from 'zod';
import { npsRoutes } from './routes';

/*
 * Every /nps answer a test sees is held against the strict contract schema of its endpoint: the
 * envelope with nothing more, and `data` with exactly the contract's keys (an unknown, missing or
 * renamed key fails). Failures name the request and what was wrong.
 */

const ErrorEnvelope = z.strictObject({ status: z.number().int().min(1000), data: z.null(), msg: z.string().min(1) });

/** The strict schema of a success answer to this request, or undefined when the path is not an endpoint of /nps. */
function answerSchema(method: string, url: string): z.ZodType | undefined {
  const [path = '', query = ''] = url.split('?');
  const route = npsRoutes.find((r) => r.method === method && r.url === path.replace(/\/+$/, ''));
  if (!route) return undefined;
  const data = route.responseFor
    ? route.responseFor({ shape: new URLSearchParams(query).get('shape') === 'B' ? 'B' : 'A' })
    : route.response;
  return z.strictObject({ status: z.literal(0), data, msg: z.literal('') });
}

/** Parse one answer of /nps strictly; throws naming the request and the first problems. */
export function parseAnswer(method: string, url: string, text: string): { status: number; data: unknown; msg: string } {
  const body = JSON.parse(text) as { status?: unknown };
  const schema = body.status === 0 ? answerSchema(method, url) : ErrorEnvelope;
  if (!schema) throw new Error(`${method} ${url}: a success answer from a path that is not an /nps endpoint`);
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new Error(`${method} ${url}: the answer does not fit the contract: ${z.prettifyError(parsed.error)}\n${text.slice(0, 500)}`);
  return body as { status: number; data: unknown; msg: string };
}

/** Answers of the running test that did not fit; every test of a file importing this fails after it if one did not. */
const problems: string[] = [];
afterEach(() => {
  expect(problems.splice(0)).toEqual([]);
});

/** Check every /nps answer of this app (call before `ready`). */
export function strictAnswers(app: FastifyInstance): void {
  app.addHook('onSend', async (req, _reply, payload) => {
    if (req.url.startsWith('/nps') && !req.url.startsWith('/nps/openapi.json') && typeof payload === 'string') {
      try {
        parseAnswer(req.method, req.url, payload);
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
    return payload;
  });
}
