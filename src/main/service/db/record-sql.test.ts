import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LedgerRecord } from '../../../shared/ledger';
import { W } from '../ledger/native-rows.test-support';
import { insertRecords } from '../reconcile/fixtures.test-support';
import { recordsWhereIn } from '../reconcile/repository';
import { tempService } from '../test-support';
import {
  ledgerNames,
  recordOfRow,
  recordOfStoredRow,
  recordsWhereInSql,
  storedKeys,
  storedRecordsWhereInJsonSql,
  storedRecordsWhereInSql,
} from './record-sql';

/*
 * The records the verification's lookups read from ledger_rows and decode in JavaScript
 * (recordOfStoredRow) are the records the view gives, field for field, whatever form each value
 * was kept in; found through the same indexes; and named from a copy of ledger_names that learns
 * the names added later.
 */

let svc: ReturnType<typeof tempService>;
beforeAll(() => {
  svc = tempService();
});
afterAll(() => svc.dispose());

const UUID = '0f1e2d3c-4b5a-4697-8877-665544332211';
const EVM_HASH = `0x${'0123456789abcdef'.repeat(4)}`;
const TRON_HASH = 'fedcba9876543210'.repeat(4);

/** Values in and out of the canonical forms the store keeps as bytes or numbers, and fields left empty. */
const TRICKY: Partial<LedgerRecord>[] = [
  { transaction_id: UUID, hash: EVM_HASH, request_id: '', import_id: null },
  { transaction_id: UUID.toUpperCase(), hash: EVM_HASH.toUpperCase(), request_id: UUID, type: 'Deposit', status: 'Pending' },
  { transaction_id: UUID.replace(/-/g, ''), hash: TRON_HASH, request_id: 'wd-7', status: 'Failed', to: 'TXyz', fee: '0.1' },
  { transaction_id: 'tx 1', hash: TRON_HASH.toUpperCase(), request_id: UUID.toUpperCase(), import_id: 'imp-1', created_at: 0 },
  { transaction_id: `${UUID}0`, hash: `0X${EVM_HASH.slice(2)}`, request_id: '0123456789abcdef0123456789abcdef' },
  { transaction_id: '0123456789abcdef0123456789abcdef', hash: EVM_HASH.slice(0, 65), request_id: '0', er: '1.5', amount_actual: '2' },
  { transaction_id: '0', hash: `${TRON_HASH}0`, request_id: '', confirmed_at: 1700000000999, completed_at: 1700000001000 },
  {
    transaction_id: 'quote "and" \\ tab\t\u00e9 \u{1f600}',
    hash: 'not a hash',
    request_id: 'line\nbreak',
    fee_ratio: '0.01',
    fee_fixed: '3',
  },
];

describe('records read from ledger_rows and decoded here', () => {
  test('are the records the view gives, every field, whatever form it is stored in, from either statement', () => {
    const records = insertRecords(
      svc.ctx.db,
      TRICKY.map((r, i) => ({
        wallet_id: i % 2 ? W : 'Wallet-Other',
        chain_id: i % 3 ? 'ETH' : 'TRON',
        token_id: i % 3 ? 'ETH_USDT' : 'TRON_USDT',
        amount: `${i}.5`,
        updated_at: 1000 + i,
        ...r,
        transaction_id: r.transaction_id!,
      })),
    );
    const sqlite = svc.ctx.db.$client;
    const byView = sqlite.prepare(recordsWhereInSql('transaction_id')).raw(true);
    const stored = sqlite.prepare(storedRecordsWhereInSql('transaction_id')).raw(true);
    const asJson = sqlite.prepare(storedRecordsWhereInJsonSql('transaction_id')).pluck();
    const name = ledgerNames(sqlite);
    for (const r of records) {
      const wanted = JSON.stringify([r.transaction_id]);
      const [viewRow, ...more] = byView.all(wanted) as unknown[][];
      expect(more).toEqual([]);
      const expected = recordOfRow(viewRow!);
      expect(expected).toMatchObject({ ...r, import_id: r.import_id ?? null });
      const keys = storedKeys('transaction_id', [r.transaction_id]);
      const [row] = stored.all(...keys) as unknown[][];
      // The same fields in the same order, the same values and types.
      expect(Object.entries(recordOfStoredRow(row!, name))).toEqual(Object.entries(expected));
      const [fromJson] = JSON.parse(asJson.get(...keys) as string) as unknown[][];
      expect(Object.entries(recordOfStoredRow(fromJson!, name))).toEqual(Object.entries(expected));
    }
    // Found by each identifier alike, each by its own spelling only (the keys encoded here as the store's SQL encodes them).
    for (const r of records) {
      expect(recordsWhereIn(svc.ctx.db, 'transaction_id', [r.transaction_id]).map((x) => x.transaction_id)).toEqual([r.transaction_id]);
      expect(recordsWhereIn(svc.ctx.db, 'hash', [r.hash]).map((x) => x.transaction_id)).toEqual([r.transaction_id]);
      if (r.request_id !== '')
        expect(recordsWhereIn(svc.ctx.db, 'request_id', [r.request_id]).map((x) => x.transaction_id)).toEqual([r.transaction_id]);
    }
  });

  test('each identifier is looked up through its index, never by reading the whole ledger', () => {
    const sqlite = svc.ctx.db.$client;
    for (const column of ['transaction_id', 'hash', 'request_id'] as const) {
      for (const sql of [storedRecordsWhereInSql(column), storedRecordsWhereInJsonSql(column)]) {
        const plan = (sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('[]', '[]') as { detail: string }[]).map((r) => r.detail);
        const index = `transactions_${column === 'transaction_id' ? 'id' : column.split('_')[0]}_idx`;
        expect(plan.some((d) => d.startsWith(`SEARCH t USING INDEX ${index}`))).toBe(true);
        expect(plan.filter((d) => /^SCAN t\b/.test(d))).toEqual([]);
      }
    }
  });

  test('a name added after the copy of ledger_names was made is read; one added in a transaction rolled back is not kept', () => {
    const sqlite = svc.ctx.db.$client;
    const name = ledgerNames(sqlite);
    const [first] = insertRecords(svc.ctx.db, [{ transaction_id: 'names-1', wallet_id: 'wallet-before' }]);
    expect(recordsWhereIn(svc.ctx.db, 'transaction_id', ['names-1'])[0]!.wallet_id).toBe(first!.wallet_id);
    insertRecords(svc.ctx.db, [{ transaction_id: 'names-2', wallet_id: 'wallet-after', token_id: 'A_TOKEN_ADDED_LATER' }]);
    expect(recordsWhereIn(svc.ctx.db, 'transaction_id', ['names-2'])[0]).toMatchObject({
      wallet_id: 'wallet-after',
      token_id: 'A_TOKEN_ADDED_LATER',
    });

    // Read inside a transaction that then rolls back: the number it gave its name goes to another name next.
    const no = (n: string) => sqlite.prepare('SELECT no FROM ledger_names WHERE name = ?').pluck().get(n) as number | undefined;
    sqlite.exec('BEGIN');
    insertRecords(svc.ctx.db, [{ transaction_id: 'names-3', wallet_id: 'wallet-rolled-back' }]);
    const rolledNo = no('wallet-rolled-back')!;
    expect(recordsWhereIn(svc.ctx.db, 'transaction_id', ['names-3'])[0]!.wallet_id).toBe('wallet-rolled-back');
    sqlite.exec('ROLLBACK');
    insertRecords(svc.ctx.db, [{ transaction_id: 'names-4', wallet_id: 'wallet-kept' }]);
    expect(no('wallet-kept')).toBe(rolledNo);
    expect(recordsWhereIn(svc.ctx.db, 'transaction_id', ['names-4'])[0]!.wallet_id).toBe('wallet-kept');
    expect(name(rolledNo)).toBe('wallet-kept');
  });
});
