import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LEDGER_FIELDS, type ImportChoices, type ImportReport } from '../../../shared/ledger';
import { tempService } from '../test-support';
import { runImport } from './import';
import { good, id, text } from './native-rows.test-support';

/*
 * Importing the same file again (issue 14): when nothing can have changed, the report comes from
 * the earlier import without reading a row; it must be the report reading every row gives.
 */

/** 60 rows: row 7 has a bad amount, row 30 repeats row 2's transaction_id, row 41 names an unknown chain. */
const LINES = Array.from({ length: 60 }, (_, k) => {
  const n = k + 1;
  if (n === 7) return good(n, { amount: 'lots' });
  if (n === 30) return good(2);
  if (n === 41) return good(n, { chain_id: 'NOPE' });
  return good(n);
});
const FILE = text(LINES);

let svc: ReturnType<typeof tempService>;
beforeEach(() => {
  svc = tempService();
});
afterEach(() => {
  vi.restoreAllMocks();
  svc.dispose();
});

interface Opts {
  dryRun?: boolean;
  choices?: ImportChoices;
  workerMinBytes?: number;
}
const run = (s: typeof svc, source: { name: string; text: string }, o: Opts = {}) =>
  runImport(s.ctx, { source, dryRun: o.dryRun ?? false, choices: o.choices, workerMinBytes: o.workerMinBytes });

/** The report without what differs between any two runs (its id and duration). */
const same = (r: ImportReport) => ({ ...r, import_id: r.import_id === null ? null : 'id', duration_ms: 0 });

/** Every row of the store but the import ids and times, which differ between two runs. */
function dump(s: typeof svc): string {
  const db = s.ctx.db.$client;
  const imports = db
    .prepare(
      'SELECT file_name, file_sha256, file_size, format, preset, rows_total, added, updated, unchanged, rejected FROM imports ORDER BY rowid',
    )
    .all();
  const rejections = db
    .prepare(
      'SELECT i.rowid AS n, row_number, "column", reason, value FROM import_rejections r JOIN imports i USING (import_id) ORDER BY i.rowid, r.id',
    )
    .all();
  const records = db.prepare(`SELECT ${LEDGER_FIELDS.map((f) => `"${f}"`).join(', ')}, movement FROM transactions ORDER BY rowid`).all();
  const wallets = db.prepare('SELECT wallet_id FROM wallets ORDER BY wallet_id').all();
  return JSON.stringify({ imports, rejections, records, wallets });
}

/** Whether an import read the file's rows (and so asked for a writer) or answered from the earlier import. */
function countWriters(s: typeof svc) {
  return vi.spyOn(s.ctx.engine, 'importWriter');
}

/** The same imports, with every earlier import's fingerprint forgotten before each: always the path that reads every row. */
async function slowPath(steps: ((s: typeof svc) => Promise<ImportReport>)[]): Promise<{ reports: ImportReport[]; store: string }> {
  const other = tempService();
  try {
    const reports: ImportReport[] = [];
    for (const step of steps) {
      other.ctx.db.$client.exec('UPDATE imports SET read_fingerprint = NULL');
      reports.push(await step(other));
    }
    return { reports, store: dump(other) };
  } finally {
    other.dispose();
  }
}

describe('importing the same file again', () => {
  it('same file twice: answered without reading a row, with the report and the store of reading every row', async () => {
    const first = await run(svc, FILE);
    expect(first.added).toBe(57);
    expect(first.rejected).toBe(3);
    const writers = countWriters(svc);
    const preview = await run(svc, FILE, { dryRun: true });
    const again = await run(svc, FILE);
    expect(writers).not.toHaveBeenCalled();
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 57, rejected: 3, rows_total: 60 });
    expect(again.import_id).not.toBeNull();
    expect(again.import_id).not.toBe(first.import_id);
    expect(again.rejections.map((r) => r.row_number)).toEqual([7, 30, 41]);

    const slow = await slowPath([(s) => run(s, FILE), (s) => run(s, FILE, { dryRun: true }), (s) => run(s, FILE)]);
    expect(same(preview)).toEqual(same(slow.reports[1]!));
    expect(same(again)).toEqual(same(slow.reports[2]!));
    expect(dump(svc)).toBe(slow.store);
  });

  it('a file written on the import thread is answered again the same way', async () => {
    const first = await run(svc, FILE, { workerMinBytes: 0 });
    expect(first.added).toBe(57);
    const writers = countWriters(svc);
    const again = await run(svc, FILE, { workerMinBytes: 0 });
    expect(writers).not.toHaveBeenCalled();
    const slow = await slowPath([(s) => run(s, FILE, { workerMinBytes: 0 }), (s) => run(s, FILE, { workerMinBytes: 0 })]);
    expect(same(again)).toEqual(same(slow.reports[1]!));
  });

  it('an import of new rows since changes nothing: still answered without reading', async () => {
    await run(svc, FILE);
    await run(svc, text([good(100), good(101)], 'more.csv'));
    const writers = countWriters(svc);
    const again = await run(svc, FILE);
    expect(writers).not.toHaveBeenCalled();
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 57, rejected: 3 });
  });

  it('same file after another import updated one of its records: every row read, the change found', async () => {
    await run(svc, FILE);
    const other = await run(svc, text([good(5, { status: 'Failed' }), good(200)], 'other.csv'));
    expect(other).toMatchObject({ added: 1, updated: 1 });
    const writers = countWriters(svc);
    const again = await run(svc, FILE);
    expect(writers).toHaveBeenCalledTimes(1);
    expect(again).toMatchObject({ added: 0, updated: 1, unchanged: 56, rejected: 3 });
    expect(again.updates).toEqual([
      { row_number: 5, transaction_id: id(5), fields: ['status'], changes: [{ field: 'status', before: 'Failed', after: 'Completed' }] },
    ]);
    // And once that import is in, the file is the same as the store again: answered without reading.
    const third = await run(svc, FILE);
    expect(writers).toHaveBeenCalledTimes(1);
    expect(third).toMatchObject({ added: 0, updated: 0, unchanged: 57 });
  });

  it('same file read with other choices: every row read', async () => {
    await run(svc, FILE);
    const writers = countWriters(svc);
    const again = await run(svc, FILE, { choices: { date_order: 'day_first' } });
    expect(writers).toHaveBeenCalledTimes(1);
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 57, rejected: 3 });
  });

  it('a file that differs by one byte, or a preview that was never recorded: every row read', async () => {
    await run(svc, FILE, { dryRun: true });
    const writers = countWriters(svc);
    await run(svc, FILE);
    expect(writers).toHaveBeenCalledTimes(1);
    const changed = text(LINES.map((l, k) => (k === 9 ? l.replace('10.5', '10.6') : l)));
    expect(changed.text.length).toBe(FILE.text.length);
    const r = await run(svc, changed);
    expect(writers).toHaveBeenCalledTimes(2);
    expect(r).toMatchObject({ updated: 1, unchanged: 56 });
  });
});

describe('importing again a file whose rows name unknown tokens', () => {
  // A real ERC-20 transfer export, of tokens the catalogue lacks, and two USDT transfers (known by contract) after it.
  const usdt = (n: number) =>
    `"0x${String(n).repeat(64)}","4500000","1510000000","2017-11-06 20:26:40","0xf98c96b5d10faafc2324847c82305bd5fd7e5ad3","0x${'11'.repeat(20)}","1${n}.5","$12.50","0xdac17f958d2ee523a2206206994597c13d831ec7","Tether USD","USDT"`;
  const exported = readFileSync(join(__dirname, '../../../../test/fixtures/exports/etherscan-0xf98c-erc20.csv'), 'utf8');
  const source = { name: 'erc20.csv', text: [...exported.trimEnd().split(/\r?\n/), usdt(1), usdt(2)].join('\r\n') + '\r\n' };
  const WALLET = '5b1d2c3e-4f50-4a61-8b72-9c8d7e6f5a41';
  const erc20 = (s: typeof svc, dryRun = false) => runImport(s.ctx, { source, dryRun, walletId: WALLET, choices: { chain_id: 'ETH' } });

  it('unchanged: answered without writing, its unknown tokens listed as reading every row lists them', async () => {
    const first = await erc20(svc);
    expect(first).toMatchObject({ added: 2, rejected: 8 });
    expect(first.unknown_tokens).toHaveLength(8);
    const writers = countWriters(svc);
    const preview = await erc20(svc, true);
    const again = await erc20(svc);
    expect(writers).not.toHaveBeenCalled();
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: first.added, rejected: first.rejected });
    expect(again.unknown_tokens).toEqual(first.unknown_tokens);
    expect(again.message).toMatch(/unknown token/);

    const slow = await slowPath([(s) => erc20(s), (s) => erc20(s, true), (s) => erc20(s)]);
    expect(same(preview)).toEqual(same(slow.reports[1]!));
    expect(same(again)).toEqual(same(slow.reports[2]!));
    expect(dump(svc)).toBe(slow.store);
  });

  it('a token added to the catalogue since: every row read, and its rows land', async () => {
    const first = await erc20(svc);
    const token = first.unknown_tokens[0]!;
    await svc.invoke(
      'catalogue-token-add',
      { chain_id: 'ETH', contract_address: token.contract_address, symbol: token.symbol || 'X', decimal: 18 },
      { actor: 'cli' },
    );
    const writers = countWriters(svc);
    const again = await erc20(svc);
    expect(writers).toHaveBeenCalledTimes(1);
    expect(again).toMatchObject({ added: token.rows, unchanged: first.added, rejected: first.rejected - token.rows });
    expect(again.unknown_tokens.map((t) => t.contract_address)).not.toContain(token.contract_address);
    // Then the file is the same as the store again: answered without writing.
    const third = await erc20(svc);
    expect(writers).toHaveBeenCalledTimes(1);
    expect(third).toMatchObject({ added: 0, unchanged: first.added + token.rows, unknown_tokens: again.unknown_tokens });
  });
});

describe('a large file of new rows into a ledger that has records', () => {
  const TREASURY = '3f6c1d2e-8a4b-4c7d-9e2f-1a2b3c4d5e6f';
  const CUSTOMERS = '7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b';
  const OTHER = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
  // The first batch (60 KiB of rows) is all new rows: the load is taken for a bulk load; the rows
  // after it meet records that existed before and rows of the file.
  const lines = [
    ...Array.from({ length: 400 }, (_, k) => good(1000 + k)),
    good(5, { status: 'Failed' }),
    good(6),
    good(5, { amount: '3' }),
    good(1000, { amount: '4' }),
    good(7, { wallet_id: TREASURY }),
    good(8, { wallet_id: CUSTOMERS }),
    good(8),
    good(1001, { wallet_id: OTHER }),
    good(9, { amount: 'x' }),
    good(2000),
  ];
  const file = text(lines, 'new.csv');
  const indexes = (s: typeof svc) =>
    s.ctx.db.$client
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' ORDER BY name")
      .pluck()
      .all();

  it('updates, leaves unchanged, rejects repeats and creates wallets as the row-by-row load does', async () => {
    const base = text(
      Array.from({ length: 20 }, (_, k) => good(k + 1)),
      'base.csv',
    );
    const rowByRow = await (async () => {
      const other = tempService();
      try {
        await run(other, base);
        const r = await runImport(other.ctx, { source: file, dryRun: false });
        return { report: r, store: dump(other), indexes: indexes(other) };
      } finally {
        other.dispose();
      }
    })();
    expect(rowByRow.report).toMatchObject({ rows_total: 410, added: 401, updated: 3, unchanged: 1, rejected: 5 });
    expect(rowByRow.report.wallets_created).toEqual([TREASURY, CUSTOMERS].sort());
    expect(rowByRow.report.updates.map((u) => [u.row_number, u.fields])).toEqual([
      [401, ['status']],
      [405, ['wallet_id']],
      [406, ['wallet_id']],
    ]);
    expect(rowByRow.report.rejections.map((x) => [x.row_number, x.reason.match(/data row (\d+)/)?.[1] ?? x.column])).toEqual([
      [403, '401'],
      [404, '1'],
      [407, '406'],
      [408, '2'],
      [409, 'amount'],
    ]);

    for (const workerMinBytes of [undefined, 0]) {
      svc.dispose();
      svc = tempService();
      await run(svc, base);
      const before = dump(svc);
      const preview = await runImport(svc.ctx, { source: file, dryRun: true, workerMinBytes, rebuildMinRows: 1 });
      expect(dump(svc)).toBe(before);
      expect(same(preview)).toEqual({ ...same(rowByRow.report), import_id: null, dry_run: true, message: preview.message });
      const r = await runImport(svc.ctx, { source: file, dryRun: false, workerMinBytes, rebuildMinRows: 1 });
      expect(same(r)).toEqual(same(rowByRow.report));
      expect(dump(svc)).toBe(rowByRow.store);
      expect(indexes(svc)).toEqual(rowByRow.indexes);
      expect(svc.ctx.db.$client.pragma('integrity_check', { simple: true })).toBe('ok');
    }
  });
});
