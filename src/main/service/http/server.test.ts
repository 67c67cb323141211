import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { connect } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainPage } from '../../../shared/catalogue';
import { parseAnswer } from './answers.test-support';
import { tempService } from '../test-support';
import { startServer, type RunningServer } from './server';

let service: ReturnType<typeof tempService>;
let server: RunningServer;

beforeAll(async () => {
  service = tempService();
  server = await startServer(service, { port: 0 });
});
afterAll(async () => {
  await server.close();
  service.dispose();
});

/** A raw HTTP request, so the test controls every header (fetch would not let it set Host). */
function raw(method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; json: { status: number; data: unknown; msg: string } }>(
    (resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }));
      });
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    },
  );
}

/** Bytes written straight to the server's socket, and everything it answers until it closes. */
function rawSocket(text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write(text));
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (c) => (got += c));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = got.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body });
    });
  });
}

describe('the real server on a free port', () => {
  it('a request the HTTP parser refuses still gets the envelope: 431 for headers too large, 400 for garbage', async () => {
    const big = await rawSocket(`GET /nps/chains HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.status).toBe(431);
    expect(parseAnswer('GET', '/nps/chains', big.body)).toEqual({
      status: 1002,
      data: null,
      msg: 'headers: larger than the 16 KiB the service reads; send smaller headers',
    });
    const garbage = await rawSocket('NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(parseAnswer('GET', '/nps/chains', garbage.body)).toMatchObject({ status: 1002, data: null });
    // And a request without a Host header at all.
    const noHost = await rawSocket('GET /nps/chains HTTP/1.0\r\n\r\n');
    expect(noHost.status).toBe(400);
    expect(parseAnswer('GET', '/nps/chains', noHost.body)).toMatchObject({ status: 1002, msg: expect.stringMatching(/^Host: /) });
  });

  it('openapi.json names the port it listens on and marks every addition to the source description', async () => {
    expect(server.port).not.toBe(8730);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is walked freely below
    const doc = (await raw('GET', '/nps/openapi.json', { host: '127.0.0.1' })).json as any;
    expect(doc.servers).toEqual([{ url: `http://127.0.0.1:${server.port}` }]);
    const ok = (path: string, method: string) =>
      doc.paths[path][method].responses['200'].content['application/json'].schema.properties.data;
    const chain = ok('/nps/chains', 'get').properties.chains.items.properties;
    expect(Object.keys(chain)).toEqual([
      'chain_id',
      'chain_identifier',
      'native_token_id',
      'confirming_threshold',
      'explorer_tx_url',
      'explorer_address_url',
      'enabled',
      'name',
      'is_testnet',
      'explorer_url',
    ]);
    expect(
      Object.entries(chain)
        .filter(([, p]) => (p as { 'x-addition'?: true })['x-addition'])
        .map(([k]) => k),
    ).toEqual(['name', 'is_testnet', 'explorer_url']);
    const token = ok('/nps/tokens', 'get').properties.tokens.items.properties;
    expect(token.decimal).toMatchObject({ type: 'integer' });
    const ticket = ok('/nps/ticket', 'get').properties;
    expect(Object.keys(ticket).slice(0, 7)).toEqual([
      'ticket_id',
      'transaction_id',
      'abnormals',
      'desc',
      'status',
      'created_at',
      'updated_at',
    ]);
    const shapes = ok('/nps/bill/verify/txs', 'post').anyOf.map((s: { items: { properties: Record<string, unknown> } }) =>
      Object.keys(s.items.properties),
    );
    expect(shapes.map((keys: string[]) => keys.slice(9, 11))).toEqual([
      ['result', 'tx'],
      ['result', 'data'],
    ]);
  });

  it('binds to loopback and says where in api.json', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const address = server.app.server.address();
    expect(typeof address === 'object' && address?.address).toBe('127.0.0.1');
    const discovery = JSON.parse(readFileSync(join(service.dataDir, 'api.json'), 'utf8'));
    expect(discovery).toMatchObject({ base_url: `${server.url}/nps`, port: server.port, host: '127.0.0.1', pid: process.pid });
  });

  it('answers over HTTP', async () => {
    const res = await fetch(`${server.url}/nps/chains?chain_identifier=TRON`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const body = parseAnswer('GET', '/nps/chains?chain_identifier=TRON', await res.text()) as { status: number; data: ChainPage };
    expect(body.status).toBe(0);
    expect(body.data.chains.map((c) => c.chain_id)).toEqual(['TRON']);
  });

  it('checks an address over HTTP', async () => {
    const res = await fetch(`${server.url}/nps/address/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', chain_id: 'TRON' }),
    });
    expect(parseAnswer('POST', '/nps/address/verify', await res.text())).toEqual({
      status: 0,
      data: { is_valid: true, address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
      msg: '',
    });
  });

  it('refuses a rebinding Host and accepts the loopback names', async () => {
    const evil = await raw('GET', '/nps/chains', { host: `attacker.example:${server.port}` });
    expect(evil.status).toBe(400);
    expect(evil.json).toMatchObject({ status: 1002, data: null });
    for (const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `[::1]:${server.port}`]) {
      expect((await raw('GET', '/nps/chains', { host })).json.status).toBe(0);
    }
  });

  it('a POST without a content type: 1004', async () => {
    const r = await raw('POST', '/nps/address/verify', { host: 'localhost' }, '{"address":"x","chain_id":"ETH"}');
    expect(r.status).toBe(415);
    expect(r.json).toEqual({ status: 1004, data: null, msg: 'Content-Type: must be application/json' });
  });

  it('answers a client’s mistakes in the envelope, never 500: a method no route takes, a bad escape, HTTP/1.1 without Host', async () => {
    const query = await rawSocket('QUERY /nps/chains HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(query.status).toBe(405);
    expect(JSON.parse(query.body)).toEqual({ status: 1005, data: null, msg: 'method QUERY is not allowed on /nps/chains; use GET' });
    const unknown = await rawSocket('PROPFIND /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ status: 1005, data: null });
    const escape = await rawSocket('GET /nps/%ZZ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(escape.status).toBe(400);
    expect(JSON.parse(escape.body)).toEqual({
      status: 1002,
      data: null,
      msg: 'path: not a valid URL (a % not followed by two hex digits, or bytes that are not UTF-8)',
    });
    const noHost = await rawSocket('GET /nps/chains HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(noHost.status).toBe(400);
    expect(JSON.parse(noHost.body)).toMatchObject({ status: 1002, msg: 'Host: "" is not accepted; use 127.0.0.1, localhost or [::1]' });
  });

  it('removes api.json when it closes', async () => {
    const other = tempService();
    const s = await startServer(other, { port: 0 });
    const file = join(other.dataDir, 'api.json');
    expect(existsSync(file)).toBe(true);
    await s.close();
    expect(existsSync(file)).toBe(false);
    other.dispose();
  });
});

describe('slow and departing clients', () => {
  let quick: RunningServer;
  let svc: ReturnType<typeof tempService>;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    svc = tempService();
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    quick = await startServer(svc, { port: 0, logger, requestTimeoutMs: 600 });
  });
  afterAll(async () => {
    await quick.close();
    svc.dispose();
  });

  /** Write to the server, then wait for it to close the connection (bounded); what it answered and when. */
  function held(text: string, waitMs: number): Promise<{ ms: number; got: string; closed: boolean }> {
    return new Promise((resolve) => {
      const started = Date.now();
      const socket = connect(quick.port, '127.0.0.1', () => socket.write(text));
      let got = '';
      socket.setEncoding('utf8');
      socket.on('data', (c) => (got += c));
      socket.on('error', () => undefined);
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ ms: Date.now() - started, got, closed: false });
      }, waitMs);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ ms: Date.now() - started, got, closed: true });
      });
    });
  }

  it('a request whose headers or body do not arrive within the deadline is answered 408 in the envelope and its connection closed', async () => {
    const [partialHeaders, partialBody] = await Promise.all([
      held('POST /nps/address/verify HTTP/1.1\r\nHost: 127.0.0.1\r\n', 5_000),
      held(
        'POST /nps/address/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"addr',
        5_000,
      ),
    ]);
    for (const r of [partialHeaders, partialBody]) {
      expect(r.closed).toBe(true);
      expect(r.ms).toBeLessThan(3_000);
      expect(r.got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(JSON.parse(r.got.split('\r\n\r\n')[1]!)).toEqual({
        status: 1002,
        data: null,
        msg: 'request: its headers and body did not arrive in time; send the whole request at once',
      });
    }
  });

  it('a client that leaves in the middle of its body is logged as the client’s doing, without a stack, never as an internal error', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(quick.port, '127.0.0.1', () => {
        socket.write(
          'POST /nps/address/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"address":',
        );
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(lines.filter((l) => l.msg === 'internal error' || l.level === 50)).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ event: 'client-left', method: 'POST', path: '/nps/address/verify' }));
    expect(JSON.stringify(lines)).not.toContain('stack');
  });

  it('a failure after the request arrived whole is still the service’s own: 500, logged with its stack', async () => {
    const handlers = svc.handlers as unknown as Record<string, () => never>;
    const kept = handlers['address-verify']!;
    handlers['address-verify'] = () => {
      throw new Error('a bug');
    };
    try {
      const res = await fetch(`${quick.url}/nps/address/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address: 'x', chain_id: 'ETH' }),
      });
      expect(res.status).toBe(500);
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'internal error', error: 'a bug', stack: expect.stringContaining('a bug') }),
      );
    } finally {
      handlers['address-verify'] = kept;
    }
  });
});
