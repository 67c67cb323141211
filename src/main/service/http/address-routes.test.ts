import { describe, expect, it } from 'vitest';
import { routeTestApp } from './route.test-support';

const { app } = routeTestApp();

const post = async (payload: string | Buffer, contentType = 'application/json') => {
  const headers = { host: '127.0.0.1', 'content-type': contentType };
  const res = await app().inject({ method: 'POST', url: '/nps/address/verify', headers, payload });
  return { http: res.statusCode, body: res.json() };
};
const verify = (address: unknown, chain_id: unknown) => post(JSON.stringify({ address, chain_id }));

const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

describe('POST /nps/address/verify', () => {
  it.each([
    [EVM, 'ETH', true],
    [EVM.toLowerCase(), 'BSC_BNB', true],
    ['0x' + EVM.slice(2).toUpperCase(), 'MATIC', true],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', 'ETH', false],
    [EVM.slice(0, 40), 'ETH', false],
    [EVM.slice(2), 'ETH', false],
    [' ' + EVM, 'ETH', false],
    [TRON, 'ETH', false],
    [TRON, 'TRON', true],
    ['41a614f803b6fd780986a42c78ec9c7f77e6ded13c', 'TRON', true],
    [TRON.slice(0, -1) + 'T', 'TRON', false],
    [TRON.slice(0, -2), 'TRON', false],
    [TRON + ' ', 'TRON', false],
    [EVM, 'TRON', false],
    [EVM, 'SETH', true],
  ])('%s on %s -> is_valid %s, address echoed unchanged', async (address, chain, valid) => {
    const r = await verify(address, chain);
    expect(r.http).toBe(200);
    expect(r.body).toEqual({ status: 0, data: { is_valid: valid, address }, msg: '' });
  });

  it('unknown chain: 3001', async () => {
    const r = await verify(EVM, 'DOGE');
    expect(r.http).toBe(404);
    expect(r.body).toEqual({ status: 3001, data: null, msg: 'chain_id: unknown chain "DOGE"' });
  });

  it.each(['BTC', 'SOL'])('%s cannot be checked: 3005', async (chain) => {
    const r = await verify('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', chain);
    expect(r.http).toBe(400);
    expect(r.body.status).toBe(3005);
    expect(r.body.data).toBeNull();
    expect(r.body.msg).toMatch(/^chain_id: .* not supported for address verification/);
  });

  it.each([
    [{ chain_id: 'ETH' }, 'address: is required'],
    [{ address: EVM }, 'chain_id: is required'],
    [{ address: 42, chain_id: 'ETH' }, 'address: must be a string'],
    [{ address: EVM, chain_id: ['ETH'] }, 'chain_id: must be a string'],
    [{ address: null, chain_id: 'ETH' }, 'address: must be a string'],
  ])('bad parameters %j: 1002 naming the field', async (body, msg) => {
    const r = await post(JSON.stringify(body));
    expect(r.http).toBe(400);
    expect(r.body).toEqual({ status: 1002, data: null, msg });
  });

  it('a body that is not an object: 1002', async () => {
    const r = await post('[1,2]');
    expect(r.body.status).toBe(1002);
    expect(r.body.msg).toMatch(/^\(body\): /);
  });

  it.each(['{"address": "0x", ', '{address: 1}', 'nope', '{"a":1,"a":2}'])('malformed JSON %s: 1001', async (text) => {
    const r = await post(text);
    expect(r.http).toBe(400);
    expect(r.body.status).toBe(1001);
    expect(r.body.data).toBeNull();
    expect(r.body.msg).toMatch(/^body is not valid JSON/);
  });

  it('invalid UTF-8: 1001', async () => {
    const r = await post(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
    expect(r.body.status).toBe(1001);
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['application/jsonp']])(
    'content type %s: 1004 with 415',
    async (type) => {
      const r = await post(JSON.stringify({ address: EVM, chain_id: 'ETH' }), type);
      expect(r.http).toBe(415);
      expect(r.body).toEqual({ status: 1004, data: null, msg: 'Content-Type: must be application/json' });
    },
  );

  it('accepts a charset parameter on the JSON content type', async () => {
    const r = await post(JSON.stringify({ address: EVM, chain_id: 'ETH' }), 'application/json; charset=utf-8');
    expect(r.body.status).toBe(0);
  });

  it('a body over 5 MiB: 1003 with 413', async () => {
    const big = JSON.stringify({ address: 'x'.repeat(5 * 1024 * 1024), chain_id: 'ETH' });
    const r = await post(big);
    expect(r.http).toBe(413);
    expect(r.body).toMatchObject({ status: 1003, data: null });
  });

  it('wrong method: 405 with 1005', async () => {
    const res = await app().inject({ method: 'GET', url: '/nps/address/verify', headers: { host: 'localhost' } });
    expect(res.statusCode).toBe(405);
    expect(res.json()).toMatchObject({ status: 1005, data: null });
  });
});
