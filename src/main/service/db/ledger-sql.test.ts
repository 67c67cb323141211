import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CallMeta } from '../context';
import { good, text, W } from '../ledger/native-rows.test-support';
import { insertRecords } from '../reconcile/fixtures.test-support';
import { tempService } from '../test-support';
import { LEDGER_STATUSES, LEDGER_TYPES } from '../../../shared/ledger';
import { ENCODED, reusingValueEncoders, STORED_RECORD_FIELDS, triggerSql, VALUE_ENCODERS, viewSql } from './ledger-sql';
import { recordOfRow, recordsWhereInSql } from './record-sql';

/*
 * The encoded ledger (db/ledger-sql.ts): every value comes back exactly as written, whichever way
 * it was written (the import's writer, or the view's triggers), and only the canonical forms are
 * stored as bytes.
 */

const meta: CallMeta = { actor: 'cli' };
let svc: ReturnType<typeof tempService>;
beforeAll(() => {
  svc = tempService();
});
afterAll(() => svc.dispose());

const UUID = '0f1e2d3c-4b5a-4697-8877-665544332211';
const EVM_HASH = `0x${'0123456789abcdef'.repeat(4)}`;
const TRON_HASH = 'fedcba9876543210'.repeat(4);

/** Values of the encoded fields in and out of their canonical forms: each must come back as it is. */
const TRICKY = [
  { transaction_id: UUID, hash: EVM_HASH, request_id: '' },
  { transaction_id: UUID.toUpperCase(), hash: EVM_HASH.toUpperCase(), request_id: UUID },
  { transaction_id: UUID.replace(/-/g, ''), hash: TRON_HASH, request_id: 'wd-7' },
  { transaction_id: 'tx 1', hash: TRON_HASH.toUpperCase(), request_id: UUID.toUpperCase() },
  { transaction_id: `${UUID}0`, hash: `0X${EVM_HASH.slice(2)}`, request_id: '' },
  { transaction_id: `${UUID.slice(0, 35)}g`, hash: EVM_HASH.slice(0, 65), request_id: '0' },
  { transaction_id: '0', hash: `${TRON_HASH}0`, request_id: '' },
  { transaction_id: '', hash: 'not a hash', request_id: '' },
];

const stored = (id: string) =>
  svc.ctx.db.$client
    .prepare(
      'SELECT typeof(tx_key), length(tx_key), typeof(hash_key), length(hash_key), typeof(request_key), typeof(type_key), typeof(status_key) FROM transactions WHERE transaction_id = ?',
    )
    .raw(true)
    .get(id) as [string, number, string, number, string, string, string];

describe('the encoded ledger', () => {
  test('the store holds the view and triggers that db/ledger-sql.ts makes', () => {
    const sql = (type: string) =>
      svc.ctx.db.$client
        .prepare("SELECT sql FROM sqlite_master WHERE type = ? AND tbl_name = 'transactions' ORDER BY name")
        .pluck()
        .all(type) as string[];
    expect(sql('view')).toEqual([viewSql()]);
    expect(sql('trigger')).toEqual([...triggerSql()].sort((a, b) => a.localeCompare(b)));
  });

  test('the import binds each value as the SQL encoders store it (the same bytes and types)', () => {
    const db = svc.ctx.db.$client;
    const values: Record<string, string[]> = {
      transaction_id: TRICKY.map((r) => r.transaction_id),
      request_id: TRICKY.map((r) => r.request_id),
      hash: TRICKY.map((r) => r.hash),
      type: [...LEDGER_TYPES, 'deposit', '0'],
      status: [...LEDGER_STATUSES, 'completed', '1'],
    };
    for (const [field, list] of Object.entries(values)) {
      const { encode } = ENCODED[field as keyof typeof ENCODED];
      const js = VALUE_ENCODERS[field as keyof typeof VALUE_ENCODERS]!;
      const both = db.prepare(`SELECT quote(?), quote(${encode('v')}) FROM (SELECT ? AS v)`).raw(true);
      for (const v of list) {
        const [bound, sql] = both.get(js(v), v) as [string, string];
        expect([field, v, bound]).toEqual([field, v, sql]);
      }
    }
  });

  test("the writer's encoders, one buffer a field for every value, bind each value as the SQL encoders store it", () => {
    const db = svc.ctx.db.$client;
    const encoders = reusingValueEncoders();
    // A row's three encoded identifiers bound together, then the next row's over the same buffers.
    const all = db
      .prepare(
        `SELECT quote(?), quote(?), quote(?), quote(${ENCODED.transaction_id.encode('t')}), quote(${ENCODED.request_id.encode('r')}), quote(${ENCODED.hash.encode('h')}) FROM (SELECT ? AS t, ? AS r, ? AS h)`,
      )
      .raw(true);
    const rows = [
      ...TRICKY,
      { transaction_id: 'a0000000-0000-4000-8000-000000000001', hash: EVM_HASH, request_id: UUID },
      { transaction_id: UUID, hash: TRON_HASH, request_id: 'a0000000-0000-4000-8000-000000000002' },
      { transaction_id: 'A0000000-0000-4000-8000-00000000000g', hash: `0x${'é'.repeat(64)}`, request_id: UUID },
    ];
    for (const r of rows) {
      const [t, q, h] = [encoders.transaction_id!(r.transaction_id), encoders.request_id!(r.request_id), encoders.hash!(r.hash)];
      const [bt, bq, bh, st, sq, sh] = all.get(t, q, h, r.transaction_id, r.request_id, r.hash) as string[];
      expect([r, bt, bq, bh]).toEqual([r, st, sq, sh]);
    }
  });

  test('written through the view, every value comes back exactly; only the canonical forms are bytes', () => {
    const records = insertRecords(
      svc.ctx.db,
      TRICKY.map((r, i) => ({ ...r, transaction_id: r.transaction_id || `empty-${i}`, wallet_id: W, amount: `${i}.5` })),
    );
    const read = svc.ctx.db.$client.prepare(recordsWhereInSql('transaction_id')).raw(true);
    for (const r of records) {
      const [found, ...more] = read.all(JSON.stringify([r.transaction_id])) as unknown[][];
      expect(more).toEqual([]);
      const back = recordOfRow(found!);
      for (const f of STORED_RECORD_FIELDS.filter((f) => f !== 'import_id' && f !== 'updated_at' && f !== 'movement'))
        expect([f, back[f]]).toEqual([f, r[f]]);
    }
    // A lower-case UUID is 16 bytes, an 0x hash 32, a Tron hash 33 (a zero byte first); any other form stays text.
    expect(stored(UUID)).toEqual(['blob', 16, 'blob', 32, 'null', 'integer', 'integer']);
    expect(stored(UUID.toUpperCase())).toEqual(['text', 36, 'text', 66, 'blob', 'integer', 'integer']);
    expect(stored(UUID.replace(/-/g, ''))).toEqual(['text', 32, 'blob', 33, 'text', 'integer', 'integer']);
    expect(stored('tx 1')).toEqual(['text', 4, 'text', 64, 'text', 'integer', 'integer']);
    // Each is found by its own value only: the same letters in another case are another id.
    const ids = (values: string[]) =>
      (read.all(JSON.stringify(values)) as unknown[][]).map((row) => recordOfRow(row).transaction_id).sort((a, b) => a.localeCompare(b));
    expect(ids([UUID, UUID.toUpperCase()])).toEqual([UUID.toUpperCase(), UUID].sort((a, b) => a.localeCompare(b)));
    const byHash = svc.ctx.db.$client.prepare(recordsWhereInSql('hash')).raw(true);
    for (const r of TRICKY) {
      const found = (byHash.all(JSON.stringify([r.hash])) as unknown[][]).map((row) => recordOfRow(row).hash);
      expect(found).toEqual([r.hash]);
    }
  });

  test('an import stores what the view stores, and a re-import finds every record unchanged', async () => {
    const tronHash = '0123abcd'.repeat(8);
    const lines = [
      good(1, { transaction_id: 'a0000000-0000-4000-8000-000000000001', request_id: 'b0000000-0000-4000-8000-000000000001' }),
      good(2, { transaction_id: 'a0000000-0000-4000-8000-000000000002', hash: tronHash, chain_id: 'TRON', token_id: 'TRON_USDT' }),
      good(3, { transaction_id: 'a0000000-0000-4000-8000-000000000003', request_id: 'wd-3', type: 'Withdrawal', status: 'Failed' }),
    ];
    const first = await svc.invoke('ledger-import', { source: text(lines) }, meta);
    expect(first).toMatchObject({ added: 3, rejected: 0 });
    expect(stored('a0000000-0000-4000-8000-000000000001')).toEqual(['blob', 16, 'blob', 32, 'blob', 'integer', 'integer']);
    expect(stored('a0000000-0000-4000-8000-000000000002')).toEqual(['blob', 16, 'blob', 33, 'null', 'integer', 'integer']);
    expect(stored('a0000000-0000-4000-8000-000000000003')).toEqual(['blob', 16, 'blob', 32, 'text', 'integer', 'integer']);
    const list = await svc.invoke('transactions-list', { page_size: 10, search: tronHash }, meta);
    expect(list).toMatchObject({
      total: 1,
      list: [{ transaction_id: 'a0000000-0000-4000-8000-000000000002', hash: tronHash, chain_id: 'TRON' }],
    });
    const three = await svc.invoke('transactions-list', { page_size: 10, search: 'wd-3' }, meta);
    expect(three).toMatchObject({
      total: 1,
      list: [{ transaction_id: 'a0000000-0000-4000-8000-000000000003', type: 'Withdrawal', status: 'Failed', wallet_id: W }],
    });
    // Another order of the same rows: other bytes, so every row is read and compared with its record.
    const again = await svc.invoke('ledger-import', { source: text([lines[2]!, lines[0]!, lines[1]!]) }, meta);
    expect(again).toMatchObject({ added: 0, updated: 0, unchanged: 3 });
  });
});
