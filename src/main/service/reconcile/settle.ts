import type { ServiceContext } from '../context';
import { inTransaction } from '../db/open';
import { settleExceptions } from '../tickets/repository';
import type { RunScope } from './verify';

/*
 * A later books run settles what earlier runs found and the books have since put right: the run
 * resolves each Pending exception an earlier run opened about a claim or record that now agrees,
 * with an event naming the run. Exceptions a person dismissed or resolved stay as they are.
 */

const rowOf = (row: number | undefined) => (row === undefined ? '' : ` (books row ${row})`);

/**
 * Settle after the run's last claim and its ledger side: mismatches whose record every claim of
 * this run agrees with, not-in-ledger claims now found, not-in-books records now in the books,
 * duplicates now claimed once. Answers how many exceptions were resolved.
 */
export async function settleEarlierExceptions(
  ctx: ServiceContext,
  scope: RunScope,
  runLabel: string,
  unbooked: ReadonlySet<string>,
): Promise<number> {
  const { seen, findings } = scope.twoWay!;
  const by = `Settled by books run "${runLabel}" (${scope.run_id})`;
  const wallet = scope.wallet_id ?? '';
  const agreed = (tx: string) =>
    findings.agreed.has(tx) && !findings.disagreed.has(tx)
      ? `${by}: the books now agree with the ledger${rowOf(findings.agreed.get(tx))}`
      : undefined;
  const found = (subject: string) =>
    findings.found.has(subject) ? `${by}: the claim is now in the ledger${rowOf(findings.found.get(subject))}` : undefined;
  const inBooks = (tx: string) => {
    const first = seen.get(`tx:${tx}`) ?? seen.get(`fee:${tx}`);
    return first !== undefined && !unbooked.has(tx) ? `${by}: the record is now in the books${rowOf(first.row)}` : undefined;
  };
  const once = (subject: string) => {
    if (!subject.startsWith(`${wallet}|`)) return undefined;
    const key = subject.slice(wallet.length + 1);
    const first = seen.get(key);
    return first !== undefined && !findings.repeated.has(key) ? `${by}: the books claim it once now${rowOf(first.row)}` : undefined;
  };
  // Not while an import holds the write lock.
  await ctx.engine.writable();
  return inTransaction(ctx.db, () => {
    const now = ctx.now();
    const settle = (kind: Parameters<typeof settleExceptions>[1], noteOf: (subject: string) => string | undefined) =>
      settleExceptions(ctx.db, kind, noteOf, scope.run_id, scope.actor, now).length;
    return settle('mismatch', agreed) + settle('not_in_ledger', found) + settle('not_in_books', inBooks) + settle('duplicate', once);
  });
}
