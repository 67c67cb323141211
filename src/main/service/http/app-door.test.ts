import { strictAnswers } from './answers.test-support';
import type { FastifyInstance } from 'fastify';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportRuntime } from '../app/handlers';
import { tempService } from '../test-support';
import { CONTENT_SECURITY_POLICY, newUiCode, PROGRESS_MEDIA_TYPE, tokenMatches } from './app-door';
import { buildServer } from './server';
import { SESSION_HEADER } from './sessions';
import { LOCAL_TOKEN_HEADER } from '../data-folder';

let service: ReturnType<typeof tempService>;
let app: FastifyInstance;
let uiDir: string;
const code = newUiCode();
const host = '127.0.0.1:8730';
const origin = `http://${host}`;
/** What the door logged (internal errors). */
const logged: string[] = [];
/** The headers of the session the page traded the run's code for (beforeAll): its cookie and its token. */
let session: Record<string, string>;
/** The service's clock: moved to let sessions idle. */
let clock = Date.now();

const trade = (body: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/app/session',
    headers: { host, origin, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });

beforeAll(async () => {
  uiDir = mkdtempSync(join(tmpdir(), 'nps-ui-'));
  writeFileSync(
    join(uiDir, 'index.html'),
    '<!doctype html><html><head><meta charset="UTF-8" /><title>t</title></head><body></body></html>',
  );
  mkdirSync(join(uiDir, 'assets'));
  writeFileSync(join(uiDir, 'assets', 'app.js'), 'console.log(1)');
  service = tempService({ now: () => clock });
  app = buildServer(service, {
    ui: { dir: uiDir, code, idleMinutes: 30, logPlace: 'the log in /home/grace/NPS Reconcile/logs' },
    localToken: LOCAL_TOKEN,
    log: (line) => logged.push(line),
  });
  strictAnswers(app);
  await app.ready();
  const traded = await trade({ code });
  expect(traded.statusCode).toBe(200);
  const cookie = String(traded.headers['set-cookie']);
  expect(cookie).toMatch(/^nps_session_8730=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/app$/);
  const answer = traded.json() as { status: number; data: { token: string; idle_minutes: number } };
  expect(answer).toEqual({ status: 0, data: { token: expect.stringMatching(/^[\w-]{43}$/), idle_minutes: 30 }, msg: '' });
  session = { cookie: cookie.split(';')[0]!, [SESSION_HEADER]: answer.data.token };
});
afterAll(async () => {
  await app.close();
  service.dispose();
  rmSync(uiDir, { recursive: true, force: true });
});

const LOCAL_TOKEN = 'the-command-lines-token';

/** A fresh link's code, as `npm run nps -- open` asks the command line's door for one. */
async function freshCode(): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/local/session-link',
    headers: { host, 'content-type': 'application/json', [LOCAL_TOKEN_HEADER]: LOCAL_TOKEN },
    payload: '{}',
  });
  const link = (res.json() as { data: { link: string } }).data.link;
  expect(link).toMatch(new RegExp(`^http://${host}/#code=[\\w-]{43}$`));
  return link.split('#code=')[1]!;
}

const rpc = async (name: string, body: unknown, headers: Record<string, string> = session) => {
  const res = await app.inject({
    method: 'POST',
    url: `/app/rpc/${name}`,
    headers: { host, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
  return { http: res.statusCode, body: res.json() as { status: number; data: unknown; msg: string }, raw: res };
};

describe('the /app/rpc door', () => {
  it('answers a failure it did not expect with one sentence that names where the log is, and logs the stack', async () => {
    const handlers = service.handlers as unknown as Record<string, () => unknown>;
    const real = handlers['app-info']!;
    handlers['app-info'] = () => {
      throw new TypeError("Cannot read properties of undefined (reading 'api')");
    };
    try {
      const { http, body } = await rpc('app-info', {});
      expect(http).toBe(500);
      expect(body).toEqual({
        status: 5000,
        data: null,
        msg: 'internal error; the details are in the log in /home/grace/NPS Reconcile/logs',
      });
      expect(logged.at(-1)).toMatch(
        /^internal error in app-info: TypeError: Cannot read properties of undefined \(reading 'api'\)\n\s+at /,
      );
    } finally {
      handlers['app-info'] = real;
    }
  });

  it("trades the one-time code once: the link used again, one of another run, or another page's request gets no session", async () => {
    const again = await trade({ code });
    expect(again.statusCode).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.json()).toEqual({
      status: 2001,
      data: null,
      msg: 'code: this link was already used (a link opens one window, once); for a fresh link, run: npm run nps -- open (with --data-dir DIR when the service runs on another folder)',
    });
    const otherRun = await trade({ code: code.slice(0, -1) });
    expect(otherRun.statusCode).toBe(401);
    expect(otherRun.json().msg).toMatch(/^code: this link is not from this run of the service \(it has restarted since/);
    expect((await trade({})).statusCode).toBe(401);
    const foreign = await trade({ code }, { origin: 'http://evil.example' });
    expect(foreign.statusCode).toBe(403);
  });

  it('refuses a call without the session, with a made-up one, or from another page, with the envelope', async () => {
    const id = session.cookie!.split('=')[1]!;
    const token = session[SESSION_HEADER]!;
    for (const [headers, why] of [
      [{}, /^session: this window has none/],
      [{ cookie: 'nps_session_8730=' }, /^session: this window has none/],
      [
        { cookie: `nps_session_8730=${id.slice(0, -1)}x`, [SESSION_HEADER]: token },
        /^session: this window's session belongs to another browser/,
      ],
      [{ cookie: `nps_session_9999=${id}`, [SESSION_HEADER]: token }, /^session: this window's session belongs to another browser/],
      [{ cookie: session.cookie!, [SESSION_HEADER]: token.slice(0, -1) + 'x' }, /^session: this window's session has ended/],
      [{ 'x-nps-token': code }, /^session: this window has none/],
    ] as [Record<string, string>, RegExp][]) {
      const r = await rpc('catalogue-chains-list', {}, headers);
      expect(r.http).toBe(401);
      expect(r.body).toEqual({ status: 2001, data: null, msg: expect.stringMatching(why) });
    }
    const foreign = await rpc('catalogue-chains-list', {}, { ...session, origin: 'http://localhost:8730' });
    expect(foreign.http).toBe(403);
    expect((await rpc('catalogue-chains-list', {}, { ...session, origin })).http).toBe(200);
  });

  it('the session cookie alone, even with this server’s own Origin, calls nothing (other local servers receive that cookie too)', async () => {
    for (const headers of [{ cookie: session.cookie! }, { cookie: session.cookie!, origin }] as Record<string, string>[]) {
      const r = await rpc('keys-create', { label: 'stolen', wallets: null }, headers);
      expect(r.http).toBe(401);
      expect(r.body.msg).toMatch(/^session: a cookie alone opens no session; only the window that opened the link can call/);
    }
    expect(((await rpc('keys-list', {})).body.data as unknown[]).length).toBe(0);
  });

  it('the session trade reads a few hundred bytes at most: a 50 MB body is refused (413) from its Content-Length', async () => {
    const big = await app.inject({
      method: 'POST',
      url: '/app/session',
      headers: { host, origin, 'content-type': 'application/json' },
      payload: `{"code":"${'x'.repeat(50 * 1024 * 1024)}"}`,
    });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ status: 1003, data: null, msg: 'body: larger than the 512 bytes this path takes' });
  });

  it('never reads a file by its path: a source path is refused and nothing is imported', async () => {
    const path = join(service.ctx.resourcesDir, 'samples', 'native-ledger.csv');
    for (const name of ['ledger-detect', 'ledger-preview', 'ledger-import', 'reconcile-books-detect']) {
      const r = await rpc(name, { source: { path } });
      expect(r.http, name).toBe(400);
      expect(r.body, name).toEqual({ status: 1002, data: null, msg: expect.stringMatching(/^source\.path: the browser window sends/) });
    }
    expect((await rpc('imports-list', {})).body.data).toMatchObject({ total: 0 });
  });

  it('refuses before reading the body: a malformed body without the session is still 401', async () => {
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
      headers: { host, 'content-type': 'application/json', ...session },
      payload: '{not json',
    });
    expect(withToken.statusCode).toBe(400);
    expect(withToken.json().status).toBe(1001);
  });

  it('calls the handler map with the session and answers in the envelope', async () => {
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
      headers: { host, 'content-type': 'application/json', accept: PROGRESS_MEDIA_TYPE, ...session },
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
      headers: { host, 'content-type': 'application/json', accept: PROGRESS_MEDIA_TYPE, ...session },
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
      headers: { host: 'evil.example', 'content-type': 'application/json', ...session },
      payload: '{}',
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('the served page', () => {
  it('holds no credential (any local program can fetch it) and has a strict policy without inline script', async () => {
    const res = await app.inject({ method: 'GET', url: '/', headers: { host } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe(readFileSync(join(uiDir, 'index.html'), 'utf8'));
    expect(res.body).not.toContain(code);
    expect(res.headers['set-cookie']).toBeUndefined();
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
});

// Last: it moves the clock and ends the first window's session.
describe('sessions that end', () => {
  it('a session ends after the idle time without a call, and when its window closes (a reload keeps it)', async () => {
    // A second window of the same browser: a fresh link (the local door's), a token of its own, the same cookie.
    const second = await app.inject({
      method: 'POST',
      url: '/app/session',
      headers: { host, origin, 'content-type': 'application/json', cookie: session.cookie! },
      payload: JSON.stringify({ code: await freshCode() }),
    });
    expect(second.statusCode).toBe(200);
    expect(second.headers['set-cookie']).toBeUndefined();
    const window2 = { cookie: session.cookie!, [SESSION_HEADER]: (second.json() as { data: { token: string } }).data.token };
    expect((await rpc('app-info', {}, window2)).http).toBe(200);

    // 29 minutes without a call: still open; each call starts the idle time again.
    clock += 29 * 60_000;
    expect((await rpc('app-info', {}, window2)).http).toBe(200);
    clock += 29 * 60_000;
    expect((await rpc('app-info', {}, window2)).http).toBe(200);
    // The first window made no call for 58 minutes: ended.
    const idle = await rpc('app-info', {});
    expect(idle.http).toBe(401);
    expect(idle.body.msg).toMatch(/^session: this window's session has ended \(no call from it for 30 minutes/);

    // The second window closes: it says so as it goes; a reload calls again at once and keeps it …
    const leave = (headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/app/session/leave', headers: { host, origin, ...headers } });
    expect((await leave(window2)).statusCode).toBe(200);
    clock += 2_000;
    expect((await rpc('app-info', {}, window2)).http).toBe(200);
    // … a closed window does not, and its session ends.
    expect((await leave(window2)).statusCode).toBe(200);
    clock += 31_000;
    expect((await rpc('app-info', {}, window2)).http).toBe(401);
  });
});
