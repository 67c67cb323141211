import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { prng } from '../../../../bench/generate-ledger';
import { httpStatusOf, type ErrorCode } from '../../../shared/errors';
import { signedHeaders } from '../keys/sign';
import { tempService } from '../test-support';
import { startServer, type RunningServer } from './server';

/*
 * The contract, property-based: requests made from openapi.json alone, as a client that read
 * nothing else would make them, against the real server. For every operation, requests the
 * document says are valid (each checked against the document before it is sent) and requests it
 * says are not (one field broken, checked too). Every answer must be documented for its operation
 * (its HTTP status among the responses, its body valid against that response's schema, its `status`
 * one the response names), never 5xx; a request the document accepts must not be refused as
 * malformed (1001-1004), and one it refuses must not succeed. Seeded: NPS_CONTRACT_SEED=N runs
 * another sample; a failure prints the seed and the request.
 */

type Schema = Record<string, unknown>;
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Operation {
  path: string;
  method: string;
  parameters: { name: string; required: boolean; schema: Schema }[];
  body?: Schema;
  signed: boolean;
  responses: Record<string, { description: string; content: { 'application/json': { schema: Schema } } }>;
}

const SEED = Number(process.env.NPS_CONTRACT_SEED ?? 20261127);
/** Valid and invalid requests made per operation. */
const VALID = 120;
const INVALID = 40;
const MALFORMED = [1001, 1002, 1003, 1004];
const root = join(import.meta.dirname, '../../../..');

let svc: ReturnType<typeof tempService>;
let server: RunningServer;
let secret: string;
let doc: { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };
/** Identifiers the store holds, so that some requests find records, wallets and tickets. */
const known: string[] = [];

beforeAll(async () => {
  svc = tempService();
  const sample = join(root, 'resources', 'samples', 'native-ledger.csv');
  await svc.invoke('ledger-import', { source: { path: sample } }, { actor: 'cli' });
  secret = (await svc.invoke('keys-create', { label: 'contract', wallets: null }, { actor: 'cli' })).api_secret;
  const [header, ...rows] = readFileSync(sample, 'utf8')
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\n');
  const columns = header!.split(',');
  for (const row of rows.slice(0, 10)) {
    const cells = row.split(',');
    for (const name of ['transaction_id', 'wallet_id', 'hash', 'request_id', 'chain_id', 'token_id', 'to'])
      if (cells[columns.indexOf(name)]) known.push(cells[columns.indexOf(name)]!);
  }
  // Rate limits off: a thousand requests in seconds are what is tested here, not the limits.
  server = await startServer(svc, { port: 0, rateLimit: false });
  doc = (await (await fetch(`${server.url}/nps/openapi.json`)).json()) as typeof doc;
}, 60_000);
afterAll(async () => {
  await server?.close();
  svc?.dispose();
});

const ajv = new Ajv2020({ strict: false, allErrors: false });
const compiled = new Map<Schema, ValidateFunction>();
const validator = (schema: Schema): ValidateFunction => {
  let v = compiled.get(schema);
  if (!v) {
    v = ajv.compile({ ...schema, components: doc.components });
    compiled.set(schema, v);
  }
  return v;
};

/** A value of the schema, from the seeded generator: boundaries and the store's own identifiers often. */
function make(schema: Schema, rnd: () => number, depth = 0): Json {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum)) return pick(schema.enum as Json[]);
  if (Array.isArray(schema.anyOf)) return make(pick(schema.anyOf as Schema[]), rnd, depth);
  const type = Array.isArray(schema.type) ? pick(schema.type as string[]) : (schema.type as string | undefined);
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return rnd() < 0.5;
    case 'integer': {
      const min = (schema.minimum as number | undefined) ?? -1_000_000;
      // Unbounded above: now and then past what a double holds exactly (a bound the document must say).
      if (schema.maximum === undefined && rnd() < 0.1) return Number.MAX_SAFE_INTEGER + 2;
      const max = (schema.maximum as number | undefined) ?? 1_000_000;
      const r = rnd();
      if (r < 0.15) return min;
      if (r < 0.3) return max;
      if (r < 0.4) return Math.min(max, min + 1);
      return min + Math.floor(rnd() * Math.min(max - min + 1, 10_000));
    }
    case 'number': {
      const min = (schema.minimum as number | undefined) ?? -1e6;
      return pick([min, 0, 0.001, 1, 1500, 1e-7, 123456.789, Math.round(rnd() * 1e6) / 1e3].filter((n) => n >= min));
    }
    case 'string':
      return makeString(schema, rnd);
    case 'array': {
      const min = (schema.minItems as number | undefined) ?? 0;
      const max = Math.min((schema.maxItems as number | undefined) ?? 5, 1000);
      const n = rnd() < 0.03 ? max : Math.min(max, min + Math.floor(rnd() * 4));
      return Array.from({ length: n }, () => make((schema.items as Schema) ?? {}, rnd, depth + 1));
    }
    case 'object':
    default: {
      const props = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const out: Record<string, Json> = {};
      for (const [name, p] of Object.entries(props)) if (required.has(name) || rnd() < 0.55) out[name] = make(p, rnd, depth + 1);
      return out;
    }
  }
}

/** A string of the schema: for a pattern, candidates that match it (the store's identifiers, words in any case, numbers as text). */
function makeString(schema: Schema, rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const uuid = () => 'xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => '0123456789abcdef'[Math.floor(rnd() * 16)]!);
  const randomCase = (w: string) => [...w].map((c) => (rnd() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
  const candidates = [
    ...known,
    uuid(),
    uuid().toUpperCase(),
    '',
    'x',
    'ETH',
    'TRON',
    'TRON_USDT',
    'ETH_USDT',
    'BTC',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    ' padded ',
    'ünïcödé ✓',
    '%ZZ&=?#',
    'x'.repeat(300),
    ...['Deposit', 'Withdrawal', 'Pending', 'Confirming', 'Completed', 'Failed', 'Rejected', 'Created', 'Confirmed'].map(randomCase),
    ...['0', '1', '-1', '12.5', '0.000001', '1500', '2.5E+3', '1e-7', '-0', String(Math.floor(rnd() * 1e9)), '1.', 'abc'],
  ];
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern as string) : undefined;
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const fits = candidates.filter((c) => c.length >= minLength && (!pattern || pattern.test(c)));
  return fits.length ? pick(fits) : (pick(candidates.filter((c) => c.length >= minLength)) ?? 'x');
}

/** Break one thing of a valid input: a value of the wrong type or out of range, or a required field left out. */
function breakOne(input: { query: Record<string, Json>; body?: Json }, op: Operation, rnd: () => number): typeof input {
  const out = structuredClone(input);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const wrong: Json[] = [{}, [], true, 'not-a-number', -1, 0, 9007199254740992, 'Z'];
  if ((op.body && rnd() < 0.7) || op.parameters.length === 0) {
    const body = out.body as Record<string, Json>;
    const txs = body.txs as Record<string, Json>[] | undefined;
    if (Array.isArray(txs) && txs.length && rnd() < 0.6) {
      const claim = pick(txs);
      if (rnd() < 0.2) txs[txs.indexOf(claim)] = pick(['x', 1, null, []] as Json[]) as never;
      else claim[pick(['amount', 'time', 'type', 'status', 'time_delta', 'amount_delta', 'transaction_id', 'time_type'])] = pick(wrong);
    } else if (rnd() < 0.3) {
      const required = (op.body!.required as string[] | undefined) ?? [];
      if (required.length) delete body[pick(required)];
      else body[pick(Object.keys(body).concat('txs'))] = pick(wrong);
    } else body[pick(Object.keys((op.body!.properties as object) ?? {}))] = pick(wrong);
  } else {
    const p = pick(op.parameters);
    if (p.required && rnd() < 0.3) delete out.query[p.name];
    else out.query[p.name] = pick(['0', '-1', '9007199254740992', 'abc', '1.5', '', 'Z'] as Json[]);
  }
  return out;
}

/** The query string as sent: each value's text, URL-encoded. */
const queryOf = (query: Record<string, Json>): string =>
  Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
    .join('&');

let nonce = Date.now();
async function send(op: Operation, input: { query: Record<string, Json>; body?: Json }) {
  const query = queryOf(input.query);
  const body = input.body === undefined ? '' : JSON.stringify(input.body);
  const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
  if (op.signed) Object.assign(headers, signedHeaders(secret, { method: op.method.toUpperCase(), path: op.path, query, body }, ++nonce));
  const res = await fetch(`${server.url}${op.path}${query ? `?${query}` : ''}`, {
    method: op.method.toUpperCase(),
    headers,
    ...(body ? { body } : {}),
  });
  return { http: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

test('every operation of openapi.json, valid and invalid requests made from it alone: never 5xx, every answer as documented', async () => {
  const ops: Operation[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, o]) => {
      const body = (o.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content?.['application/json']?.schema;
      return {
        path,
        method,
        parameters: (o.parameters as Operation['parameters']) ?? [],
        ...(body ? { body } : {}),
        signed: Array.isArray(o.security),
        responses: o.responses as Operation['responses'],
      };
    }),
  );
  expect(ops.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort()).toEqual([
    'GET /nps/chains',
    'GET /nps/ticket',
    'GET /nps/tokens',
    'POST /nps/address/verify',
    'POST /nps/bill/verify/txs',
  ]);
  const rnd = prng(SEED);
  const problems: string[] = [];
  let sent = 0;
  for (const op of ops) {
    const querySchema: Schema = {
      type: 'object',
      properties: Object.fromEntries(op.parameters.map((p) => [p.name, p.schema])),
      required: op.parameters.filter((p) => p.required).map((p) => p.name),
    };
    const validQuery = validator(querySchema);
    const validBody = op.body ? validator(op.body) : () => true;
    for (let i = 0; i < VALID + INVALID; i++) {
      const wantValid = i < VALID;
      let input: { query: Record<string, Json>; body?: Json } | undefined;
      // Made until the document says what is wanted of it (bounded).
      for (let attempt = 0; attempt < 200 && input === undefined; attempt++) {
        const made = { query: make(querySchema, rnd) as Record<string, Json>, ...(op.body ? { body: make(op.body, rnd) } : {}) };
        const candidate = wantValid ? made : breakOne(made, op, rnd);
        // A query carries text: the document's integers are sent as their digits, and validated as such.
        const asSent = Object.fromEntries(Object.entries(candidate.query).map(([k, v]) => [k, queryValue(v, op, k)]));
        const valid = validQuery(asSent) && (op.body === undefined || validBody(candidate.body));
        if (valid === wantValid) input = candidate;
      }
      if (!input) continue;
      const answer = await send(op, input);
      sent++;
      const where = `seed ${SEED}, ${wantValid ? 'valid' : 'invalid'} ${op.method.toUpperCase()} ${op.path}?${queryOf(input.query)} ${JSON.stringify(input.body ?? '').slice(0, 400)} -> ${answer.http} ${answer.text.slice(0, 300)}`;
      const documented = op.responses[String(answer.http)];
      if (answer.http >= 500) problems.push(`5xx: ${where}`);
      if (!documented) {
        problems.push(`undocumented HTTP status: ${where}`);
        continue;
      }
      if (!answer.type.startsWith('application/json')) problems.push(`not JSON: ${where}`);
      let body: { status?: number };
      try {
        body = JSON.parse(answer.text) as { status?: number };
      } catch {
        problems.push(`unreadable body: ${where}`);
        continue;
      }
      const schema = documented.content['application/json'].schema;
      if (!validator(schema)(body)) problems.push(`body not as documented (${ajv.errorsText(validator(schema).errors)}): ${where}`);
      if (answer.http !== 200 && !documented.description.split('; ').some((d) => d.startsWith(`${body.status}:`)))
        problems.push(`status ${body.status} not among those documented for HTTP ${answer.http}: ${where}`);
      if (op.path !== '/nps/openapi.json' && body.status !== undefined && httpStatusOf[body.status as ErrorCode] !== answer.http)
        problems.push(`HTTP ${answer.http} does not go with status ${body.status}: ${where}`);
      if (wantValid && MALFORMED.includes(body.status ?? 0)) problems.push(`valid by the document, refused as malformed: ${where}`);
      if (!wantValid && body.status === 0) problems.push(`invalid by the document, accepted: ${where}`);
      if (problems.length >= 10) break;
    }
  }
  console.log(`contract: ${sent} requests from openapi.json (seed ${SEED}), ${problems.length} problems`);
  expect(problems).toEqual([]);
  expect(sent).toBeGreaterThan(ops.length * (VALID + INVALID) * 0.8);
}, 120_000);

/** A query value as the server reads it: text (an integer's digits), validated as the document's type. */
function queryValue(v: Json, op: Operation, name: string): Json {
  const schema = op.parameters.find((p) => p.name === name)?.schema;
  if (typeof v === 'string' && schema?.type === 'integer') return /^-?\d+$/.test(v) ? Number(v) : v;
  return v;
}
