import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { LEDGER_FIELDS } from '../../../shared/ledger';
import { insertRecords } from '../reconcile/fixtures.test-support';
import { migrationsBefore, tempService } from '../test-support';
import { openDb } from './open';
import { STORED_RECORD_FIELDS } from './ledger-sql';

const dir = mkdtempSync(join(tmpdir(), 'nps-txid-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const W = '11111111-1111-4111-8111-111111111111';
const tx = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, '0')}`;

test('a ledger stored with transaction_id as its primary key keeps every record, its rowid and the uniqueness of its id', async () => {
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const old = openDb({ file: join(dataDir, 'nps.sqlite'), migrationsFolder: migrationsBefore(dir, '_transactions_id_index') });
  expect(
    old.$client.prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'transactions' AND name LIKE 'sqlite_autoindex%'").pluck().all(),
  ).toHaveLength(1);
  insertRecords(
    old,
    [1, 2, 3, 4].map((n) => ({
      transaction_id: tx(n),
      wallet_id: W,
      amount: `${n}.25`,
      hash: n === 3 ? '' : `0x${String(n).padStart(64, 'b')}`,
      request_id: n === 2 ? 'wd-2' : '',
    })),
  );
  old.$client.prepare('DELETE FROM transactions WHERE transaction_id = ?').run(tx(2));
  const rows = () => old.$client.prepare('SELECT rowid, * FROM transactions ORDER BY rowid').all();
  const before = rows();
  old.$client.close();

  const upgrades: string[][] = [];
  const svc = tempService({ dataDir, onUpgrade: (pending) => upgrades.push(pending) });
  // Said once, before the migrations run; a store already up to date, or a new one, says nothing.
  expect(upgrades).toHaveLength(1);
  expect(upgrades[0]![0]).toBe('0004_transactions_id_index');
  tempService({ onUpgrade: (pending) => upgrades.push(pending) }).dispose();
  try {
    const db = svc.ctx.db.$client;
    // The view gives the records back under their names, and the encoded keys (db/ledger-sql.ts) beside them.
    const after = db
      .prepare(`SELECT rowid, ${STORED_RECORD_FIELDS.map((f) => `"${f}"`).join(', ')} FROM transactions ORDER BY rowid`)
      .all() as { movement: number }[];
    expect(after.map(({ movement: _, ...r }) => r)).toEqual(before);
    // 0007 numbers the movements of records stored before: these are token transfers (ETH_USDT), after the native one.
    expect(after.map((r) => r.movement)).toEqual([1_000_000, 1_000_000, 1_000_000]);
    expect((before as { rowid: number }[]).map((r) => r.rowid)).toEqual([1, 3, 4]);
    expect(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ledger_rows' ORDER BY name").pluck().all(),
    ).toEqual([
      'transactions_chain_token_idx',
      'transactions_created_idx',
      'transactions_hash_idx',
      'transactions_id_idx',
      'transactions_request_idx',
      'transactions_wallet_created_idx',
    ]);
    expect(() => insertRecords(svc.ctx.db, [{ transaction_id: tx(1), wallet_id: W, amount: '9' }])).toThrow(
      /UNIQUE constraint failed: ledger_rows\.tx_key/,
    );
    // A record without a hash is still found by its id; one with a hash by the hash.
    expect(await svc.invoke('transactions-list', { page_size: 10, search: tx(3) }, { actor: 'cli' })).toMatchObject({ total: 1 });
    expect(await svc.invoke('transactions-list', { page_size: 10, search: `0x${'4'.padStart(64, 'b')}` }, { actor: 'cli' })).toMatchObject({
      total: 1,
      list: [{ transaction_id: tx(4) }],
    });
    // An import of a known id is an update of it, not a second record.
    const header = LEDGER_FIELDS.join(',');
    const line = LEDGER_FIELDS.map(
      (f) =>
        ({
          transaction_id: tx(1),
          wallet_id: W,
          type: 'Deposit',
          status: 'Completed',
          amount: '1.5',
          chain_id: 'ETH',
          token_id: 'ETH_USDT',
        })[f as string] ?? '',
    ).join(',');
    const r = await svc.invoke('ledger-import', { source: { name: 'l.csv', text: `${header}\n${line}\n` } }, { actor: 'cli' });
    expect(r).toMatchObject({ added: 0, updated: 1 });
    expect(db.prepare('SELECT count(*) FROM transactions').pluck().get()).toBe(3);
  } finally {
    svc.close();
  }
  const again = tempService({ dataDir, onUpgrade: (pending) => upgrades.push(pending) });
  again.close();
  expect(upgrades).toHaveLength(1);
});
