import type { LedgerRecord } from '../../../shared/ledger';
import type { ServiceContext } from '../context';
import { inTransaction } from '../db/open';
import type { Period } from '../ledger/period';
import { raiseExceptions } from '../tickets/repository';
import { addRunGroupCounts, insertUnbooked, recordIdsInScope, recordsWhereIn } from './repository';
import type { RunScope, SeenClaims } from './verify';

/*
 * The ledger side of a two-way run: every record of the run's wallet (or of every wallet the
 * caller may use) created in the period that no claim of the books found is "in the ledger, not
 * in the books", and becomes an exception to work. Run after the last claim is checked.
 */

const BATCH = 1000;

const when = (ms: number | null): string => (ms === null ? 'no time recorded' : new Date(ms).toISOString().replace('.000Z', 'Z'));

function describe(r: LedgerRecord): string {
  const id = r.hash ? `hash ${r.hash}` : `transaction ${r.transaction_id}`;
  return `In the ledger, not in the books: ${r.type} ${r.amount} ${r.token_id} (${r.status}), ${when(r.created_at)}, ${id}`;
}

/** Find the run's unbooked records, open their exceptions and keep them with the run; answers how many. */
export async function findUnbooked(ctx: ServiceContext, scope: RunScope, period: Period, seen: SeenClaims): Promise<number> {
  const ids = recordIdsInScope(ctx.db, scope, period).filter((id) => !seen.has(`tx:${id}`));
  let found = 0;
  for (let start = 0; start < ids.length; start += BATCH) {
    // Not while an import holds the write lock; between batches the window and the API are served.
    await ctx.engine.writable();
    const records = recordsWhereIn(ctx.db, 'transaction_id', ids.slice(start, start + BATCH));
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
          desc: describe(r),
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
    found += records.length;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return found;
}
