import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateLedger } from '../../../../bench/generate-ledger';
import { LEDGER_FIELDS, type ImportReport, type TransactionRecord } from '../../../shared/ledger';
import type { CallMeta } from '../context';
import { failure, tempService } from '../test-support';
import { runImport } from './import';
import { evmHash, good, HEADER, id, text, W } from './native-rows.test-support';
import { encodeId } from '../db/ledger-sql';

const SAMPLES = join(__dirname, '../../../../resources/samples');
const sample = (name: string) => ({ path: join(SAMPLES, name) });
const meta: CallMeta = { actor: 'cli' };

const TREASURY = '3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6f';
const CUSTOMERS = '7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b';
const ETHERSCAN_WALLET = 'c1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607';
const TRONSCAN_WALLET = 'd4e5f607-1a2b-4c3d-9e4f-5a6b7c8d9e0f';

const TRANSACTION_INDEXES = [
  'transactions_chain_token_idx',
  'transactions_created_idx',
  'transactions_hash_idx',
  'transactions_id_idx',
  'transactions_request_idx',
  'transactions_wallet_created_idx',
];

let svc: ReturnType<typeof tempService>;
beforeEach(() => {
  svc = tempService();
});
afterEach(() => svc.dispose());

const importFile = (input: Record<string, unknown>, m: CallMeta = meta) => svc.invoke('ledger-import', input, m);
const preview = (input: Record<string, unknown>) => svc.invoke('ledger-preview', input, meta);

/** Every row of every table: the whole store, to compare before and after. */
function dump(): string {
  const db = svc.ctx.db.$client;
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  const schema = db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY type, name').all();
  return JSON.stringify({ schema, data: tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all()]) });
}

const record = (transactionId: string) => svc.invoke('transaction-get', { transaction_id: transactionId }, meta);
const all = async (query: Record<string, unknown> = {}) => (await svc.invoke('transactions-list', { page_size: 500, ...query }, meta)).list;

describe('native ledger', () => {
  it('imports the native CSV sample: BOM, CRLF, quoted cells, scientific notation and 18 decimal places exactly, three time forms', async () => {
    const raw = readFileSync(sample('native-ledger.csv').path);
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(raw.toString('utf8')).toContain('\r\n');

    const r = await importFile({ source: sample('native-ledger.csv') });
    expect(r).toMatchObject({
      preset: 'native',
      format: 'csv',
      rows_total: 30,
      added: 30,
      updated: 0,
      unchanged: 0,
      rejected: 0,
      dry_run: false,
    });
    expect(r.import_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.wallets_created).toEqual([TREASURY, CUSTOMERS]);

    const rows = await all();
    expect(rows).toHaveLength(30);
    const amounts = rows.map((x) => x.amount);
    expect(amounts).toContain('0.00000015');
    expect(amounts).toContain('2500');
    expect(amounts).toContain('500');
    expect(amounts).toContain('250.123456789012345678');
    expect(amounts).toContain('3000.000000000000000001');
    expect(rows.map((x) => x.fee)).toContain('0.00031');
    expect(rows.find((x) => x.request_id?.includes(','))?.request_id).toBe('WD-2026-01063, manual review');

    const trx = rows.find((x) => x.token_id === 'TRON')!;
    expect(trx.created_at! % 1000).toBe(0);
    expect(trx.confirmed_at! - trx.created_at!).toBe(60_000);
    for (const x of rows) {
      expect(x.status).toMatch(/^(Pending|Confirming|Completed|Failed|Rejected)$/);
      if (x.hash?.startsWith('0x')) expect(x.hash).toBe(x.hash.toLowerCase());
    }
    expect(new Set(rows.map((x) => x.status)).size).toBe(5);
    const iso = rows.find((x) => x.chain_id === 'ETH' && x.completed_at !== null)!;
    expect(iso.completed_at! - iso.created_at!).toBe(180_000);
  });

  it('imports the JSON sample, JSON numbers kept to the last digit', async () => {
    const r = await importFile({ source: sample('native-ledger.json') });
    expect(r).toMatchObject({ format: 'json', preset: 'native', rows_total: 10, added: 10, rejected: 0 });
    const amounts = (await all()).map((x) => x.amount);
    expect(readFileSync(sample('native-ledger.json').path, 'utf8')).toContain('"amount": 250.123456789012345678');
    expect(amounts).toContain('250.123456789012345678');
    expect(amounts).toContain('99.000000000000000001');
  });

  it('lands the valid rows of a file with bad rows in the middle and reports each bad one', async () => {
    const r = await importFile({ source: sample('native-with-bad-rows.csv') });
    // "12,5" is the file's only amount with a separator: a decimal comma (its other amounts are whole numbers).
    expect(r).toMatchObject({ rows_total: 12, added: 8, rejected: 4, read_as: { decimal_separator: ',' } });
    expect(r.rejections).toEqual([
      { row_number: 5, column: 'token_id', reason: 'unknown token "TRON_USDC" (not in the catalogue)', value: 'TRON_USDC' },
      { row_number: 7, column: 'transaction_id', reason: '"WD-7" is not a UUID', value: 'WD-7' },
      { row_number: 8, column: 'chain_id', reason: 'unknown chain "DOGE" (not in the catalogue)', value: 'DOGE' },
      {
        row_number: 9,
        column: 'status',
        reason: '"Done" is not a status (Pending, Confirming, Completed, Failed, Rejected)',
        value: 'Done',
      },
    ]);
    expect(r.message).toMatch(/header row is not counted/);
    expect(await all()).toHaveLength(8);
    expect((await record('31646068-703c-4395-8cf7-32491221894c')).amount).toBe('12.5');

    const detail = await svc.invoke('import-get', { import_id: r.import_id! }, meta);
    expect(detail).toMatchObject({ rows_total: 12, added: 8, rejected: 4, file_name: 'native-with-bad-rows.csv', preset: 'native' });
    expect(detail.rejections).toEqual(r.rejections);
    expect(detail.file_sha256).toMatch(/^[0-9a-f]{64}$/);
    const list = await svc.invoke('imports-list', {}, meta);
    expect(list.total).toBe(1);
    expect(list.list[0]!.import_id).toBe(r.import_id);
  });

  it('changes nothing when the same file is imported again', async () => {
    await importFile({ source: sample('native-ledger.csv') });
    const records = JSON.stringify(await all());
    const r = await importFile({ source: sample('native-ledger.csv') });
    expect(r).toMatchObject({ added: 0, updated: 0, unchanged: 30, rejected: 0, wallets_created: [] });
    expect(JSON.stringify(await all())).toBe(records);
  });

  it('updates a known transaction_id with new values and names the changed fields', async () => {
    await importFile({ source: text([good(1), good(2), good(3)]) });
    const before = await record(id(2));
    const r = await importFile({
      source: text([good(1), good(2, { status: 'Failed', amount: '2.50', fee: '0.1' }), good(3, { amount: '3.500' })]),
    });
    expect(r).toMatchObject({ added: 0, updated: 1, unchanged: 2 });
    // Each change with the value the record had and the one it has now, so the report shows what an update does.
    expect(r.updates).toEqual([
      {
        row_number: 2,
        transaction_id: id(2),
        fields: ['status', 'fee'],
        changes: [
          { field: 'status', before: 'Completed', after: 'Failed' },
          { field: 'fee', before: null, after: '0.1' },
        ],
      },
    ]);
    const after = await record(id(2));
    expect(after).toMatchObject({ status: 'Failed', amount: '2.5', fee: '0.1', import_id: r.import_id });
    expect(before.status).toBe('Completed');
  });

  it('reads the three time forms and stores milliseconds', async () => {
    const ms = Date.UTC(2026, 0, 2, 3, 4, 5);
    await importFile({
      source: text([
        good(1, { created_at: String(ms / 1000), confirmed_at: String(ms + 250), completed_at: '2026-01-02T11:04:05.5+08:00' }),
        good(2, { created_at: '2026-01-02T03:04:05Z' }),
      ]),
    });
    expect(await record(id(1))).toMatchObject({ created_at: ms, confirmed_at: ms + 250, completed_at: ms + 500 });
    expect((await record(id(2))).created_at).toBe(ms);
    const bad = await importFile({ source: text([good(3, { created_at: '2026-02-30T00:00:00Z' }), good(4, { confirmed_at: '17' })]) });
    expect(bad.rejections.map((x) => [x.row_number, x.column])).toEqual([
      [1, 'created_at'],
      [2, 'confirmed_at'],
    ]);
  });

  it('reads quoted cells with commas, quotes and line breaks; CRLF and a BOM from a text source', async () => {
    const lines = [good(1, { request_id: '"order 7, ""rush"""' }), good(2, { request_id: 'plain' })];
    const r = await importFile({ source: { name: 'x.csv', text: '\ufeff' + [HEADER, ...lines].join('\r\n') + '\r\n' } });
    expect(r).toMatchObject({ added: 2, rejected: 0 });
    expect((await record(id(1))).request_id).toBe('order 7, "rush"');
    const multi = await importFile({ source: text([good(3, { request_id: '"two\nlines"' }), good(4)]) });
    expect(multi.rejections).toEqual([
      { row_number: 1, column: 'request_id', reason: 'contains a control character (tab, line break, ...)', value: '' },
    ]);
    expect(multi.added).toBe(1);
  });

  it('reads UTF-16 with a byte-order mark, as some spreadsheets save "Unicode text"', async () => {
    const file = join(svc.dataDir, 'utf16.csv');
    const body = [HEADER, good(1, { request_id: 'Zürich €' }), good(2)].join('\r\n') + '\r\n';
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')]));
    const r = await importFile({ source: { path: file } });
    expect(r).toMatchObject({ added: 2, rejected: 0 });
    expect((await record(id(1))).request_id).toBe('Zürich €');
  });

  it('skips blank lines and rows of empty cells, counting them in row numbers', async () => {
    const r = await importFile({ source: text([good(1), '', '   ', ',,,,,,,,,,,,,,,,,', good(2, { amount: 'x' }), 'x,,', ',,,', '']) });
    expect(r).toMatchObject({ rows_total: 3, added: 1, rejected: 2 });
    expect(r.rejections.map((x) => [x.row_number, x.column])).toEqual([
      [5, 'amount'],
      [6, '(row)'],
    ]);
  });

  it('reads a semicolon-separated file with its columns in another order', async () => {
    const fields = [...LEDGER_FIELDS].reverse();
    const values: Record<string, string> = {
      transaction_id: id(9),
      wallet_id: W,
      type: 'withdrawal',
      status: 'PENDING',
      amount: '1E-6',
      chain_id: 'TRON',
      token_id: 'TRON_USDT',
    };
    const r = await importFile({
      source: { name: 'semi.csv', text: `${fields.join(';')}\n${fields.map((f) => values[f] ?? '').join(';')}\n` },
    });
    expect(r).toMatchObject({ added: 1, rejected: 0 });
    expect(await record(id(9))).toMatchObject({ type: 'Withdrawal', status: 'Pending', amount: '0.000001' });
  });

  it('rejects a transaction_id given again in one file, pointing at its first row, which counts', async () => {
    const lines = [good(1), good(2), good(1, { amount: '9' }), good(1, { amount: '0.5' }), good(3, { amount: 'x' }), good(2)];
    const p = await preview({ source: text(lines) });
    const r = await importFile({ source: text(lines) });
    for (const report of [p, r]) {
      expect(report).toMatchObject({ rows_total: 6, added: 2, rejected: 4 });
      expect(report.rejections.map((x) => [x.row_number, x.column])).toEqual([
        [3, 'transaction_id'],
        [4, 'transaction_id'],
        [5, 'amount'],
        [6, 'transaction_id'],
      ]);
      expect(report.rejections[1]!.reason).toBe(`${id(1)} already appears on data row 1; a record may appear once per file`);
      expect(report.rejections[3]!.reason).toMatch(/data row 2;/);
    }
    expect((await record(id(1))).amount).toBe('1.5');
    expect((await svc.invoke('import-get', { import_id: r.import_id! }, meta)).rejections).toEqual(r.rejections);
  });

  it('rejects rows that break the catalogue, the token decimal places or the chain address form', async () => {
    const r = await importFile({
      source: text([
        good(1, { token_id: 'TRON_USDT' }),
        good(2, { amount: '1.1234567' }),
        good(3, { to: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }),
        good(4, { to: '0xdac17f958d2ee523a2206206994597c13d831EC7' }),
        good(5, { hash: 'abc' }),
        good(6, { amount: '-5' }),
        good(7, { wallet_id: 'not-a-uuid' }),
        good(8, { type: 'Transfer' }),
        good(9, { to: '0xdAC17F958D2ee523a2206206994597C13D831ec7' }),
      ]),
    });
    expect(r.rejections.map((x) => [x.row_number, x.column])).toEqual([
      [1, 'token_id'],
      [2, 'amount'],
      [3, 'to'],
      [4, 'to'],
      [5, 'hash'],
      [6, 'amount'],
      [7, 'wallet_id'],
      [8, 'type'],
    ]);
    expect(r.rejections[1]!.reason).toMatch(/7 decimal places; ETH_USDT has 6/);
    expect(r.added).toBe(1);
  });

  it('holds rows to --wallet-id and fills it where the cell is empty', async () => {
    const other = '99999999-2222-4333-8444-555555555555';
    const r = await importFile({ source: text([good(1), good(2, { wallet_id: '' })]), wallet_id: other });
    expect(r.rejections).toEqual([
      { row_number: 1, column: 'wallet_id', reason: `is "${W}", but this import is for "${other}"`, value: W },
    ]);
    expect((await record(id(2))).wallet_id).toBe(other);
  });

  it('previews without writing, with the counts the import then has', async () => {
    await importFile({ source: text([good(1), good(2)]) });
    const before = dump();
    const lines = [good(1), good(2, { status: 'Failed' }), good(3, { wallet_id: TREASURY }), good(4, { amount: 'x' })];
    const p = await preview({ source: text(lines) });
    expect(dump()).toBe(before);
    expect(p).toMatchObject({
      dry_run: true,
      import_id: null,
      added: 1,
      updated: 1,
      unchanged: 1,
      rejected: 1,
      wallets_created: [TREASURY],
    });
    expect(p.message).toMatch(/Preview only/);
    const r = await importFile({ source: text(lines) });
    const strip = (x: ImportReport) => ({ ...x, dry_run: undefined, import_id: undefined, duration_ms: undefined, message: undefined });
    expect(strip(r)).toEqual(strip(p));
  });

  it('a file written on a worker thread reports repeats, updates, wallets and previews as one written on the service connection', async () => {
    await importFile({ source: text([good(1), good(2)]) });
    const before = dump();
    // Rows 48 and 49 repeat a row added and a record known before, after many rows between.
    const lines = [
      good(1),
      good(2, { status: 'Failed' }),
      good(1, { amount: '9' }),
      good(3, { wallet_id: TREASURY }),
      good(3),
      good(2),
      good(4, { amount: 'x' }),
    ];
    lines.push(...Array.from({ length: 40 }, (_, i) => good(100 + i)), good(101, { amount: '7' }), good(1));
    const run = (dryRun: boolean, workerMinBytes?: number) => runImport(svc.ctx, { source: text(lines), dryRun, workerMinBytes });
    const strip = (x: ImportReport) => ({ ...x, dry_run: undefined, import_id: undefined, duration_ms: undefined, message: undefined });
    const local = await run(true);
    const threaded = await run(true, 0);
    expect(dump()).toBe(before);
    expect(strip(threaded)).toEqual(strip(local));
    expect(threaded).toMatchObject({ rows_total: 49, added: 41, updated: 1, unchanged: 1, rejected: 6, wallets_created: [TREASURY] });
    expect(threaded.rejections.map((x) => [x.row_number, x.reason.match(/data row (\d+)/)?.[1] ?? x.column])).toEqual([
      [3, '1'],
      [5, '4'],
      [6, '2'],
      [7, 'amount'],
      [48, '9'],
      [49, '1'],
    ]);
    const r = await run(false, 0);
    expect(strip(r)).toEqual(strip(local));
    expect(await record(id(2))).toMatchObject({ status: 'Failed', import_id: r.import_id });
    expect((await record(id(3))).wallet_id).toBe(TREASURY);
    expect((await record(id(101))).amount).toBe('101.5');
    expect((await svc.invoke('import-get', { import_id: r.import_id! }, meta)).rejections).toEqual(r.rejections);
  });

  it('a bulk load into an empty ledger (no index during the load) rejects repeats and creates wallets as the row-by-row load does', async () => {
    const before = dump();
    // Row 5 repeats row 4 with a wallet no kept row has; rows 3 and 45 repeat row 1; row 44 repeats row 6.
    const lines = [
      good(1),
      good(2),
      good(1, { amount: '9' }),
      good(5),
      good(5, { wallet_id: CUSTOMERS }),
      good(3, { wallet_id: TREASURY }),
      good(4, { amount: 'x' }),
    ];
    lines.push(...Array.from({ length: 36 }, (_, i) => good(100 + i)), good(3), good(1));
    const run = (dryRun: boolean, workerMinBytes?: number, rebuildMinRows?: number) =>
      runImport(svc.ctx, { source: text(lines), dryRun, workerMinBytes, rebuildMinRows });
    const strip = (x: ImportReport) => ({ ...x, dry_run: undefined, import_id: undefined, duration_ms: undefined, message: undefined });
    const rowByRow = await run(true);
    expect(rowByRow).toMatchObject({ rows_total: 45, added: 40, rejected: 5, wallets_created: [W, TREASURY] });
    expect(rowByRow.rejections.map((x) => [x.row_number, x.reason.match(/data row (\d+)/)?.[1] ?? x.column])).toEqual([
      [3, '1'],
      [5, '4'],
      [7, 'amount'],
      [44, '6'],
      [45, '1'],
    ]);
    expect(strip(await run(true, undefined, 1))).toEqual(strip(rowByRow));
    expect(strip(await run(true, 0, 1))).toEqual(strip(rowByRow));
    expect(dump()).toBe(before);

    const r = await run(false, 0, 1);
    expect(strip(r)).toEqual(strip(rowByRow));
    const wallets = (await svc.invoke('wallets-list', {}, meta)).map((w) => w.wallet_id).sort();
    expect(wallets).toEqual([W, TREASURY]);
    expect((await record(id(1))).amount).toBe('1.5');
    expect((await record(id(5))).wallet_id).toBe(W);
    expect(await all()).toHaveLength(40);
    const db = svc.ctx.db.$client;
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger_rows' ORDER BY name").pluck().all(),
    ).toEqual(TRANSACTION_INDEXES);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    // The unique index is back: the next import finds repeats of these records as updates.
    const again = await importFile({ source: text([good(1, { amount: '2' })]) });
    expect(again).toMatchObject({ added: 0, updated: 1 });
  });

  it('reports progress in rows and bytes', async () => {
    const seen: { done: number; bytes?: number; totalBytes?: number }[] = [];
    await importFile({ source: sample('native-ledger.csv') }, { actor: 'ui', onProgress: (p) => seen.push(p) });
    const last = seen.at(-1)!;
    expect(last).toEqual({ done: 30, bytes: last.totalBytes, totalBytes: readFileSync(sample('native-ledger.csv').path).length });
  });
});

describe('a file that fails as a whole leaves the store unchanged', () => {
  beforeEach(async () => {
    await importFile({ source: text([good(1), good(2)]) });
  });

  it.each([
    [
      'the bad-header sample',
      sample('bad-header.csv'),
      /fits no known format: the native format needs the columns transaction_id, type, status, amount, chain_id, token_id/,
    ],
    [
      'a missing required column',
      { name: 'm.csv', text: 'transaction_id,wallet_id,type,status,amount,chain_id\nx,y,z,w,1,ETH\n' },
      /needs the column token_id/,
    ],
    [
      'no wallet for a native file without wallet_id',
      { name: 'nw.csv', text: `transaction_id,type,status,amount,chain_id,token_id\n${id(5)},Deposit,Completed,1,ETH,ETH\n` },
      /no wallet_id column: say which wallet every row goes to \(give --wallet NAME or --wallet-id W\)/,
    ],
    ['an empty file', { name: 'e.csv', text: '' }, /empty/],
    ['a single object instead of an array', { name: 'o.json', text: '{"transaction_id": "x"}' }, /array of objects/],
    ['a JSON array cut short', { name: 'c.json', text: `[{"transaction_id":"${id(5)}","wallet_id":"${W}"` }, /not closed/],
    ['a JSON array of numbers', { name: 'n.json', text: '[1, 2]' }, /first element is not an object/],
    ['a header naming a column twice', { name: 'd.csv', text: `${HEADER},amount\n` }, /column twice: amount/],
    ['a quote never closed', { name: 'q.csv', text: `${HEADER}\n${good(7)}\n"${good(8)}\n${good(9)}\n` }, /malformed CSV/],
    ['an unknown preset', { name: 'p.csv', text: `${HEADER}\n${good(7)}\n` }, /preset: unknown preset "bitstamp"/, 'bitstamp'],
  ])('%s', async (_what, source, message, preset?: string) => {
    const before = dump();
    const err = await failure(importFile({ source, ...(preset ? { preset } : {}) }));
    expect(err.code).toBe(1002);
    expect(err.message).toMatch(message);
    expect(dump()).toBe(before);
  });

  it('bytes that are not UTF-8, a workbook and a missing path', async () => {
    const dir = svc.dataDir;
    const latin1 = join(dir, 'latin1.csv');
    writeFileSync(
      latin1,
      Buffer.concat([Buffer.from(`${HEADER}\n`), Buffer.from(good(7, { request_id: 'Zürich' }), 'latin1'), Buffer.from('\n')]),
    );
    const xlsx = join(dir, 'book.xlsx');
    writeFileSync(xlsx, Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(100)]));
    const before = dump();
    expect((await failure(importFile({ source: { path: xlsx } }))).message).toMatch(/xlsx/);
    expect((await failure(importFile({ source: { path: join(dir, 'nope.csv') } }))).message).toMatch(/nope\.csv: no such file/);
    expect(dump()).toBe(before);
    // Bytes that are not UTF-8 are what Excel's "CSV (Comma delimited)" writes on Windows: Windows-1252.
    const d = await svc.invoke('ledger-detect', { source: { path: latin1 } }, meta);
    expect(d.encoding).toBe('windows-1252');
    await importFile({ source: { path: latin1 } });
    expect((await record(id(7))).request_id).toBe('Zürich');
  });

  it('a file without one valid row: the report says so and nothing changes', async () => {
    const before = dump();
    const r = await importFile({ source: text([good(7, { amount: 'x' }), good(8, { chain_id: 'DOGE' })]) });
    expect(r).toMatchObject({ import_id: null, added: 0, rejected: 2 });
    expect(r.message).toMatch(/^Nothing was imported: all 2 rows were rejected\. Most often: /);
    expect(dump()).toBe(before);
  });

  it('an error in the middle of the transaction rolls back every row, wallet and the import record', async () => {
    // A trigger aborts the 6th insert, after five rows, a new wallet and their index entries are written.
    svc.ctx.db.$client.exec(
      `CREATE TRIGGER fail_mid BEFORE INSERT ON ledger_rows WHEN NEW.tx_key = (SELECT ${encodeId('v')} FROM (SELECT '${id(16)}' AS v)) BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
    const before = dump();
    const lines = Array.from({ length: 10 }, (_, i) => good(11 + i, { wallet_id: TREASURY }));
    await expect(importFile({ source: text(lines) })).rejects.toThrow(/injected failure/);
    expect(dump()).toBe(before);
  });

  it('the same for a bulk load whose indexes are rebuilt inside the transaction', async () => {
    const file = join(svc.dataDir, 'bulk.csv');
    await generateLedger(file, 60_000, { seed: 7, wallets: 3 });
    const victim = readFileSync(file, 'utf8').split('\n')[40_000]!.split(',')[0]!;
    svc.ctx.db.$client.exec(
      `CREATE TRIGGER fail_mid BEFORE INSERT ON ledger_rows WHEN NEW.tx_key = (SELECT ${encodeId('v')} FROM (SELECT '${victim}' AS v)) BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
    const before = dump();
    await expect(importFile({ source: { path: file } })).rejects.toThrow(/injected failure/);
    expect(dump()).toBe(before);

    svc.ctx.db.$client.exec('DROP TRIGGER fail_mid');
    const r = await importFile({ source: { path: file } });
    expect(r).toMatchObject({ added: 60_000, rejected: 0 });
    const indexes = svc.ctx.db.$client
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger_rows' ORDER BY name")
      .pluck()
      .all();
    expect(indexes).toEqual(TRANSACTION_INDEXES);
    expect(svc.ctx.db.$client.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(svc.ctx.db.$client.pragma('temp_store', { simple: true })).toBe(2);
    expect(svc.ctx.db.$client.pragma('cache_size', { simple: true })).toBe(-65536);
  });

  it('a large import gives the service its writes back only once its rows are out of the write-ahead log, and leaves the log empty on disk', async () => {
    // Were the service's connection to write first, its commit would copy the import's whole log
    // on the service's thread (SQLite's automatic checkpoint), and every call would wait on it.
    const file = join(svc.dataDir, 'bulk.csv');
    await generateLedger(file, 20_000, { seed: 8, wallets: 2 });
    const wal = `${svc.ctx.db.$client.name}-wal`;
    const count = () => svc.ctx.db.$client.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
    const before = count();
    const r = await importFile({ source: { path: file } });
    expect(r).toMatchObject({ added: 20_000, rejected: 0 });
    await svc.ctx.engine.writable();
    expect(statSync(wal).size).toBe(0);
    expect(count()).toBe(before + 20_000);
  });
});

describe('presets', () => {
  it('lists the three presets with their mappings', async () => {
    const presets = await svc.invoke('ledger-presets-list', {}, meta);
    expect(presets.map((p) => p.name)).toEqual([
      'native',
      'etherscan-internal',
      'etherscan-tokens',
      'etherscan-token-page',
      'etherscan',
      'etherscan-list',
      'tronscan',
    ]);
    expect(presets[4]!.mapping.columns).toMatchObject({
      hash: 'Transaction Hash',
      amount_in: 'Value_IN(ETH)',
      amount_out: 'Value_OUT(ETH)',
    });
  });

  it('detects each sample and suggests its mapping', async () => {
    const cases = [
      ['native-ledger.csv', 'native', 'csv'],
      ['native-ledger.json', 'native', 'json'],
      ['etherscan-transactions.csv', 'etherscan', 'csv'],
      ['tronscan-token-transfers.csv', 'tronscan', 'csv'],
      ['bad-header.csv', null, 'csv'],
    ] as const;
    for (const [file, preset, format] of cases) {
      const d = await svc.invoke('ledger-detect', { source: sample(file) }, meta);
      expect([file, d.preset, d.format]).toEqual([file, preset, format]);
      expect(d.sample.length).toBeGreaterThan(0);
      expect(Object.keys(d.sample[0]!)).toEqual(d.headers);
    }
    // A native file: the time shown beside its created_at cell.
    const native = await svc.invoke('ledger-detect', { source: sample('native-ledger.csv') }, meta);
    expect(native.parsed.length).toBeGreaterThan(0);
    for (const [i, row] of native.parsed.entries()) expect(row.raw_time).toBe(native.sample[i]!.created_at);
    const bad = await svc.invoke('ledger-detect', { source: sample('bad-header.csv') }, meta);
    expect(bad.mapping.columns).toMatchObject({ amount: 'qty', status: 'state', type: 'kind', created_at: 'time' });
    expect(bad.row_estimate).toBe(2);
    const trx = await svc.invoke('ledger-detect', { source: sample('tronscan-token-transfers.csv') }, meta);
    expect(trx.read_as.wallet_address).toBe('TWSjYGnedK9bWn4ov6LeXR9euGKbPoCcE5');
  });

  it('imports the Etherscan sample for a wallet, and again without change', async () => {
    // Value_IN(ETH): Ethereum, Arbitrum, Optimism or Base; the file does not say which.
    const noChain = await failure(importFile({ source: sample('etherscan-transactions.csv'), wallet_id: ETHERSCAN_WALLET }));
    expect(noChain.message).toMatch(/values are in ETH.*give --chain ETH\|ARBITRUM_ETH\|OPT_ETH\|BASE_ETH/);
    const err = await failure(importFile({ source: sample('etherscan-transactions.csv'), chain_id: 'ETH' }));
    expect(err.message).toMatch(/no wallet_id column.*\(give --wallet NAME or --wallet-id W\)/);

    const r = await importFile({ source: sample('etherscan-transactions.csv'), wallet_id: ETHERSCAN_WALLET, chain_id: 'ETH' });
    expect(r).toMatchObject({ preset: 'etherscan', rows_total: 10, added: 10, rejected: 0 });
    const rows = await all({ wallet_id: ETHERSCAN_WALLET });
    const byType = (t: string) => rows.filter((x) => x.type === t);
    expect(byType('Deposit')).toHaveLength(4);
    expect(byType('Withdrawal')).toHaveLength(6);
    for (const x of rows) expect(x).toMatchObject({ chain_id: 'ETH', token_id: 'ETH', wallet_id: ETHERSCAN_WALLET });
    for (const x of byType('Deposit')) expect(x.fee).toBe('');
    expect(rows.map((x) => x.amount)).toContain('0.000000000000000001');
    const failed = rows.filter((x) => x.status === 'Failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ type: 'Withdrawal', amount: '0', fee: '0.001873' });
    const first = rows.find((x) => x.amount === '1.5')!;
    expect(first.created_at).toBe(1767439102000);
    expect(first.confirmed_at).toBe(1767439102000);
    expect(first.transaction_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5/);

    const again = await importFile({ source: sample('etherscan-transactions.csv'), wallet_id: ETHERSCAN_WALLET, chain_id: 'ETH' });
    expect(again).toMatchObject({ added: 0, unchanged: 10 });
  });

  it('imports the Tronscan sample: direction from the address, token from its contract, confirmation as status', async () => {
    const r = await importFile({ source: sample('tronscan-token-transfers.csv'), wallet_id: TRONSCAN_WALLET });
    expect(r).toMatchObject({ preset: 'tronscan', rows_total: 8, added: 8, rejected: 0 });
    const rows = await all({ wallet_id: TRONSCAN_WALLET });
    expect(rows.filter((x) => x.type === 'Deposit')).toHaveLength(5);
    expect(rows.find((x) => x.token_id === 'TRON')).toMatchObject({ amount: '10', type: 'Deposit' });
    expect(rows.find((x) => x.status === 'Confirming')).toMatchObject({ amount: '2000', token_id: 'TRON_USDT' });
    expect(rows.find((x) => x.amount === '12345.678901')).toMatchObject({ type: 'Withdrawal', status: 'Completed' });
    const t = rows.find((x) => x.amount === '1250')!;
    expect(new Date(t.created_at!).toISOString()).toBe('2026-01-04T01:41:25.000Z');

    const wrong = await importFile({
      source: sample('tronscan-token-transfers.csv'),
      wallet_id: TRONSCAN_WALLET,
      wallet_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    });
    expect(wrong.rejected).toBe(8);
    expect(wrong.rejections[0]!.reason).toMatch(/neither from nor to is the wallet's address/);
  });

  it('a Tronscan file saved again by a German or French spreadsheet (WAHR/FALSCH, VRAI/FAUX) reads the same statuses', async () => {
    const original = readFileSync(sample('tronscan-token-transfers.csv').path, 'utf8');
    await importFile({ source: sample('tronscan-token-transfers.csv'), wallet_id: TRONSCAN_WALLET });
    const statuses = async () => (await all()).map((x) => [x.hash, x.status]).sort();
    const before = await statuses();
    for (const [yes, no] of [
      ['WAHR', 'FALSCH'],
      ['VRAI', 'FAUX'],
    ]) {
      const text = original.replace(/,true$/gm, `,${yes}`).replace(/,false$/gm, `,${no}`);
      expect(text).toContain(`,${no}`);
      const r = await importFile({ source: { name: `${yes}.csv`, text }, wallet_id: TRONSCAN_WALLET });
      expect(r).toMatchObject({ rejected: 0, unchanged: 8 });
    }
    expect(await statuses()).toEqual(before);
  });

  it('a Tronscan file whose tokenAddress column was deleted: a symbol never picks a token, so a "USDT" row is rejected, never booked as TRON_USDT', async () => {
    // Columns cut by a spreadsheet: the contract column is gone, the symbols are left.
    const withoutContract = readFileSync(sample('tronscan-token-transfers.csv').path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const cells = line.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
        cells.splice(8, 1);
        return cells.join(',');
      });
    expect(withoutContract[0]).toBe('Tx Hash,blockHeight,blockTime(UTC+8),blockTime(UTC),from,to,value,symbol,isConfirm');
    const source = { name: 'no-contract.csv', text: withoutContract.join('\n') };
    const r = await importFile({ source, wallet_id: TRONSCAN_WALLET });
    expect(r).toMatchObject({ rows_total: 8, added: 1, rejected: 7 });
    expect((await all())[0]).toMatchObject({ token_id: 'TRON', amount: '10' });
    expect(r.rejections[0]).toMatchObject({
      column: 'symbol',
      value: 'USDT',
      reason: expect.stringMatching(/a symbol alone does not identify a token/),
    });

    // Given --token for a file of one token, the rows that name another symbol (the TRX one) are rejected, not booked as it.
    const given = await preview({ source, wallet_id: TRONSCAN_WALLET, token_id: 'TRON_USDT' });
    expect(given).toMatchObject({ added: 7, rejected: 1, unchanged: 0 });
    expect(given.rejections[0]).toMatchObject({
      column: 'symbol',
      value: 'TRX',
      reason: 'names the token "TRX", not TRON_USDT (USDT) given for this file',
    });
  });

  it('imports a spreadsheet through a mapping: constants, value maps, decimal comma, dates in an offset, signed amounts', async () => {
    const csv = [
      'Datum;Betrag;Art;Zustand;Hash;Empfänger',
      `02.01.2026;5;Einzahlung;ok;${evmHash(3)};`,
      `2026-01-02 11:04:05;-1.234,56;Auszahlung;ok;${evmHash(1)};0xdAC17F958D2ee523a2206206994597C13D831ec7`,
      `2026-01-02 12:00:00;20,5;Einzahlung;offen;${evmHash(2)};`,
    ].join('\n');
    const mapping = {
      columns: { created_at: 'Datum', amount: 'Betrag', type: 'Art', status: 'Zustand', hash: 'Hash', to: 'Empfänger' },
      constants: { wallet_id: TREASURY, chain_id: 'ETH', token_id: 'ETH_USDT' },
      values: { type: { Auszahlung: 'Withdrawal', Einzahlung: 'Deposit' }, status: { ok: 'Completed', offen: 'Pending' } },
      number: { decimal_separator: ',', thousands_separator: '.' },
      date: { format: 'YYYY-MM-DD HH:mm:ss', utc_offset: '+08:00' },
      signed_amounts: true,
    };
    const r = await importFile({ source: { name: 'books.csv', text: csv }, mapping });
    expect(r).toMatchObject({ preset: 'custom', added: 2, rejected: 1 });
    expect(r.rejections[0]).toMatchObject({ row_number: 1, column: 'Datum' });
    const rows = await all({ wallet_id: TREASURY });
    expect(rows.find((x) => x.amount === '1234.56')).toMatchObject({
      type: 'Withdrawal',
      status: 'Completed',
      created_at: Date.UTC(2026, 0, 2, 3, 4, 5),
    });
    expect(rows.find((x) => x.amount === '20.5')).toMatchObject({ type: 'Deposit', status: 'Pending' });
  });

  it('refuses a mapping that names a column the file lacks', async () => {
    const err = await failure(importFile({ source: text([good(1)]), mapping: { columns: { amount: 'Betrag' } } }));
    expect(err.message).toMatch(/no column "Betrag" \(for amount\)/);
  });
});

describe('what a file leaves out: the wallet, the chain and the token are asked for, never guessed', () => {
  const csv = [
    'Date,Amount,Type,Status,Hash',
    `2026-01-02 10:00:00,5,Deposit,Completed,${evmHash(1)}`,
    `2026-01-03 10:00:00,2.25,Withdrawal,Completed,${evmHash(2)}`,
  ].join('\n');
  const source = { name: 'books.csv', text: csv };
  const columns = { created_at: 'Date', amount: 'Amount', type: 'Type', status: 'Status', hash: 'Hash' };
  const detect = (input: Record<string, unknown>) => svc.invoke('ledger-detect', { source, ...input }, meta);

  it('detect answers the wallet and the token as needs with their flags, the token offered from the chain, and no problem', async () => {
    const d = await detect({ mapping: { columns, constants: { chain_id: 'ETH' } } });
    expect(d.problem).toBeNull();
    expect(d.needs).toEqual([
      expect.objectContaining({ field: 'token_id', flag: '--token', reason: expect.stringMatching(/names no token.*a token on ETH/) }),
      { field: 'wallet_id', flag: '--wallet', options: [], reason: 'the file has no wallet_id column: say which wallet every row goes to' },
    ]);
    expect(d.needs[0]!.options).toEqual(['ETH', 'ETH_USDC', 'ETH_USDT']);
    expect(d.parsed).toEqual([]);

    // Without a chain: the chain is asked too, and the token offers nothing until the chain is known.
    const noChain = await detect({ mapping: { columns }, wallet_name: 'Books' });
    expect(noChain.problem).toBeNull();
    expect(noChain.needs.map((n) => [n.field, n.flag])).toEqual([
      ['chain_id', '--chain'],
      ['token_id', '--token'],
    ]);
    expect(noChain.needs[0]!.options).toContain('TRON');
    expect(noChain.needs[1]!.options).toEqual([]);

    // Answered: nothing is needed, and the first rows are read.
    const answered = await detect({ mapping: { columns }, wallet_name: 'Books', chain_id: 'ETH', token_id: 'ETH_USDT' });
    expect(answered).toMatchObject({ needs: [], problem: null });
    expect(answered.parsed.map((r) => r.values?.token_id)).toEqual(['ETH_USDT', 'ETH_USDT']);
    // Each time beside the cell it was read from.
    expect(answered.parsed.map((r) => [r.values?.created_at, r.raw_time])).toEqual([
      [String(Date.UTC(2026, 0, 2, 10)), '2026-01-02 10:00:00'],
      [String(Date.UTC(2026, 0, 3, 10)), '2026-01-03 10:00:00'],
    ]);
  });

  it('a structural gap stays a problem beside the needs', async () => {
    const { status: _status, ...noStatus } = columns;
    const d = await detect({ mapping: { columns: noStatus, constants: { chain_id: 'ETH' } } });
    expect(d.needs.map((n) => n.field)).toEqual(['token_id', 'wallet_id']);
    expect(d.problem).toBe('no column or constant gives status');
  });

  it('an import with a need open is refused naming the flags, and runs once they are given', async () => {
    const mapping = { columns, constants: { chain_id: 'ETH' } };
    const before = dump();
    const err = await failure(importFile({ source, mapping }));
    expect(err.code).toBe(1002);
    expect(err.message).toBe(
      'books.csv: the file names no token (no token, contract or symbol column): every row is read as the token given (a token on ETH)' +
        ' (give --token ETH|ETH_USDC|ETH_USDT);' +
        ' the file has no wallet_id column: say which wallet every row goes to (give --wallet NAME or --wallet-id W); nothing was imported',
    );
    const noWallet = await failure(importFile({ source, mapping, token_id: 'ETH_USDT' }));
    expect(noWallet.message).toMatch(
      /^books\.csv: the file has no wallet_id column: .* \(give --wallet NAME or --wallet-id W\); nothing was imported$/,
    );
    expect(dump()).toBe(before);

    const r = await importFile({ source, mapping, token_id: 'ETH_USDT', wallet_name: 'Books' });
    expect(r).toMatchObject({ added: 2, rejected: 0 });
    const rows = await all();
    expect(rows.map((x) => [x.token_id, x.amount, x.type]).sort()).toEqual([
      ['ETH_USDT', '2.25', 'Withdrawal'],
      ['ETH_USDT', '5', 'Deposit'],
    ]);
    const wallets = await svc.invoke('wallets-list', {}, meta);
    expect(wallets.find((w) => w.name === 'Books')?.wallet_id).toBe(rows[0]!.wallet_id);
  });
});

describe('a reading stated against what the file shows is refused, never applied to its other rows', () => {
  // A European spreadsheet: "0,5" can only be a decimal comma, so "1.035" is one thousand and thirty-five.
  const csv = [
    'Date;Amount;Type;Status;Hash',
    `25/03/2022 10:00;0,5;Deposit;Completed;${evmHash(1)}`,
    `05/03/2022 10:00;1.035;Deposit;Completed;${evmHash(2)}`,
  ].join('\n');
  const source = { name: 'eu.csv', text: csv };
  const mapping = { columns: { created_at: 'Date', amount: 'Amount', type: 'Type', status: 'Status', hash: 'Hash' } };
  const opts = { source, mapping, wallet_name: 'EU', chain_id: 'ETH', token_id: 'ETH_USDT' };

  it('a decimal point or month-first stated for this file fails it, naming the cells that show otherwise; nothing changes', async () => {
    const before = dump();
    const point = await failure(importFile({ ...opts, decimal_separator: '.' }));
    expect(point.code).toBe(1002);
    expect(point.message).toBe(
      'eu.csv: decimal_separator: a decimal point was stated, but the file\'s first rows show a decimal comma ("0,5"), so its other values would be read wrong; state a decimal comma, or leave it to the file; nothing was imported',
    );
    const monthFirst = await failure(importFile({ ...opts, date_order: 'month_first' }));
    expect(monthFirst.message).toMatch(
      /^eu\.csv: date_order: month first was stated, but the file's first rows show day first \("25\/03\/2022 10:00"\)/,
    );
    const detect = await svc.invoke('ledger-detect', { ...opts, decimal_separator: '.' }, meta);
    expect(detect.problem).toMatch(/^decimal_separator: a decimal point was stated/);
    expect(dump()).toBe(before);

    // Stated as the file shows, or left to it: the same records, exactly.
    const r = await importFile({ ...opts, decimal_separator: ',', date_order: 'day_first' });
    expect(r).toMatchObject({ added: 2, rejected: 0, read_as: { decimal_separator: ',', date_order: 'day_first' } });
    const rows = await all();
    expect(rows.map((x) => [x.amount, new Date(x.created_at!).toISOString()]).sort()).toEqual([
      ['0.5', '2022-03-25T10:00:00.000Z'],
      ['1035', '2022-03-05T10:00:00.000Z'],
    ]);
    expect(await importFile({ source, mapping, wallet_name: 'EU', chain_id: 'ETH', token_id: 'ETH_USDT' })).toMatchObject({ unchanged: 2 });
  });
});

describe('transactions, wallets and imports lists', () => {
  beforeEach(async () => {
    await importFile({ source: sample('native-ledger.csv') });
    await importFile({ source: sample('tronscan-token-transfers.csv'), wallet_id: TRONSCAN_WALLET });
  });

  it('orders by created_at descending, then in the order the records were added, and pages with the true total', async () => {
    const rows = await all();
    expect(rows).toHaveLength(38);
    const key = (x: TransactionRecord) => x.created_at ?? -Infinity;
    for (let i = 1; i < rows.length; i++) expect(key(rows[i - 1]!)).toBeGreaterThanOrEqual(key(rows[i]!));
    const page2 = await svc.invoke('transactions-list', { page: 2, page_size: 10 }, meta);
    expect(page2).toMatchObject({ total: 38, page: 2, page_size: 10 });
    expect(page2.list.map((x) => x.transaction_id)).toEqual(rows.slice(10, 20).map((x) => x.transaction_id));
    const past = await svc.invoke('transactions-list', { page: 9, page_size: 10 }, meta);
    expect(past).toMatchObject({ total: 38, list: [] });
  });

  it('records of one time (the movements of one transaction) list in the order they were added, either way', async () => {
    const at = Date.UTC(2030, 0, 1);
    const ids = ['cccccccc', 'aaaaaaaa', 'bbbbbbbb'].map((p) => `${p}-0000-4000-8000-000000000001`);
    const text = `transaction_id,wallet_id,type,status,amount,chain_id,token_id,created_at\n${ids
      .map((id) => `${id},${TREASURY},Deposit,Completed,1,ETH,ETH_USDT,${at}`)
      .join('\n')}\n`;
    expect(await importFile({ source: { name: 'same-time.csv', text } })).toMatchObject({ added: 3 });
    const newest = await svc.invoke('transactions-list', { page_size: 3 }, meta);
    expect(newest.list.map((x) => x.transaction_id)).toEqual(ids);
    const oldestFirst = await all({ order: 'asc' });
    expect(oldestFirst.slice(-3).map((x) => x.transaction_id)).toEqual([...ids].reverse());
  });

  it('filters by wallet, chain, token, type, status and time', async () => {
    const rows = await all();
    const expectFilter = async (query: Record<string, unknown>, pred: (x: TransactionRecord) => boolean) => {
      const got = await all(query);
      const want = rows.filter(pred);
      expect(want.length).toBeGreaterThan(0);
      expect(got.map((x) => x.transaction_id)).toEqual(want.map((x) => x.transaction_id));
    };
    await expectFilter({ wallet_id: CUSTOMERS }, (x) => x.wallet_id === CUSTOMERS);
    await expectFilter({ wallet_id: CUSTOMERS.toUpperCase() }, (x) => x.wallet_id === CUSTOMERS);
    await expectFilter({ chain_id: 'BSC_BNB' }, (x) => x.chain_id === 'BSC_BNB');
    await expectFilter({ token_id: 'TRON_USDT', type: 'Withdrawal' }, (x) => x.token_id === 'TRON_USDT' && x.type === 'Withdrawal');
    await expectFilter({ status: 'Rejected' }, (x) => x.status === 'Rejected');
    const mid = rows[15]!.created_at!;
    await expectFilter({ from: mid }, (x) => x.created_at !== null && x.created_at >= mid);
    await expectFilter(
      { to: String(mid), wallet_id: CUSTOMERS },
      (x) => x.created_at !== null && x.created_at < mid && x.wallet_id === CUSTOMERS,
    );
    expect(await all({ chain_id: 'SOL' })).toEqual([]);
    expect(await all({ chain_id: '', search: '  ', type: '', status: null, wallet_id: '' })).toHaveLength(rows.length);
    await expect(all({ type: 'Transfer' })).rejects.toThrow(/type/);
  });

  it('searches by exact hash (0x hashes in any case), transaction_id or request_id, and from 4 characters by their beginning', async () => {
    const rows = await all();
    const evm = rows.find((x) => x.hash?.startsWith('0x'))!;
    const tronRow = rows.find((x) => x.chain_id === 'TRON' && x.hash)!;
    const withRequest = rows.find((x) => x.request_id)!;
    const search = async (s: string) => (await all({ search: s })).map((x) => x.transaction_id);
    expect(await search(evm.hash!.toUpperCase().replace('0X', '0x'))).toEqual([evm.transaction_id]);
    expect(await search(tronRow.hash!)).toEqual([tronRow.transaction_id]);
    expect(await search(evm.transaction_id.toUpperCase())).toEqual([evm.transaction_id]);
    expect(await search(withRequest.request_id!)).toEqual([withRequest.transaction_id]);
    expect(await search(withRequest.request_id!.toLowerCase())).toEqual([]);

    // What a search of the beginning finds: every record whose transaction_id, hash (0x and hex
    // without case, a Tron hash without 0x) or request_id (as written) begins with it.
    const begins = (p: string) => {
      const hex = /^(0x)?[0-9a-f]+$/i.test(p);
      const bare = p.replace(/^0x/i, '').toLowerCase();
      return rows
        .filter(
          (x) =>
            x.transaction_id.startsWith(p.toLowerCase()) ||
            x.request_id.startsWith(p) ||
            x.hash.startsWith(p) ||
            (hex && x.hash.toLowerCase().replace(/^0x/, '').startsWith(bare) && (x.hash.startsWith('0x') || !/^0x/i.test(p))),
        )
        .map((x) => x.transaction_id);
    };
    const prefixes = [
      evm.hash!.slice(0, 6), // 0x and 4 hex digits
      evm.hash!.slice(0, 9).toUpperCase().replace('0X', '0x'), // an odd number of digits, in capitals
      evm.hash!.slice(0, 20), // past the index's 8 bytes: the whole hash is checked
      evm.hash!.slice(2, 12), // without its 0x
      tronRow.hash!.slice(0, 5),
      tronRow.hash!.slice(0, 40),
      evm.transaction_id.slice(0, 4),
      evm.transaction_id.slice(0, 11).toUpperCase(), // across the first dash
      withRequest.request_id!.slice(0, 5),
      tronRow.transaction_id.slice(0, 8),
    ];
    for (const p of prefixes) {
      const found = await search(p);
      expect(found.length, p).toBeGreaterThan(0);
      expect(found.toSorted(), p).toEqual(begins(p).toSorted());
    }
    expect(await search(evm.hash!.slice(0, 20))).toContain(evm.transaction_id);
    expect(await search(tronRow.hash!.slice(0, 40))).toContain(tronRow.transaction_id);
    // Under 4 characters only an identifier equal to it is found; a beginning nothing has finds nothing.
    expect(await search(evm.hash!.slice(0, 5))).toEqual([]);
    expect(await search(evm.transaction_id.slice(0, 3))).toEqual([]);
    expect(await search('0xffffffffffffffffff')).toEqual([]);
    expect(await search('zzzz')).toEqual([]);
  });

  it('gets one record, lists wallets with their counts', async () => {
    const rows = await all();
    expect(await record(rows[0]!.transaction_id.toUpperCase())).toEqual(rows[0]);
    expect((await failure(record('00000000-0000-4000-8000-00000000ffff'))).code).toBe(1002);
    const wallets = await svc.invoke('wallets-list', {}, meta);
    const count = (w: string) => wallets.find((x) => x.wallet_id === w)?.transactions;
    expect(count(TREASURY)).toBe(15);
    expect(count(CUSTOMERS)).toBe(15);
    expect(count(TRONSCAN_WALLET)).toBe(8);
  });
});
