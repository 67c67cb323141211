import { strictAnswers } from './answers.test-support';
import type { FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportRuntime } from '../app/handlers';
import { tempService } from '../test-support';
import { CONTENT_SECURITY_POLICY, injectToken, newUiToken, PROGRESS_MEDIA_TYPE, tokenMatches } from './app-door';
import { buildServer } from './server';

let service: ReturnType<typeof tempService>;
let app: FastifyInstance;
let uiDir: string;
const token = newUiToken();
const host = '127.0.0.1:8730';

beforeAll(async () => {
  uiDir = mkdtempSync(join(tmpdir(), 'nps-ui-'));
  writeFileSync(
    join(uiDir, 'index.html'),
    '<!doctype html><html><head><meta charset="UTF-8" /><title>t</title></head><body></body></html>',
  );
  mkdirSync(join(uiDir, 'assets'));
  writeFileSync(join(uiDir, 'assets', 'app.js'), 'console.log(1)');
  service = tempService();
  app = buildServer(service, { ui: { dir: uiDir, token } });
  strictAnswers(app);
  await app.ready();
});
afterAll(async () => {
  await app.close();
  service.dispose();
  rmSync(uiDir, { recursive: true, force: true });
});

const rpc = async (name: string, body: unknown, headers: Record<string, string> = { 'x-nps-token': token }) => {
  const res = await app.inject({
    method: 'POST',
    url: `/app/rpc/${name}`,
    headers: { host, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
  return { http: res.statusCode, body: res.json() as { status: number; data: unknown; msg: string }, raw: res };
};

describe('the /app/rpc door', () => {
  it('refuses a call without the token, or with a wrong one, with 401 in the envelope', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { 'x-nps-token': '' },
      { 'x-nps-token': token.slice(0, -1) },
      { 'x-nps-token': token + 'x' },
    ]) {
      const r = await rpc('catalogue-chains-list', {}, headers);
      expect(r.http).toBe(401);
      expect(r.body).toEqual({ status: 2001, data: null, msg: expect.stringContaining('x-nps-token') });
    }
  });

  it('refuses before reading the body: a malformed body without the token is still 401', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/app/rpc/app-info',
      headers: { host, 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(401);
    const withToken = await app.inject({
      method: 'POST',
      url: '/app/rpc/app-info',
      headers: { host, 'content-type': 'application/json', 'x-nps-token': token },
      payload: '{not json',
    });
    expect(withToken.statusCode).toBe(400);
    expect(withToken.json().status).toBe(1001);
  });

  it('calls the handler map with the token and answers in the envelope', async () => {
    const r = await rpc('catalogue-chains-list', { chain_identifier: 'TRON', page_size: 5 });
    expect(r.http).toBe(200);
    expect(r.body.status).toBe(0);
    expect(r.body.data).toMatchObject({ total: 1, page: 1, page_size: 5, chains: [{ chain_id: 'TRON' }] });
  });

  it('validates the input with the contract and names the field', async () => {
    const r = await rpc('catalogue-tokens-list', { page_size: 500 });
    expect(r.http).toBe(400);
    expect(r.body).toMatchObject({ status: 1002, msg: expect.stringMatching(/^page_size: /) });
  });

  it('answers an unknown handler with 1005', async () => {
    const r = await rpc('no-such-thing', {});
    expect(r.http).toBe(404);
    expect(r.body.status).toBe(1005);
  });

  it('maps a handler failure to its code (unknown chain: 3001)', async () => {
    const r = await rpc('address-check', { address: '0x0', chain_id: 'NOPE' });
    expect(r.http).toBe(404);
    expect(r.body.status).toBe(3001);
  });

  it('streams the envelope as the last line when progress is asked for', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/app/rpc/address-check',
      headers: { host, 'content-type': 'application/json', accept: PROGRESS_MEDIA_TYPE, 'x-nps-token': token },
      payload: JSON.stringify({ address: '0xdAC17F958D2ee523a2206206994597C13D831ec7', chain_id: 'ETH' }),
    });
    expect(res.headers['content-type']).toContain(PROGRESS_MEDIA_TYPE);
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ status: 0, data: { is_valid: true, family: 'ETH' } });
  });

  it('reports the progress of a long job line by line before its answer', async () => {
    const text = readFileSync(join(service.ctx.resourcesDir, 'samples', 'native-ledger.csv'), 'utf8');
    const res = await app.inject({
      method: 'POST',
      url: '/app/rpc/ledger-preview',
      headers: { host, 'content-type': 'application/json', accept: PROGRESS_MEDIA_TYPE, 'x-nps-token': token },
      payload: JSON.stringify({ source: { name: 'native-ledger.csv', text } }),
    });
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const progress = lines.slice(0, -1);
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(p).toEqual({ progress: expect.objectContaining({ done: expect.any(Number) }) });
    expect(lines.at(-1)).toMatchObject({ status: 0, msg: '', data: { dry_run: true, rows_total: 30, added: 30 } });
  });

  it('keeps the Host guard in front of the door', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/app/rpc/app-info',
      headers: { host: 'evil.example', 'content-type': 'application/json', 'x-nps-token': token },
      payload: '{}',
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('the served page', () => {
  it('carries the token in a meta tag and a strict policy without inline script', async () => {
    const res = await app.inject({ method: 'GET', url: '/', headers: { host } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain(`<meta name="nps-token" content="${token}" />`);
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('serves built assets and nothing outside the folder', async () => {
    const js = await app.inject({ method: 'GET', url: '/assets/app.js', headers: { host } });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    for (const url of ['/../package.json', '/assets/%2e%2e/%2e%2e/package.json', '/assets/missing.js', '/assets']) {
      const r = await app.inject({ method: 'GET', url, headers: { host } });
      expect(r.statusCode, url).toBe(404);
      expect(r.json().status).toBe(1005);
    }
  });

  it('leaves /nps as it was: 405 for a wrong method on a known path', async () => {
    const r = await app.inject({ method: 'GET', url: '/nps/address/verify', headers: { host } });
    expect(r.statusCode).toBe(405);
  });
});

describe('app handlers', () => {
  it('app-info reports what the starter told it', async () => {
    reportRuntime(service.ctx, {
      mode: 'browser',
      version: '9.9.9',
      api: { state: 'running', base_url: 'http://127.0.0.1:1/nps', host: '127.0.0.1', port: 1, error: null },
    });
    const r = await rpc('app-info', {});
    expect(r.body.data).toEqual({
      version: '9.9.9',
      mode: 'browser',
      data_dir: service.dataDir,
      db_file: join(service.dataDir, 'nps.sqlite'),
      api: { state: 'running', base_url: 'http://127.0.0.1:1/nps', host: '127.0.0.1', port: 1, error: null },
    });
  });

  it('app-explorer-link fills the catalogue template with an https URL', async () => {
    expect((await rpc('app-explorer-link', { chain_id: 'TRON', kind: 'tx', value: 'abc123' })).body.data).toEqual({
      url: 'https://tronscan.org/#/transaction/abc123',
    });
    expect((await rpc('app-explorer-link', { chain_id: 'ETH', kind: 'address', value: '0xabc' })).body.data).toEqual({
      url: 'https://etherscan.io/address/0xabc',
    });
    expect((await rpc('app-explorer-link', { chain_id: 'ETH', kind: 'tx', value: '../../evil' })).body.status).toBe(1002);
    expect((await rpc('app-explorer-link', { chain_id: 'ETH', kind: 'tx', value: 'a/b' })).body.status).toBe(1002);
  });
});

describe('token helpers', () => {
  it('compares tokens exactly', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches(['abc'], 'abc')).toBe(false);
    expect(tokenMatches(undefined, 'abc')).toBe(false);
  });
  it('injects the meta tag after the charset', () => {
    expect(injectToken('<head><meta charset="UTF-8" /><title>x</title>', 't')).toBe(
      '<head><meta charset="UTF-8" />\n    <meta name="nps-token" content="t" /><title>x</title>',
    );
  });
});
