import type { LedgerRecord } from '../../../shared/ledger';
import type { ServiceContext } from '../context';
import { inTransaction } from '../db/open';
import type { Period } from '../ledger/period';
import { raiseExceptions } from '../tickets/repository';
import { addRunGroupCounts, insertUnbooked, recordIdsInScope, recordsWhereIn } from './repository';
import { isZeroAmount } from './match';
import type { RunScope, SeenClaims } from './verify';

/*
 * The ledger side of a two-way run: every record of the run's wallet (or of every wallet the
 * caller may use) created in the period that no claim of the books found is "in the ledger, not
 * in the books", and becomes an exception to work. Run after the last claim is checked.
 */

const BATCH = 1000;

const when = (ms: number | null): string => (ms === null ? 'no time recorded' : new Date(ms).toISOString().replace('.000Z', 'Z'));

function describe(r: LedgerRecord, feeRow: number | undefined): string {
  const id = r.hash ? `hash ${r.hash}` : `transaction ${r.transaction_id}`;
  const what = `${r.type} ${r.amount} ${r.token_id} (${r.status}), ${when(r.created_at)}, ${id}`;
  return feeRow === undefined
    ? `In the ledger, not in the books: ${what}`
    : `In the ledger, not in the books: ${what}; the books have its fee only (books row ${feeRow}), not the amount it moved`;
}

/** What moved and never failed: a movement the books must carry, beside its fee. */
const moved = (r: LedgerRecord): boolean => !isZeroAmount(r.amount || '0') && r.status !== 'Failed' && r.status !== 'Rejected';

/**
 * Find the run's unbooked records, open their exceptions and keep them with the run: a record no
 * claim booked, and one of which the books have only the fee while it also moved an amount (a gas
 * line with no line of the movement). Answers the ids reported.
 */
export async function findUnbooked(ctx: ServiceContext, scope: RunScope, period: Period, seen: SeenClaims): Promise<Set<string>> {
  const ids = recordIdsInScope(ctx.db, scope, period).filter((id) => !seen.has(`tx:${id}`));
  const reported = new Set<string>();
  for (let start = 0; start < ids.length; start += BATCH) {
    // Not while an import holds the write lock; between batches the window and the API are served.
    await ctx.engine.writable();
    const records = recordsWhereIn(ctx.db, 'transaction_id', ids.slice(start, start + BATCH)).filter(
      (r) => !seen.has(`fee:${r.transaction_id}`) || moved(r),
    );
    inTransaction(ctx.db, () => {
      const now = ctx.now();
      const tickets = raiseExceptions(
        ctx.db,
        records.map((r) => ({
          kind: 'not_in_books' as const,
          subject: r.transaction_id,
          wallet_id: r.wallet_id,
          transaction_id: r.transaction_id,
          chain_id: r.chain_id,
          token_id: r.token_id,
          amount: r.amount,
          desc: describe(r, seen.get(`fee:${r.transaction_id}`)?.row),
          claimed: '{}',
          run_id: scope.run_id,
          actor: scope.actor,
          at: now,
        })),
      );
      insertUnbooked(
        ctx.db,
        scope.run_id,
        records.map((r, i) => ({ transaction_id: r.transaction_id, ticket_id: tickets[i]! })),
      );
      addRunGroupCounts(ctx.db, scope.run_id, records.length, 0);
    });
    // An import may have taken a record away meanwhile: count what was kept.
    for (const r of records) reported.add(r.transaction_id);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return reported;
}
