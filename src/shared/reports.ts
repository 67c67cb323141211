import { z } from 'zod';
import { LedgerRecord } from './ledger';
import { PeriodBalance } from './balances';

/*
 * An auditor's report of one two-way reconciliation: what the service knows, gathered once
 * (reconcile/report.ts), then written as XLSX or CSV (reports/). Times are Unix milliseconds here;
 * the files show them as ISO 8601 UTC.
 *
 * The rejected rows, the time type and the exception's status are written out here rather than
 * imported: reconcile.ts and tickets.ts import this file (directly or through reconcile.ts). Their
 * types are assignable to these, which the report's builder checks (reconcile/report.ts).
 */

export const REPORT_GROUPS = ['matched', 'mismatched', 'not_in_ledger', 'not_in_books', 'duplicates'] as const;
export type ReportGroup = (typeof REPORT_GROUPS)[number];

/**
 * Each group's one name, wherever a person reads it: the Reconcile screen and its history, the
 * queue's kinds, the command line, the report's sheets and the docs.
 */
export const REPORT_GROUP_LABELS: Record<ReportGroup, string> = {
  matched: 'Matched',
  mismatched: 'Mismatched',
  not_in_ledger: 'Not in ledger',
  not_in_books: 'Not in books',
  duplicates: 'Duplicate',
};

/** An exception's state when the report was made: what a person (or a later finding) did with it. */
export const ReportException = z.object({
  status: z.enum(['Pending', 'Resolved', 'Dismissed']),
  /** Who last resolved or dismissed it, when (Unix ms) and why; "" and null while it is Pending. */
  settled_by: z.string(),
  settled_at: z.number().int().nullable(),
  reason: z.string(),
});
export type ReportException = z.infer<typeof ReportException>;

export const ReportItem = z.object({
  /** The books row the claim came from (1 = the first data row); null for a ledger record no claim found. */
  books_row: z.number().int().nullable(),
  /** The books' own description of the line (the mapping's description column); "" when none. */
  description: z.string(),
  /** The claim's fields as read from the books; null for not_in_books. */
  claimed: z.record(z.string(), z.unknown()).nullable(),
  /** The ledger record; null for a claim that found none. */
  record: LedgerRecord.nullable(),
  /** What was found, in words: "Differs in amount, time", "No record in the ledger", "No claim in the books", "Repeats books row 3"; "" for matched. */
  note: z.string(),
  ticket_id: z.string().nullable(),
  /** The state of ticket_id's exception; null when the item has none. */
  exception: ReportException.nullable(),
  /** The chain's explorer_tx_url with the record's (or the claim's) hash filled in; "" when the chain has no template or there is no hash. */
  explorer_tx_url: z.string(),
});
export type ReportItem = z.infer<typeof ReportItem>;

/** The books file a run read: its name and the SHA-256 of its bytes (a picked file's text: of the UTF-8 the service received). */
export const BooksFile = z.object({ name: z.string(), sha256: z.string(), sha256_of: z.enum(['file', 'text']) });
export type BooksFile = z.infer<typeof BooksFile>;

/** A wallet's token over the period as the Balances screen shows it (closing = opening + inflow - outflow - fees), with the wallet's name. */
export const ReportBalance = PeriodBalance.extend({ wallet_name: z.string() });
export type ReportBalance = z.infer<typeof ReportBalance>;

export const ReconcileReport = z.object({
  title: z.string(),
  run_id: z.string(),
  /** The run's label (the books file's name unless the run was named otherwise). */
  books: z.string(),
  /** The books file read, with its SHA-256; null for a run that kept none (the API's, or one made before files were hashed). */
  books_file: BooksFile.nullable(),
  period_from: z.number().int().nullable(),
  period_to: z.number().int().nullable(),
  /** The zone the period's dates (and the books' times without one) were read in. */
  time_zone: z.string(),
  /** The tolerances the claims were compared with. */
  tolerances: z.object({
    amount_delta: z.string(),
    /** Seconds. */
    time_delta: z.number().int(),
    /** The recorded moment a claim's time is compared with. */
    time_type: z.enum(['Created', 'Confirmed', 'Completed']),
  }),
  /** The wallets reconciled; empty: every wallet. */
  wallets: z.array(z.object({ wallet_id: z.string(), name: z.string() })),
  summary: z.object(Object.fromEntries(REPORT_GROUPS.map((g) => [g, z.number().int()])) as Record<ReportGroup, z.ZodNumber>),
  /** Claims read from the books, and rows that could not become one. */
  claims: z.number().int(),
  rejected_rows: z.number().int(),
  /** The rejected rows the run kept (the first 1000), with their reasons. */
  rejected: z.array(z.object({ row: z.number().int(), field: z.string(), reason: z.string() })),
  balances: z.array(ReportBalance),
  /** Exceptions of this run's items still Pending when the report was made. */
  open_exceptions: z.number().int(),
  /** The same exceptions by status when the report was made. */
  exceptions: z.object({ pending: z.number().int(), resolved: z.number().int(), dismissed: z.number().int() }),
  /** Decimal places of each token the report names (the catalogue's), to format its amounts. */
  token_decimals: z.record(z.string(), z.number().int()),
  /** The name of each wallet the report's records are in ("" for a wallet nobody named). */
  wallet_names: z.record(z.string(), z.string()),
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
