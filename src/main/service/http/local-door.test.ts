import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { tempService } from '../test-support';
import { generateLedger } from '../../../../bench/generate-ledger';
import { LOCAL_TOKEN_FILE, LOCAL_TOKEN_HEADER } from '../data-folder';
import { PROGRESS_MEDIA_TYPE } from './local-door';
import { startServer, type RunningServer } from './server';

const svc = tempService();
let server: RunningServer;
let token: string;

beforeAll(async () => {
  server = await startServer(svc, { port: 0, log: () => {} });
  token = readFileSync(join(svc.dataDir, LOCAL_TOKEN_FILE), 'utf8').trim();
});
afterAll(async () => {
  await server.close();
  svc.dispose();
});

const call = (name: string, body: unknown, headers: Record<string, string> = { [LOCAL_TOKEN_HEADER]: token }) =>
  fetch(`${server.url}/local/rpc/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

test('the token is written for this user only, and a call with it reaches the handler map, paths included', async () => {
  expect(token).toMatch(/^[\w-]{43}$/);
  expect(statSync(join(svc.dataDir, LOCAL_TOKEN_FILE)).mode & 0o777).toBe(0o600);
  const path = join(svc.ctx.resourcesDir, 'samples', 'native-ledger.csv');
  const res = await call('ledger-import', { source: { path } });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ status: 0, msg: '', data: { added: 30, rejected: 0 } });
});

test('without the token, with a wrong one, or from a browser page: refused before anything runs', async () => {
  for (const headers of [{}, { [LOCAL_TOKEN_HEADER]: token.slice(1) }] as Record<string, string>[]) {
    const res = await call('keys-create', { label: 'x', wallets: null }, headers);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: 2001, data: null });
  }
  const browser = await call('keys-create', { label: 'x', wallets: null }, { [LOCAL_TOKEN_HEADER]: token, origin: server.url });
  expect(browser.status).toBe(403);
  expect(await svc.invoke('keys-list', {}, { actor: 'cli' })).toEqual([]);
});

test('import jobs beyond the bound are refused at once with 4003 and Retry-After; other calls go on; the bound frees when the job ends', async () => {
  const other = tempService();
  const running = await startServer(other, { port: 0, log: () => {}, importBound: 1 });
  const doorToken = readFileSync(join(other.dataDir, LOCAL_TOKEN_FILE), 'utf8').trim();
  try {
    const file = join(other.dataDir, 'big.csv');
    await generateLedger(file, 60_000, { seed: 5, wallets: 2 });
    const post = (name: string, body: unknown, accept = 'application/json') =>
      fetch(`${running.url}/local/rpc/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, [LOCAL_TOKEN_HEADER]: doorToken },
        body: JSON.stringify(body),
      });
    // The first import streams its progress: it is in flight once the first line arrives.
    const first = await post('ledger-import', { source: { path: file } }, PROGRESS_MEDIA_TYPE);
    const lines = first.body!.pipeThrough(new TextDecoderStream()).getReader();
    const firstLine = await lines.read();
    expect(firstLine.value).toContain('progress');

    const second = await post('ledger-preview', { source: { path: file } });
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('10');
    expect(await second.json()).toEqual({
      status: 4003,
      data: null,
      msg: 'busy: 1 import jobs are in progress (the service takes 1 at once); retry in 10 s',
    });
    expect(await (await post('keys-list', {})).json()).toMatchObject({ status: 0, data: [] });

    let rest = firstLine.value!;
    for (let r = await lines.read(); !r.done; r = await lines.read()) rest += r.value;
    expect(JSON.parse(rest.trim().split('\n').at(-1)!)).toMatchObject({ status: 0, data: { added: 60_000 } });
    // Its answer sent, the job no longer counts.
    const again = await post('ledger-import', { source: { path: file } });
    expect(await again.json()).toMatchObject({ status: 0, data: { added: 0, unchanged: 60_000 } });
  } finally {
    await running.close();
    other.dispose();
  }
}, 60_000);

test('closing the service removes the token with api.json', async () => {
  const other = tempService();
  const running = await startServer(other, { port: 0, log: () => {} });
  await running.close();
  expect(() => statSync(join(other.dataDir, LOCAL_TOKEN_FILE))).toThrow();
  expect(() => statSync(join(other.dataDir, 'api.json'))).toThrow();
  other.dispose();
});
