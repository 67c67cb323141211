import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { routeTestApp } from './route.test-support';

const { app, service } = routeTestApp();

const get = async (url: string) => {
  const res = await app().inject({ method: 'GET', url, headers: { host: '127.0.0.1:8730' } });
  return { http: res.statusCode, type: res.headers['content-type'], body: res.json(), text: res.body };
};

describe('GET /nps/chains', () => {
  it('lists every seeded chain in chain_id order inside the envelope', async () => {
    const r = await get('/nps/chains?page_size=100');
    expect(r.http).toBe(200);
    expect(r.type).toBe('application/json; charset=utf-8');
    expect(r.body.status).toBe(0);
    expect(r.body.msg).toBe('');
    const ids = r.body.data.chains.map((c: { chain_id: string }) => c.chain_id);
    expect(ids).toEqual(['ARBITRUM_ETH', 'AVAXC', 'BASE_ETH', 'BSC_BNB', 'BTC', 'ETH', 'MATIC', 'OPT_ETH', 'SETH', 'SOL', 'TRON']);
    expect(r.body.data).toMatchObject({ total: 11, page: 1, page_size: 100 });
  });

  it('filters by chain_identifier with the true total', async () => {
    const r = await get('/nps/chains?chain_identifier=ETH&page_size=3');
    expect(r.body.data.total).toBe(8);
    expect(r.body.data.chains).toHaveLength(3);
    expect(r.body.data.chains.every((c: { chain_identifier: string }) => c.chain_identifier === 'ETH')).toBe(true);
  });

  it('filters by chain_id exactly (no prefix or case-insensitive match)', async () => {
    expect((await get('/nps/chains?chain_id=TRON')).text).toBe(
      '{"status":0,"data":{"total":1,"chains":[{"chain_id":"TRON","chain_identifier":"TRON","native_token_id":"TRON","confirming_threshold":19,' +
        '"explorer_tx_url":"https://tronscan.org/#/transaction/{hash}","explorer_address_url":"https://tronscan.org/#/address/{address}","enabled":true,' +
        '"name":"TRON","is_testnet":false,"explorer_url":"https://tronscan.org"}],"page":1,"page_size":20},"msg":""}',
    );
    expect((await get('/nps/chains?chain_id=tron')).body.data).toMatchObject({ chains: [], total: 0 });
    expect((await get('/nps/chains?chain_id=TRO')).body.data.total).toBe(0);
  });

  it('every explorer template carries {hash} and {address}', async () => {
    const { chains } = (await get('/nps/chains?page_size=100')).body.data;
    for (const c of chains) {
      expect(c.explorer_tx_url).toMatch(/^https:\/\/.+\{hash\}/);
      expect(c.explorer_address_url).toMatch(/^https:\/\/.+\{address\}/);
    }
  });

  it('pages in a stable order: the pages together are the whole list, once each', async () => {
    const all = (await get('/nps/chains?page_size=100')).body.data.chains.map((c: { chain_id: string }) => c.chain_id);
    const paged: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const r = await get(`/nps/chains?page=${page}&page_size=3`);
      expect(r.body.data).toMatchObject({ total: 11, page, page_size: 3 });
      paged.push(...r.body.data.chains.map((c: { chain_id: string }) => c.chain_id));
    }
    expect(paged).toEqual(all);
  });

  it('returns an empty list with the true total past the end', async () => {
    const r = await get('/nps/chains?page=5&page_size=3');
    expect(r.body).toEqual({ status: 0, data: { total: 11, chains: [], page: 5, page_size: 3 }, msg: '' });
  });

  it('accepts page_size 100', async () => {
    expect((await get('/nps/chains?page_size=100')).body.status).toBe(0);
  });

  it.each([
    ['page_size=0', 'page_size'],
    ['page_size=101', 'page_size'],
    ['page_size=2.5', 'page_size'],
    ['page_size=abc', 'page_size'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=1e2', 'page'],
    ['page=', 'page'],
    ['chain_id=ETH&chain_id=TRON', 'chain_id'],
  ])('rejects %s with 1002 naming the field', async (query, field) => {
    const r = await get(`/nps/chains?${query}`);
    expect(r.http).toBe(400);
    expect(r.body.status).toBe(1002);
    expect(r.body.data).toBeNull();
    expect(r.body.msg).toMatch(new RegExp(`^${field}: `));
  });
});

it('a page past 2^53 - 1 (which a double cannot tell from its neighbours) is refused saying the bound, as openapi.json gives it', async () => {
  expect((await get('/nps/chains?page=9007199254740991')).body.status).toBe(0);
  for (const page of ['9007199254740992', '9007199254740993', '99999999999999999999']) {
    const r = await get(`/nps/chains?page=${page}`);
    expect(r.body).toEqual({ status: 1002, data: null, msg: 'page: must be an integer from 1 to 9007199254740991' });
  }
  const doc = (await app().inject({ method: 'GET', url: '/nps/openapi.json', headers: { host: 'localhost' } })).json();
  const page = doc.paths['/nps/chains'].get.parameters.find((p: { name: string }) => p.name === 'page');
  expect(page.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 9007199254740991 });
});

describe('GET /nps/tokens', () => {
  it('orders by chain_id then token_id, native coins included', async () => {
    const { tokens, total } = (await get('/nps/tokens?page_size=100')).body.data;
    expect(total).toBe(24);
    const keys = tokens.map((t: { chain_id: string; token_id: string }) => `${t.chain_id}/${t.token_id}`);
    expect(keys).toEqual([...keys].sort());
    expect(tokens.find((t: { token_id: string }) => t.token_id === 'TRON')).toMatchObject({
      is_native: true,
      decimal: 6,
      contract_address: '',
      symbol: 'TRX',
      can_deposit: true,
      can_withdraw: true,
    });
  });

  it('filters by chain_id with the true total', async () => {
    const r = await get('/nps/tokens?chain_id=TRON');
    expect(r.body.data.total).toBe(2);
    expect(r.body.data.tokens.map((t: { token_id: string }) => t.token_id)).toEqual(['TRON', 'TRON_USDT']);
  });

  it('gives real contract addresses and decimal places', async () => {
    const [usdt] = (await get('/nps/tokens?token_id=ETH_USDT')).body.data.tokens;
    expect(usdt).toMatchObject({
      chain_id: 'ETH',
      contract_address: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
      decimal: 6,
      is_native: false,
    });
    const [bsc] = (await get('/nps/tokens?token_id=BSC_USDT')).body.data.tokens;
    expect(bsc.decimal).toBe(18);
  });

  it('combines filters', async () => {
    expect((await get('/nps/tokens?chain_id=ETH&token_id=TRON_USDT')).body.data).toMatchObject({ tokens: [], total: 0 });
  });

  it.each(['page_size=0', 'page_size=101', 'page_size=2.5', 'page_size=abc'])('rejects %s with 1002', async (query) => {
    const r = await get(`/nps/tokens?${query}`);
    expect(r.body).toEqual({ status: 1002, data: null, msg: 'page_size: must be an integer from 1 to 100' });
  });
});

describe('every path answers in the envelope', () => {
  it('unknown path: 1005 with 404', async () => {
    const r = await get('/nps/nope');
    expect(r.http).toBe(404);
    expect(r.body).toEqual({ status: 1005, data: null, msg: 'no such path: GET /nps/nope' });
  });

  it('known path with the wrong method: 1005 with 405 and Allow', async () => {
    const res = await app().inject({ method: 'POST', url: '/nps/chains', headers: { host: 'localhost' } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.json()).toMatchObject({ status: 1005, data: null });
  });

  it('sends no CORS grant, even when asked', async () => {
    const res = await app().inject({
      method: 'OPTIONS',
      url: '/nps/chains',
      headers: { host: 'localhost', origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.json().status).toBe(1005);
    const get = await app().inject({ method: 'GET', url: '/nps/chains', headers: { host: 'localhost', origin: 'https://evil.example' } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each(['evil.example', 'evil.example:8730', '127.0.0.1.nip.io', '10.0.0.1'])('refuses Host %s', async (host) => {
    const res = await app().inject({ method: 'GET', url: '/nps/chains', headers: { host } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 1002, data: null });
    expect(res.json().msg).toMatch(/^Host: /);
  });

  it.each(['127.0.0.1', '127.0.0.1:8730', 'localhost', 'LOCALHOST:1', '[::1]', '[::1]:8730'])('accepts Host %s', async (host) => {
    const res = await app().inject({ method: 'GET', url: '/nps/chains', headers: { host } });
    expect(res.json().status).toBe(0);
  });
});

describe('answers kept until the catalogue changes', () => {
  it('an edit through the service shows in the next answer to the same query', async () => {
    const before = await get('/nps/chains?chain_id=BTC');
    expect(before.body.data.chains[0].enabled).toBe(true);
    expect((await get('/nps/chains?chain_id=BTC')).text).toBe(before.text);
    await service().invoke('catalogue-chain-update', { chain_id: 'BTC', enabled: false, confirming_threshold: 6 }, { actor: 'ui' });
    expect((await get('/nps/chains?chain_id=BTC')).body.data.chains[0]).toMatchObject({ enabled: false, confirming_threshold: 6 });
  });

  it('an edit by another connection to the store (another process) shows too', async () => {
    const other = new Database(service().ctx.db.$client.name);
    try {
      expect((await get('/nps/tokens?token_id=BTC')).body.data.tokens[0].can_withdraw).toBe(true);
      other.prepare("UPDATE tokens SET can_withdraw = 0, user_modified = 1 WHERE token_id = 'BTC'").run();
      expect((await get('/nps/tokens?token_id=BTC')).body.data.tokens[0].can_withdraw).toBe(false);
    } finally {
      other.close();
    }
  });
});

describe('GET /nps/openapi.json', () => {
  it('documents every /nps route from the validating schemas', async () => {
    const res = await app().inject({ method: 'GET', url: '/nps/openapi.json', headers: { host: 'localhost' } });
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/nps/chains', '/nps/tokens', '/nps/address/verify']));
    const pageSize = doc.paths['/nps/chains'].get.parameters.find((p: { name: string }) => p.name === 'page_size');
    expect(pageSize.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    const body = doc.paths['/nps/address/verify'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['address', 'chain_id']);
    expect(doc.paths['/nps/address/verify'].post.responses['404'].description).toMatch(/3001/);
  });
});
