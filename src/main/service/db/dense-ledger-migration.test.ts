import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { CallMeta } from '../context';
import { fixtureRecord, insertRecords } from '../reconcile/fixtures.test-support';
import { migrationsBefore, tempService } from '../test-support';
import { STORED_RECORD_FIELDS } from './ledger-sql';
import { openDb } from './open';

/*
 * A store made before the ledger was stored encoded (migration 0012), with an import that updated
 * one record and added another: after the upgrade the records read back as they were, and undoing
 * that import puts the earlier version back from what the old store kept (import_replaced's JSON)
 * and removes the record it added.
 */

const dir = mkdtempSync(join(tmpdir(), 'nps-0012-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli: CallMeta = { actor: 'cli' };
const W = '22222222-3333-4444-8555-666666666666';
const I1 = '10000000-0000-4000-8000-000000000001';
const I2 = '10000000-0000-4000-8000-000000000002';
const tx = (n: number) => `bbbbbbbb-0000-4000-8000-${String(n).padStart(12, '0')}`;
const COLUMNS = STORED_RECORD_FIELDS.map((f) => `"${f}"`).join(', ');

test('records of a store made before 0012 read back unchanged, and an import made then is undone from what it kept', async () => {
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const old = openDb({ file: join(dataDir, 'nps.sqlite'), migrationsFolder: migrationsBefore(dir, '_dense_ledger') });
  const importRow = old.$client.prepare(
    `INSERT INTO imports (import_id, file_name, file_sha256, file_size, format, preset, rows_total, added, updated, unchanged, rejected, started_at, finished_at)
     VALUES (?, ?, '', 1, 'csv', 'native', ?, ?, ?, 0, 0, ?, ?)`,
  );
  importRow.run(I1, 'first.csv', 2, 2, 0, 1000, 1001);
  importRow.run(I2, 'second.csv', 2, 1, 1, 2000, 2001);
  // Record 1 as the first import wrote it: a Tron hash, a request id that is not a UUID, fees.
  const before1 = fixtureRecord({
    transaction_id: tx(1),
    wallet_id: W,
    type: 'Withdrawal',
    status: 'Completed',
    amount: '1.5',
    fee: '0.1',
    amount_actual: '1.4',
    hash: 'ab'.repeat(32),
    chain_id: 'TRON',
    token_id: 'TRON_USDT',
    to: 'TLKR8DkuCaQmYk3hou4ofJPjKXWTTHaqEY',
    created_at: 1_700_000_000_000,
    request_id: 'wd-1',
    import_id: I1,
    updated_at: 1001,
    movement: 1_000_000,
  });
  // The second import changed its amount and status, added record 2; record 3 is the first import's.
  insertRecords(old, [
    { ...before1, amount: '2.5', status: 'Failed', import_id: I2, updated_at: 2001 },
    { transaction_id: tx(2), wallet_id: W, amount: '7', hash: `0x${'cd'.repeat(32)}`, import_id: I2, updated_at: 2001 },
    { transaction_id: tx(3), wallet_id: W, amount: '3.25', type: 'Deposit', hash: `0x${'EF'.repeat(32)}`, import_id: I1, updated_at: 1001 },
  ]);
  // What the old writer kept (import-repository.ts snapshotSql before 0012): every column as JSON.
  old.$client
    .prepare('INSERT INTO import_replaced (import_id, transaction_id, previous, previous_import_id) VALUES (?, ?, ?, ?)')
    .run(I2, tx(1), JSON.stringify({ ...before1, fee_ratio: null, fee_fixed: null, er: null }), I1);
  const rows = (db: typeof old) => db.$client.prepare(`SELECT rowid, ${COLUMNS} FROM transactions ORDER BY rowid`).all();
  const stored = rows(old);
  old.$client.close();

  const svc = tempService({ dataDir });
  try {
    expect(rows(svc.ctx.db)).toEqual(stored);
    // The upper-case hash was kept as text: found by itself, and the record by its id.
    const list = await svc.invoke('transactions-list', { page_size: 10, search: tx(3) }, cli);
    expect(list).toMatchObject({ total: 1, list: [{ hash: `0x${'EF'.repeat(32)}`, amount: '3.25' }] });
    expect(await svc.invoke('transactions-list', { page_size: 10, search: 'ab'.repeat(32) }, cli)).toMatchObject({ total: 1 });

    await svc.invoke('app-user-set', { name: 'Ana Lima' }, cli);
    await svc.invoke('import-undo', { import_id: I2 }, cli);
    const after = await svc.invoke('transactions-list', { page_size: 10 }, cli);
    expect(after.total).toBe(2);
    const one = after.list.find((r) => r.transaction_id === tx(1));
    expect(one).toEqual(before1);
    // Put back encoded as the store keeps it: found again by its hash, and stored as the hash's bytes.
    expect(await svc.invoke('transactions-list', { page_size: 10, search: 'ab'.repeat(32) }, cli)).toMatchObject({ total: 1 });
    expect(
      svc.ctx.db.$client
        .prepare('SELECT typeof(hash_key), typeof(tx_key), typeof(status_key) FROM transactions WHERE transaction_id = ?')
        .raw(true)
        .get(tx(1)),
    ).toEqual(['blob', 'blob', 'integer']);
    expect(after.list.find((r) => r.transaction_id === tx(2))).toBeUndefined();
    expect(after.list.find((r) => r.transaction_id === tx(3))).toMatchObject({ amount: '3.25', import_id: I1 });
  } finally {
    svc.dispose();
  }
});
