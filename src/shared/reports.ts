import { z } from 'zod';
import { LedgerRecord } from './ledger';
import { PeriodBalance } from './balances';

/*
 * An auditor's report of one two-way reconciliation: what the service knows, gathered once
 * (reconcile/report.ts), then written as XLSX or CSV (reports/). Times are Unix milliseconds here;
 * the files show them as ISO 8601 UTC.
 */

export const REPORT_GROUPS = ['matched', 'mismatched', 'not_in_ledger', 'not_in_books', 'duplicates'] as const;
export type ReportGroup = (typeof REPORT_GROUPS)[number];

export const REPORT_GROUP_LABELS: Record<ReportGroup, string> = {
  matched: 'Matched',
  mismatched: 'Mismatched',
  not_in_ledger: 'Claimed, not in ledger',
  not_in_books: 'In ledger, not in books',
  duplicates: 'Duplicate claims',
};

export const ReportItem = z.object({
  /** The books row the claim came from (1 = the first data row); null for a ledger record no claim found. */
  books_row: z.number().int().nullable(),
  /** The claim's fields as read from the books; null for not_in_books. */
  claimed: z.record(z.string(), z.unknown()).nullable(),
  /** The ledger record; null for a claim that found none. */
  record: LedgerRecord.nullable(),
  /** Mismatched: the fields that disagree, comma-separated (chain_id,token_id,...). Duplicates: "repeats books row N". */
  note: z.string(),
  ticket_id: z.string().nullable(),
  /** The chain's explorer_tx_url with the record's (or the claim's) hash filled in; "" when the chain has no template or there is no hash. */
  explorer_tx_url: z.string(),
});
export type ReportItem = z.infer<typeof ReportItem>;

/** A wallet's token over the period as the Balances screen shows it (closing = opening + inflow - outflow - fees), with the wallet's name. */
export const ReportBalance = PeriodBalance.extend({ wallet_name: z.string() });
export type ReportBalance = z.infer<typeof ReportBalance>;

export const ReconcileReport = z.object({
  title: z.string(),
  run_id: z.string(),
  /** The books file's name (the run's label). */
  books: z.string(),
  period_from: z.number().int().nullable(),
  period_to: z.number().int().nullable(),
  /** The wallets reconciled; empty: every wallet. */
  wallets: z.array(z.object({ wallet_id: z.string(), name: z.string() })),
  summary: z.object(Object.fromEntries(REPORT_GROUPS.map((g) => [g, z.number().int()])) as Record<ReportGroup, z.ZodNumber>),
  /** Claims read from the books, and rows that could not become one. */
  claims: z.number().int(),
  rejected_rows: z.number().int(),
  balances: z.array(ReportBalance),
  /** Exceptions of this run still Pending when the report was made. */
  open_exceptions: z.number().int(),
  run_by: z.string(),
  run_at: z.number().int(),
  generated_by: z.string(),
  generated_at: z.number().int(),
  /** Items of each group; a group may be cut at `limit` items (the counts stay whole). */
  groups: z.object(
    Object.fromEntries(REPORT_GROUPS.map((g) => [g, z.array(ReportItem)])) as Record<ReportGroup, z.ZodArray<typeof ReportItem>>,
  ),
});
export type ReconcileReport = z.infer<typeof ReconcileReport>;

// Declared in files.ts so that ledger.ts, which this file imports, can use them too.
export { ReportFile, ReportFormat } from './files';
