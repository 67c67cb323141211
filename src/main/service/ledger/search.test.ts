import { afterAll, describe, expect, it } from 'vitest';
import { tempService } from '../test-support';
import { insertRecords } from '../reconcile/fixtures.test-support';
import { filterSql } from './repository';

/*
 * The Ledger screen searches as the user types, over a million records: every search is read
 * through the identifiers' indexes (the ID's, the request's, the hash's first 8 bytes), never by
 * reading the ledger's records one by one, whatever other filter goes with it. Read from the query
 * plans SQLite makes (it makes them the same for an empty store and a large one: no statistics).
 */

const W = '11111111-1111-4111-8111-111111111111';

describe('the ledger search reads indexes only', () => {
  const svc = tempService();
  afterAll(() => svc.dispose());
  insertRecords(svc.ctx.db, [
    {
      transaction_id: 'aaaaaaaa-0000-4000-8000-000000000001',
      wallet_id: W,
      hash: '0x' + 'ab'.repeat(32),
      created_at: 1,
      request_id: 'WD-1',
    },
  ]);

  const plan = (search: string, more: Record<string, unknown> = {}, order = 't.created_at DESC, t.rowid LIMIT 50') => {
    const { filter, args } = filterSql({ search, ...more } as Parameters<typeof filterSql>[0]);
    const rows = svc.ctx.db.$client
      .prepare(`EXPLAIN QUERY PLAN SELECT t.transaction_id FROM transactions t${filter} ORDER BY ${order}`)
      .all(...args);
    return (rows as { detail: string }[]).map((r) => r.detail);
  };

  it.each([
    ['a whole hash', '0x' + 'ab'.repeat(32)],
    ["a hash's beginning", '0xabab'],
    ["a Tron hash's beginning", 'abababababababababab'],
    ["a transaction ID's beginning", 'aaaaaaaa-00'],
    ["a request ID's beginning", 'WD-1'],
    ['three characters', 'WD-'],
  ])('%s: the records by rowid, found by index ranges, with or without a wallet and a period', (_, search) => {
    for (const more of [{}, { wallet_id: W, from: 0, to: 10, type: 'Withdrawal', status: 'Completed' }]) {
      for (const order of ['t.created_at DESC, t.rowid LIMIT 50', 'decimal_key(t.amount) DESC, t.created_at DESC, t.rowid']) {
        const steps = plan(search, more, order);
        const reads = steps.filter((d) => /^(SEARCH|SCAN) (r|t|ledger_rows)\b/.test(d));
        expect(reads[0], steps.join('\n')).toBe('SEARCH r USING INTEGER PRIMARY KEY (rowid=?)');
        for (const d of reads.slice(1))
          expect(d, steps.join('\n')).toMatch(/^SEARCH ledger_rows USING (COVERING )?INDEX transactions_(id|hash|request)_idx /);
      }
    }
  });
});
