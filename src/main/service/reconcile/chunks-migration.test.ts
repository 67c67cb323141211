import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { openDb } from '../db/open';
import { migrationsBefore, tempService } from '../test-support';
import { insertRecords } from './fixtures.test-support';

const dir = mkdtempSync(join(tmpdir(), 'nps-chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TX = 'aaaaaaaa-0000-4000-8000-000000000001';
const W = '11111111-1111-4111-8111-111111111111';

test('runs stored a row per item before chunks keep every item, its claim and its outcome', async () => {
  // The store as it was before verification_chunks replaced verification_results.
  const before = migrationsBefore(dir, '_drop_verification_results');
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const old = openDb({ file: join(dataDir, 'nps.sqlite'), migrationsFolder: before });
  old.$client
    .prepare(
      `INSERT INTO verification_runs (run_id, source, label, item_count, matched, mismatched, not_found, created_at) VALUES ('r1', 'ui', 'books', 1002, 1, 1, 1000, 5)`,
    )
    .run();
  const insert = old.$client.prepare(
    'INSERT INTO verification_results (run_id, idx, claimed, transaction_id, result, flags, ticket_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  insert.run('r1', 0, '{"transaction_id":"' + TX + '","amount":100.50}', TX, 0, '["amount"]', 't1');
  for (let i = 1; i < 1001; i++)
    insert.run(
      'r1',
      i,
      `{"request_id":"x${i}","amount":1}`,
      null,
      0,
      JSON.stringify(['chain_id', 'token_id', 'to', 'status', 'type', 'amount', 'fee', 'amount_actual', 'time']),
      null,
    );
  insert.run('r1', 1001, `{"transaction_id":"${TX}","amount":"100"}`, TX, 1, '[]', null);
  old.$client.close();

  const svc = tempService({ dataDir });
  try {
    insertRecords(svc.ctx.db, [{ transaction_id: TX, wallet_id: W, amount: '100' }]);
    const ui = { actor: 'ui' as const };
    const all = await svc.invoke('run-get', { run_id: 'r1', page: 1, page_size: 2, filter: 'all' }, ui);
    expect(all).toMatchObject({ item_count: 1002, matched: 1, mismatched: 1, not_found: 1000 });
    expect(all.items.total).toBe(1002);
    expect(all.items.list[0]).toMatchObject({
      idx: 0,
      claimed: { transaction_id: TX, amount: '100.50' },
      result: false,
      ticket_id: 't1',
      record: { transaction_id: TX },
    });
    expect(all.items.list[0]).toMatchObject({ amount_match: false, time_match: true });
    expect(all.items.list[1]).toMatchObject({
      idx: 1,
      claimed: { request_id: 'x1', amount: 1 },
      result: false,
      record: null,
      ticket_id: null,
    });
    const matched = await svc.invoke('run-get', { run_id: 'r1', page: 1, page_size: 10, filter: 'matched' }, ui);
    expect(matched.items).toMatchObject({ total: 1, list: [{ idx: 1001, claimed: { amount: '100' }, result: true }] });
    const notFound = await svc.invoke('run-get', { run_id: 'r1', page: 100, page_size: 10, filter: 'not_found' }, ui);
    expect(notFound.items.total).toBe(1000);
    expect(notFound.items.list.map((r) => r.idx)).toEqual([991, 992, 993, 994, 995, 996, 997, 998, 999, 1000]);
    expect(svc.ctx.db.$client.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'verification_results'").get()).toEqual({
      n: 0,
    });
  } finally {
    svc.close();
  }
});
