import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { generateLedger } from '../../../../bench/generate-ledger';
import { startServe, type ServingProcess } from '../../cli/serve.test-support';
import { apiKeyOfSecret, signedHeaders } from '../keys/sign';
import { tempService } from '../test-support';

/*
 * A local program without a key (or with only a key's public half) against `serve` as the user
 * runs it. Before: four connections that sent a verification's headers and no body made every real
 * verification answer 4003 for as long as they stayed open (the places were taken before the body),
 * 2,000 idle connections were all accepted, and a 500 MB POST /app/session was read whole.
 */

const svc = tempService();
const VERIFY = '/nps/bill/verify/txs';
let secret: string;
/** A registered key whose secret the hostile program does not have: the strongest headers it can send. */
let publicKey: string;
let claims: { transaction_id: string; amount: string }[];

beforeAll(async () => {
  const csv = join(svc.dataDir, 'ledger.csv');
  await generateLedger(csv, 2_000, { seed: 5, wallets: 2 });
  expect((await svc.invoke('ledger-import', { source: { path: csv } }, { actor: 'cli' })).added).toBe(2_000);
  const [header, ...rows] = readFileSync(csv, 'utf8').trim().split('\n');
  const at = (name: string) => header!.split(',').indexOf(name);
  claims = rows.map((r) => r.split(',')).map((c) => ({ transaction_id: c[at('transaction_id')]!, amount: c[at('amount')]! }));
  secret = (await svc.invoke('keys-create', { label: 'books robot', wallets: null }, { actor: 'cli' })).api_secret;
  const other = (await svc.invoke('keys-create', { label: 'someone else', wallets: null }, { actor: 'cli' })).api_secret;
  publicKey = apiKeyOfSecret(other);
  svc.close();
}, 120_000);
afterAll(() => svc.dispose());

/** Sockets opened here, all destroyed at the end whatever happens. */
const sockets: Socket[] = [];
afterAll(() => sockets.forEach((s) => s.destroy()));

interface Held {
  closedAt?: number;
  got: string;
}

/** Open a connection and send `text` (never the rest): when it was closed, and what came back. */
function hold(port: number, text: string): Held {
  const held: Held = { got: '' };
  const socket = connect(port, '127.0.0.1', () => socket.write(text));
  sockets.push(socket);
  socket.setEncoding('utf8');
  socket.on('data', (c) => (held.got += c));
  socket.on('error', () => undefined);
  socket.on('close', () => (held.closedAt = Date.now()));
  return held;
}

/** A verification's headers, with a registered key and a fresh nonce, announcing a body that never comes. */
const headersOnly = (nonce: number) =>
  `POST ${VERIFY} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4000000\r\n` +
  `BIZ-API-KEY: ${publicKey}\r\nBiz-Api-Nonce: ${nonce}\r\nBiz-Api-Signature: ${'ab'.repeat(64)}\r\n\r\n{"txs":[`;

let nonce = Date.now();
/** One signed verification of 100 claims: its status and how long its answer took. */
function verify(port: number, from: number): Promise<{ status: number; ms: number }> {
  const body = JSON.stringify({ txs: claims.slice(from % 1900, (from % 1900) + 100) });
  const headers = {
    ...signedHeaders(secret, { method: 'POST', path: VERIFY, query: '', body }, ++nonce),
    'content-type': 'application/json',
  };
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: VERIFY, method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: (JSON.parse(text) as { status: number }).status, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.end(body);
  });
}

/** Signed verifications one after another for `ms`: every answer. */
async function verifyFor(port: number, ms: number): Promise<{ status: number; ms: number }[]> {
  const answers: { status: number; ms: number }[] = [];
  for (const until = Date.now() + ms; Date.now() < until && answers.length < 500;) answers.push(await verify(port, answers.length * 37));
  return answers;
}

const rssKiB = (pid: number, field: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe('held connections', () => {
  let serving: ServingProcess;
  afterAll(async () => serving?.stop());

  test('300 connections holding a verification’s headers (a registered key, no body) and 100 sending nothing: every signed verification meanwhile answers 0 within 2 s, and the held ones are closed at the deadline', async () => {
    serving = await startServe(svc.dataDir, ['--rate-limit', '0', '--request-timeout', '10']);
    const port = Number(new URL(serving.url).port);
    const opened = Date.now();
    const held = [
      ...Array.from({ length: 300 }, (_, i) => hold(port, headersOnly(Date.now() + i))),
      ...Array.from({ length: 100 }, () => hold(port, '')),
    ];
    // Let them all be taken in before the signed client starts.
    await new Promise((r) => setTimeout(r, 1_000));
    const answers = await verifyFor(port, 8_000);
    const slowest = Math.max(...answers.map((a) => a.ms));
    console.log(`${answers.length} signed verifications beside 400 held connections; slowest answer ${slowest.toFixed(0)} ms`);
    expect(answers.length).toBeGreaterThan(5);
    expect(answers.filter((a) => a.status !== 0)).toEqual([]);
    expect(slowest).toBeLessThanOrEqual(2_000);

    // The deadline (10 s) closed every held connection, with a 408 in the envelope (bounded wait: 15 s).
    for (let i = 0; i < 150 && held.some((h) => h.closedAt === undefined); i++) await new Promise((r) => setTimeout(r, 100));
    const open = held.filter((h) => h.closedAt === undefined).length;
    expect(open).toBe(0);
    const latest = Math.max(...held.map((h) => h.closedAt! - opened));
    console.log(
      `held connections closed ${(Math.min(...held.map((h) => h.closedAt! - opened)) / 1000).toFixed(1)}-${(latest / 1000).toFixed(1)} s after they opened`,
    );
    expect(latest).toBeLessThan(13_000);
    expect(held[0]!.got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(held[0]!.got).toContain('"msg":"request: its headers and body did not arrive in time; send the whole request at once"');
    await serving.stop();
  }, 120_000);

  test('more connections held than the service keeps open (--max-connections 100, 300 held): the oldest idle ones make room, and signed verifications still answer 0 within 2 s', async () => {
    serving = await startServe(svc.dataDir, ['--rate-limit', '0', '--max-connections', '100']);
    const port = Number(new URL(serving.url).port);
    const held: Held[] = [];
    // Held connections keep coming while the signed client works, 30 a second.
    const more = setInterval(() => {
      for (let i = 0; i < 3 && held.length < 300; i++) held.push(hold(port, i % 2 ? '' : headersOnly(Date.now() + held.length)));
    }, 100);
    try {
      for (let i = 0; i < 150; i++) held.push(hold(port, headersOnly(Date.now() + i)));
      await new Promise((r) => setTimeout(r, 500));
      const answers = await verifyFor(port, 6_000);
      const slowest = Math.max(...answers.map((a) => a.ms));
      console.log(
        `${answers.length} signed verifications beside ${held.length} held connections (at most 100 open); slowest ${slowest.toFixed(0)} ms`,
      );
      expect(answers.filter((a) => a.status !== 0)).toEqual([]);
      expect(slowest).toBeLessThanOrEqual(2_000);
      // The room was made by closing held connections, each told why where it had sent a request.
      const closed = held.filter((h) => h.closedAt !== undefined);
      expect(closed.length).toBeGreaterThan(100);
      expect(closed.some((h) => h.got.includes('"msg":"busy: more than 100 connections are open'))).toBe(true);
    } finally {
      clearInterval(more);
      await serving.stop();
    }
  }, 120_000);
});

describe('bounded bodies', () => {
  test('a 50 MB POST /app/session is refused with 413 (from its Content-Length, and when sent without one) while the service’s memory grows by less than a few MB', async () => {
    const serving = await startServe(svc.dataDir, ['--ui']);
    try {
      const { port } = new URL(serving.url);
      const pid = serving.child.pid!;
      const post = (chunked: boolean): Promise<{ status: number; body: string }> =>
        new Promise((resolve, reject) => {
          const size = 50 * 1024 * 1024;
          const headers: Record<string, string> = { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` };
          if (!chunked) headers['content-length'] = String(size);
          // A client that keeps its connection (no Connection: close), as browsers and most tools do: the
          // service answers at once and drops the rest of the body as it arrives.
          const agent = new Agent({ keepAlive: true });
          const req = request({ host: '127.0.0.1', port, path: '/app/session', method: 'POST', headers, agent }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (text += c));
            res.on('end', () => {
              agent.destroy();
              resolve({ status: res.statusCode!, body: text });
            });
          });
          // The answer must come, before anything else: an error before it fails the test at once.
          let answered = false;
          req.on('response', () => (answered = true));
          req.on('error', (err) => {
            if (!answered) reject(err);
          });
          const chunk = Buffer.alloc(1024 * 1024, 'x');
          let sent = 0;
          const pump = () => {
            while (sent < size) {
              sent += chunk.length;
              if (!req.write(chunk)) return void req.once('drain', pump);
            }
            req.end();
          };
          req.write('{"code":"');
          pump();
        });
      // Warm: what a first few posts cost (the code paths compiled, the heap at its working size) is not what is measured.
      for (const chunked of [false, true, false, true]) await post(chunked);
      for (const chunked of [false, true]) {
        const before = rssKiB(pid, 'VmRSS');
        const answer = await post(chunked);
        const grew = rssKiB(pid, 'VmRSS') - before;
        console.log(`a 50 MB post${chunked ? ' without Content-Length' : ''}: 413, resident memory grew ${grew} KiB`);
        expect(answer.status).toBe(413);
        expect(JSON.parse(answer.body)).toEqual({ status: 1003, data: null, msg: 'body: larger than the 512 bytes this path takes' });
        expect(grew).toBeLessThan(8 * 1024);
      }
    } finally {
      await serving.stop();
    }
  }, 120_000);
});
