import type { Chain } from '../../../shared/catalogue';
import type { LedgerRecord } from '../../../shared/ledger';
import { FLAG_FIELDS, matchFlagOf, type RunSummary } from '../../../shared/reconcile';
import type { ReconcileReport, ReportFile, ReportFormat, ReportGroup, ReportItem } from '../../../shared/reports';
import { CSV_MIME, writeReportCsv, writeReportXlsx, XLSX_MIME } from '../reports';
import { explorerTxUrl } from '../catalogue/explorer';
import { getChain } from '../catalogue/repository';
import type { ServiceContext } from '../context';
import { pendingTicketsOfRun } from '../tickets/repository';
import { periodBalances } from '../ledger/balances';
import { getWallet } from '../ledger/wallets-repository';
import { parseClaimed } from '../json/claimed';
import { flagsOf, listRunItems, listUnbooked, runRanBy, type RunItemFilter, type RunItemRow } from './repository';

/*
 * An auditor's report of one run, gathered from the store: the run's counts, each group's items
 * (up to `limit` a group; the counts stay whole), the wallets by name, the open exceptions. The
 * writers (reports/) turn it into XLSX or CSV; `nps reconcile --json` prints it as it is.
 */

const PAGE = 1000;
const REPORT_LIMIT = 100_000;

/** What the run's stored options say about who ran it (books runs keep it; API runs name their key). */
function runBy(ctx: ServiceContext, run: RunSummary): string {
  const by = runRanBy(ctx.db, run.run_id);
  if (by) return by;
  return run.source === 'api' ? `api${run.label ? ` (${run.label})` : ''}` : run.source;
}

function explorerOf(ctx: ServiceContext): (record: LedgerRecord | null, claimed: Record<string, unknown> | null) => string {
  const chains = new Map<string, Chain | undefined>();
  const chain = (id: string) => {
    if (!chains.has(id)) chains.set(id, getChain(ctx.db, id));
    return chains.get(id);
  };
  return (record, claimed) => {
    if (record) return explorerTxUrl(chain(record.chain_id), record.hash);
    const hash = typeof claimed?.hash === 'string' ? claimed.hash : '';
    const chainId = typeof claimed?.chain_id === 'string' ? claimed.chain_id : '';
    return chainId ? explorerTxUrl(chain(chainId), hash) : '';
  };
}

const parseClaims = (text: string) => parseClaimed(text) as unknown as unknown[];

/** Every item of a run's group, page by page, up to `limit`. */
function groupItems(ctx: ServiceContext, runId: string, filter: RunItemFilter, limit: number): RunItemRow[] {
  const out: RunItemRow[] = [];
  for (let page = 1; ; page++) {
    const { list, total } = listRunItems(ctx.db, runId, filter, page, PAGE, parseClaims);
    out.push(...list.slice(0, limit - out.length));
    if (out.length >= limit || page * PAGE >= total) return out;
  }
}

const falseFields = (row: RunItemRow): string => {
  const flags = flagsOf(row.falseFlags);
  return FLAG_FIELDS.filter((f) => !flags[matchFlagOf(f)]).join(',');
};

/** The report of a run. `generatedBy` names who asked for it. */
export function buildReport(ctx: ServiceContext, run: RunSummary, generatedBy: string, limit = REPORT_LIMIT): ReconcileReport {
  const explorer = explorerOf(ctx);
  const rowOfIdx = new Map<number, number>();
  const claimItems = (filter: RunItemFilter, note: (row: RunItemRow) => string): ReportItem[] =>
    groupItems(ctx, run.run_id, filter, limit).map((row) => {
      const claimed = row.claimed as Record<string, unknown>;
      const booksRow = typeof claimed.books_row === 'number' ? claimed.books_row : null;
      if (booksRow !== null) rowOfIdx.set(row.idx, booksRow);
      return {
        books_row: booksRow,
        claimed,
        record: row.record,
        note: note(row),
        ticket_id: row.ticket_id,
        explorer_tx_url: explorer(row.record, claimed),
      };
    });
  const matched = claimItems('matched', () => '');
  const mismatched = claimItems('mismatched', (row) => `differs: ${falseFields(row)}`);
  const notInLedger = claimItems('not_found', () => 'no record found');
  const duplicates = claimItems('duplicates', (row) => {
    const first = row.duplicate_of === null ? undefined : rowOfIdx.get(row.duplicate_of);
    return first !== undefined ? `repeats books row ${first}` : `repeats claim ${(row.duplicate_of ?? 0) + 1}`;
  });
  const notInBooks: ReportItem[] = [];
  for (let page = 1; ; page++) {
    const { list, total } = listUnbooked(ctx.db, run.run_id, page, PAGE);
    for (const u of list.slice(0, limit - notInBooks.length)) {
      const explorer_tx_url = explorer(u.record, null);
      notInBooks.push({
        books_row: null,
        claimed: null,
        record: u.record,
        note: 'no claim in the books',
        ticket_id: u.ticket_id,
        explorer_tx_url,
      });
    }
    if (notInBooks.length >= limit || page * PAGE >= total) break;
  }
  const groups: Record<ReportGroup, ReportItem[]> = {
    matched,
    mismatched,
    not_in_ledger: notInLedger,
    not_in_books: notInBooks,
    duplicates,
  };
  const wallet = run.wallet_id ? getWallet(ctx.db, run.wallet_id) : undefined;
  const openExceptions = pendingTicketsOfRun(ctx.db, run.run_id);
  return {
    title: `Reconciliation of ${run.label || 'the books'}`,
    run_id: run.run_id,
    books: run.label,
    period_from: run.period_from,
    period_to: run.period_to,
    wallets: run.wallet_id ? [{ wallet_id: run.wallet_id, name: wallet?.name ?? '' }] : [],
    summary: {
      matched: run.matched,
      mismatched: run.mismatched,
      not_in_ledger: run.not_found,
      not_in_books: run.not_in_books,
      duplicates: run.duplicates,
    },
    claims: run.item_count,
    rejected_rows: run.rejected_count,
    // A two-way run's period has an opening and a closing balance per wallet and token.
    balances: run.two_way ? periodBalances(ctx.db, run.wallet_id ? [run.wallet_id] : null, run.period_from, run.period_to) : [],
    open_exceptions: openExceptions,
    run_by: runBy(ctx, run),
    run_at: run.created_at,
    generated_by: generatedBy,
    generated_at: ctx.now(),
    groups,
  };
}

const MIME: Record<ReportFormat, string> = { xlsx: XLSX_MIME, csv: CSV_MIME };

/** The report as a file to save: XLSX (summary, then a sheet per group) or CSV (one table). */
export async function reportFile(report: ReconcileReport, format: ReportFormat): Promise<ReportFile> {
  const day = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString().slice(0, 10));
  const period = report.period_from !== null || report.period_to !== null ? `-${day(report.period_from)}_${day(report.period_to)}` : '';
  const base = `reconciliation-${(report.books || report.run_id).replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_')}${period}`;
  const bytes = format === 'xlsx' ? await writeReportXlsx(report) : Buffer.from(writeReportCsv(report), 'utf8');
  return { file_name: `${base}.${format}`, mime: MIME[format], base64: bytes.toString('base64') };
}
