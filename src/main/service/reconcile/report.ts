import { actorLabel } from '../../../shared/actors';
import type { Chain } from '../../../shared/catalogue';
import type { LedgerRecord } from '../../../shared/ledger';
import {
  DEFAULT_AMOUNT_DELTA,
  DEFAULT_TIME_DELTA,
  FLAG_FIELDS,
  matchFlagOf,
  TIME_TYPES,
  type BooksRejectedRow,
  type FlagField,
  type RunSummary,
  type TimeType,
} from '../../../shared/reconcile';
import {
  BooksFile,
  type ReconcileReport,
  type ReportException,
  type ReportFile,
  type ReportFormat,
  type ReportGroup,
  type ReportItem,
} from '../../../shared/reports';
import { CSV_MIME, writeReportCsv, writeReportXlsx, XLSX_MIME } from '../reports';
import { explorerTxUrl } from '../catalogue/explorer';
import { getChain, getToken } from '../catalogue/repository';
import type { ServiceContext } from '../context';
import { exceptionStates, type ExceptionState } from '../tickets/repository';
import { periodBalances } from '../ledger/balances';
import { getWallet } from '../ledger/wallets-repository';
import { parseClaimed } from '../json/claimed';
import {
  flagsOf,
  listRunItems,
  listUnbooked,
  runOptions,
  runRejections,
  runTicketIds,
  type RunItemFilter,
  type RunItemRow,
} from './repository';

/*
 * An auditor's report of one run, gathered from the store: the run's counts, each group's items
 * (up to `limit` a group; the counts stay whole), the wallets by name, the books file and the
 * tolerances the run used, its rejected rows, and each exception as it stands when the report is
 * made (who settled it, when and why). The writers (reports/) turn it into XLSX or CSV;
 * `nps reconcile --json` prints it as it is.
 */

const PAGE = 1000;
const REPORT_LIMIT = 100_000;

/** What the run's stored options say about how it ran; the defaults where they say nothing (an API run). */
function howItRan(ctx: ServiceContext, run: RunSummary) {
  const o = runOptions(ctx.db, run.run_id);
  const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const file = BooksFile.safeParse(o.books_file);
  const timeType = TIME_TYPES.find((t) => t === o.time_type) ?? 'Created';
  return {
    run_by: text(o.run_by) ?? (run.source === 'api' ? `api${run.label ? ` (${run.label})` : ''}` : run.source),
    books_file: file.success ? file.data : null,
    time_zone: text(o.time_zone) ?? 'UTC',
    tolerances: {
      amount_delta: text(o.amount_delta) ?? DEFAULT_AMOUNT_DELTA,
      time_delta: typeof o.time_delta === 'number' ? o.time_delta : DEFAULT_TIME_DELTA,
      time_type: timeType satisfies TimeType,
    },
  };
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

/** The compared fields in the words the report's columns use. */
const FIELD_WORDS: Record<FlagField, string> = {
  chain_id: 'chain',
  token_id: 'token',
  to: 'to address',
  status: 'status',
  type: 'type',
  amount: 'amount',
  fee: 'fee',
  amount_actual: 'amount after fee',
  time: 'time',
};

const falseFields = (row: RunItemRow): string => {
  const flags = flagsOf(row.falseFlags);
  return FLAG_FIELDS.filter((f) => !flags[matchFlagOf(f)])
    .map((f) => FIELD_WORDS[f])
    .join(', ');
};

/** An exception as the report shows it: its status, and who resolved or dismissed it, when and why (nothing while Pending). */
function exceptionOf(state: ExceptionState | undefined): ReportException | null {
  if (!state) return null;
  const settled = state.status !== 'Pending' && state.last_change?.to === state.status ? state.last_change : null;
  return {
    status: state.status,
    settled_by: settled ? actorLabel(settled.actor) : '',
    settled_at: settled?.at ?? null,
    reason: settled?.note ?? '',
  };
}

/** The decimal places of each token the items and balances name, from the catalogue (a token it lacks has none). */
function tokenDecimals(ctx: ServiceContext, report: Pick<ReconcileReport, 'groups' | 'balances'>): Record<string, number> {
  const ids = new Set<string>(report.balances.map((b) => b.token_id));
  for (const items of Object.values(report.groups))
    for (const item of items) {
      if (item.record) ids.add(item.record.token_id);
      if (typeof item.claimed?.token_id === 'string') ids.add(item.claimed.token_id);
    }
  const out: Record<string, number> = {};
  for (const id of ids) {
    const token = getToken(ctx.db, id);
    if (token) out[id] = token.decimal;
  }
  return out;
}

/** The name of each wallet the records are in, and the run's own. */
function walletNamesOf(ctx: ServiceContext, groups: Record<ReportGroup, ReportItem[]>, runWallet: string | null): Record<string, string> {
  const ids = new Set<string>(runWallet ? [runWallet] : []);
  for (const items of Object.values(groups)) for (const item of items) if (item.record) ids.add(item.record.wallet_id);
  return Object.fromEntries([...ids].map((id) => [id, getWallet(ctx.db, id)?.name ?? '']));
}

/** The report of a run. `generatedBy` names who asked for it. */
export function buildReport(ctx: ServiceContext, run: RunSummary, generatedBy: string, limit = REPORT_LIMIT): ReconcileReport {
  const explorer = explorerOf(ctx);
  const how = howItRan(ctx, run);
  const ticketIds = runTicketIds(ctx.db, run.run_id);
  const states = exceptionStates(ctx.db, ticketIds);
  const rowOfIdx = new Map<number, number>();
  const claimItems = (filter: RunItemFilter, note: (row: RunItemRow) => string): ReportItem[] =>
    groupItems(ctx, run.run_id, filter, limit).map((row) => {
      const claimed = row.claimed as Record<string, unknown>;
      const booksRow = typeof claimed.books_row === 'number' ? claimed.books_row : null;
      if (booksRow !== null) rowOfIdx.set(row.idx, booksRow);
      return {
        books_row: booksRow,
        description: typeof claimed.description === 'string' ? claimed.description : '',
        claimed,
        record: row.record,
        note: note(row),
        ticket_id: row.ticket_id,
        exception: row.ticket_id === null ? null : exceptionOf(states.get(row.ticket_id)),
        explorer_tx_url: explorer(row.record, claimed),
      };
    });
  const matched = claimItems('matched', () => '');
  const mismatched = claimItems('mismatched', (row) => `Differs in ${falseFields(row)}`);
  const notInLedger = claimItems('not_found', () => 'No record in the ledger');
  const duplicates = claimItems('duplicates', (row) => {
    const first = row.duplicate_of === null ? undefined : rowOfIdx.get(row.duplicate_of);
    return first !== undefined ? `Repeats books row ${first}` : `Repeats claim ${(row.duplicate_of ?? 0) + 1}`;
  });
  const notInBooks: ReportItem[] = [];
  for (let page = 1; ; page++) {
    const { list, total } = listUnbooked(ctx.db, run.run_id, page, PAGE);
    for (const u of list.slice(0, limit - notInBooks.length)) {
      notInBooks.push({
        books_row: null,
        description: '',
        claimed: null,
        record: u.record,
        note: 'No claim in the books',
        ticket_id: u.ticket_id,
        exception: u.ticket_id === null ? null : exceptionOf(states.get(u.ticket_id)),
        explorer_tx_url: explorer(u.record, null),
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
  const walletNames = walletNamesOf(ctx, groups, run.wallet_id);
  const exceptions = { pending: 0, resolved: 0, dismissed: 0 };
  for (const id of ticketIds) {
    const status = states.get(id)?.status;
    if (status === 'Pending') exceptions.pending++;
    else if (status === 'Resolved') exceptions.resolved++;
    else if (status === 'Dismissed') exceptions.dismissed++;
  }
  // A two-way run's period has an opening and a closing balance per wallet and token.
  const balances = run.two_way ? periodBalances(ctx.db, run.wallet_id ? [run.wallet_id] : null, run.period_from, run.period_to) : [];
  const rejected: BooksRejectedRow[] = runRejections(ctx.db, run.run_id);
  return {
    title: `Reconciliation of ${run.label || 'the books'}`,
    run_id: run.run_id,
    books: run.label,
    books_file: how.books_file,
    period_from: run.period_from,
    period_to: run.period_to,
    time_zone: how.time_zone,
    tolerances: how.tolerances,
    wallets: run.wallet_id ? [{ wallet_id: run.wallet_id, name: walletNames[run.wallet_id] ?? '' }] : [],
    summary: {
      matched: run.matched,
      mismatched: run.mismatched,
      not_in_ledger: run.not_found,
      not_in_books: run.not_in_books,
      duplicates: run.duplicates,
    },
    claims: run.item_count,
    rejected_rows: run.rejected_count,
    rejected,
    balances,
    open_exceptions: exceptions.pending,
    exceptions,
    token_decimals: tokenDecimals(ctx, { groups, balances }),
    wallet_names: walletNames,
    run_by: how.run_by,
    run_at: run.created_at,
    generated_by: generatedBy,
    generated_at: ctx.now(),
    groups,
  };
}

const MIME: Record<ReportFormat, string> = { xlsx: XLSX_MIME, csv: CSV_MIME };

/** The report as a file to save: XLSX (summary, then a sheet per group and the rejected rows) or CSV (one table). */
export async function reportFile(report: ReconcileReport, format: ReportFormat): Promise<ReportFile> {
  const day = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString().slice(0, 10));
  const period = report.period_from !== null || report.period_to !== null ? `-${day(report.period_from)}_${day(report.period_to)}` : '';
  const base = `reconciliation-${(report.books || report.run_id).replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_')}${period}`;
  const bytes = format === 'xlsx' ? await writeReportXlsx(report) : Buffer.from(writeReportCsv(report), 'utf8');
  return { file_name: `${base}.${format}`, mime: MIME[format], base64: bytes.toString('base64') };
}
