import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { connect } from 'node:net';
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
