import type { LedgerRecord } from '../../../shared/ledger';
import type { ServiceContext } from '../context';
import { inTransaction } from '../db/open';
import { stmt } from '../db/statements';
import type { Period } from '../ledger/period';
import { raiseExceptions } from '../tickets/exceptions';
import { addRunGroupCounts, insertUnbooked, recordsWhereIn } from './repository';
import type { RunScope, SeenClaims } from './verify';

/*
 * The ledger side of a two-way run: every record of the run's wallet (or of every wallet the
 * caller may use) created in the period that no claim of the books found is "in the ledger, not
 * in the books", and becomes an exception to work. Run after the last claim is checked.
 */

const BATCH = 1000;

/** Ids of the records in scope and period, oldest first (served by the wallet/created index or the created index). */
function recordIdsInScope(ctx: ServiceContext, scope: RunScope, period: Period): string[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (scope.wallet_id !== null) {
    where.push('wallet_id = ?');
    params.push(scope.wallet_id);
  } else if (scope.wallets !== null) {
    where.push('lower(wallet_id) IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify([...scope.wallets]));
  }
  if (period.from !== null) {
    where.push('created_at >= ?');
    params.push(period.from);
  }
  if (period.to !== null) {
    where.push('created_at <= ?');
    params.push(period.to);
  }
  const sql = `SELECT transaction_id FROM transactions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, transaction_id`;
  return stmt<unknown[], string>(ctx.db, sql)
    .pluck()
    .all(...params);
}

const when = (ms: number | null): string => (ms === null ? 'no time recorded' : new Date(ms).toISOString().replace('.000Z', 'Z'));

function describe(r: LedgerRecord): string {
  const id = r.hash ? `hash ${r.hash}` : `transaction ${r.transaction_id}`;
  return `In the ledger, not in the books: ${r.type} ${r.amount} ${r.token_id} (${r.status}), ${when(r.created_at)}, ${id}`;
}

/** Find the run's unbooked records, open their exceptions and keep them with the run; answers how many. */
export async function findUnbooked(ctx: ServiceContext, scope: RunScope, period: Period, seen: SeenClaims): Promise<number> {
  const ids = recordIdsInScope(ctx, scope, period).filter((id) => !seen.has(`tx:${id}`));
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
