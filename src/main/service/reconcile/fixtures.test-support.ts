import { LEDGER_FIELDS, type LedgerRecord } from '../../../shared/ledger';
import type { Db } from '../db/open';

/*
 * Ledger fixtures for reconciliation tests, written straight into `wallets` and `transactions`
 * (the columns the ledger import fills, "" stored as NULL as the import stores it), so the tests
 * do not depend on the import's file formats.
 */

export type RecordFixture = Partial<LedgerRecord> & Pick<LedgerRecord, 'transaction_id' | 'wallet_id'>;

export function fixtureRecord(r: RecordFixture): LedgerRecord {
  return {
    type: 'Withdrawal',
    status: 'Completed',
    amount: '100',
    to: '',
    fee_ratio: '',
    fee_fixed: '',
    fee: '',
    er: '',
    amount_actual: '',
    hash: '',
    chain_id: 'ETH',
    token_id: 'ETH_USDT',
    created_at: null,
    confirmed_at: null,
    completed_at: null,
    request_id: '',
    import_id: null,
    updated_at: 0,
    movement: 0,
    ...r,
  };
}

const ALL_COLUMNS = [...LEDGER_FIELDS, 'import_id', 'updated_at', 'movement'] as const;

export function insertRecords(db: Db, records: readonly RecordFixture[]): LedgerRecord[] {
  const full = records.map(fixtureRecord);
  // A store made by an earlier version may not have every column yet.
  const present = new Set(db.$client.prepare("SELECT name FROM pragma_table_info('transactions')").pluck().all() as string[]);
  const COLUMNS = ALL_COLUMNS.filter((c) => present.has(c));
  const wallet = db.$client.prepare('INSERT OR IGNORE INTO wallets (wallet_id, name, created_at, updated_at) VALUES (?, ?, 0, 0)');
  const tx = db.$client.prepare(
    `INSERT INTO transactions (${COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
  );
  db.$client.transaction(() => {
    for (const r of full) {
      wallet.run(r.wallet_id, '');
      tx.run(...COLUMNS.map((c) => (r[c] === '' ? null : r[c])));
    }
  })();
  return full;
}
