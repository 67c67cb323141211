import type { Db } from '../db/open';
import { raiseExceptions } from './repository';

/**
 * A Pending ticket for tests: a claim the ledger lacks (`not_in_ledger`, ETH), opened as a books
 * run opens one, in its own transaction. Answers its ticket id.
 */
export function openClaimTicket(db: Db, o: { subject: string; at: number; amount?: string }): string {
  return db.$client.transaction(
    () =>
      raiseExceptions(db, [
        {
          kind: 'not_in_ledger',
          subject: o.subject,
          wallet_id: '',
          transaction_id: '',
          chain_id: 'ETH',
          token_id: 'ETH',
          amount: o.amount ?? '1',
          desc: `no record for ${o.subject}`,
          claimed: '{}',
          run_id: null,
          actor: 'ui',
          at: o.at,
        },
      ])[0]!,
  )();
}
