import type { TransactionRecord } from '../../../shared/ledger';
import type { Db } from '../db/open';

/*
 * Ledger fixtures for reconciliation tests, written straight into `wallets` and `transactions`
 * (the columns the ledger import fills), so the tests do not depend on the import's file formats.
 */

export type RecordFixture = Partial<TransactionRecord> & Pick<TransactionRecord, 'transaction_id' | 'wallet_id'>;

export function fixtureRecord(r: RecordFixture): TransactionRecord {
  return {
    request_id: null,
    type: 'Withdrawal',
    status: 'Completed',
    amount: '100',
    to: null,
    fee_ratio: null,
    fee_fixed: null,
    fee: null,
    er: null,
    amount_actual: null,
    hash: null,
    chain_id: 'ETH',
    token_id: 'ETH_USDT',
    created_at: null,
    confirmed_at: null,
    completed_at: null,
    import_id: null,
    updated_at: 0,
    ...r,
  };
}

export function insertRecords(db: Db, records: readonly RecordFixture[]): TransactionRecord[] {
  const full = records.map(fixtureRecord);
  const wallet = db.$client.prepare('INSERT OR IGNORE INTO wallets (wallet_id, name, created_at, updated_at) VALUES (?, ?, 0, 0)');
  const tx = db.$client.prepare(
    `INSERT INTO transactions (transaction_id, wallet_id, request_id, type, status, amount, "to", fee_ratio, fee_fixed, fee, er, amount_actual,
       hash, chain_id, token_id, created_at, confirmed_at, completed_at, import_id, updated_at)
     VALUES (@transaction_id, @wallet_id, @request_id, @type, @status, @amount, @to, @fee_ratio, @fee_fixed, @fee, @er, @amount_actual,
       @hash, @chain_id, @token_id, @created_at, @confirmed_at, @completed_at, @import_id, @updated_at)`,
  );
  db.$client.transaction(() => {
    for (const r of full) {
      wallet.run(r.wallet_id, '');
      tx.run(r);
    }
  })();
  return full;
}

export function insertWallet(db: Db, walletId: string): void {
  db.$client.prepare('INSERT OR IGNORE INTO wallets (wallet_id, name, created_at, updated_at) VALUES (?, ?, 0, 0)').run(walletId, '');
}
