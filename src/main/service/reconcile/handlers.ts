import { ErrorCodes } from '../../../shared/errors';
import {
  isItemIssue,
  MAX_BATCH,
  readVerifyItem,
  type BooksRunInput,
  type BooksRunResult,
  type reconcileContract,
  type RunSummary,
  type VerifyInput,
  type VerifyResultA,
  type VerifyResultB,
} from '../../../shared/reconcile';
import type { CallMeta, HandlersOf, ServiceContext } from '../context';
import { fieldPath, invalidParam, ServiceError } from '../errors';
import { claimedJson, parseClaimed } from '../json/claimed';
import { findWallet } from '../ledger/repository';
import { actorOf } from '../tickets/rules';
import { pendingSubjects } from '../tickets/repository';
import { compileBooksRow, compileTokenResolver, DECIDING_ROWS } from './books-map';
import { detectBooks, previewBooks, sourceName } from './books';
import { booksRows, openBooks } from './books-head';
import { booksFileOf } from './books-file';
import {
  catalogueTokens,
  flagsOf,
  getRun,
  insertRun,
  listRunItems,
  listUnbooked,
  listRuns,
  recordRunRejections,
  runRejections,
  setRunTwoWay,
  storedItemCount,
  walletChains,
} from './repository';
import { verifyResultA, verifyResultB } from './match';
import { afterRunStored } from './retention';
import { newRunId, verifyChunk, type Claim, type RunFindings, type RunScope, type SeenClaims } from './verify';
import { findUnbooked } from './unbooked';
import { settleEarlierExceptions } from './settle';
import { buildReport, reportFile } from './report';
import { readPeriod } from '../ledger/period';
import { getMapping, listSaved, proposeMapping, rememberMapping, removeMapping, saveMapping, updateMapping } from './mappings';

const BOOKS_CHUNK = 1000;

const MAX_REPORTED_REJECTIONS = 1000;

/**
 * The wallet a call names, checked in this order: the key may act on it (2006), it exists (3004).
 * Answers the stored spelling, or null when the call names none.
 */
function resolveWallet(ctx: ServiceContext, walletId: string | undefined, scope: ReadonlySet<string> | null): string | null {
  if (walletId === undefined) return null;
  if (scope !== null && !scope.has(walletId.toLowerCase())) {
    throw new ServiceError(ErrorCodes.AUTH_WALLET_FORBIDDEN, `wallet_id: this API key may not act on wallet ${walletId}`);
  }
  const stored = findWallet(ctx.db, walletId);
  if (stored === undefined) throw new ServiceError(ErrorCodes.UNKNOWN_WALLET, `wallet_id: unknown wallet ${walletId}`);
  return stored;
}

const scopeOf = (meta: CallMeta): ReadonlySet<string> | null =>
  meta.walletScope ? new Set(meta.walletScope.map((w) => w.toLowerCase())) : null;

/**
 * POST /nps/bill/verify/txs: batch size (4001), wallet (2006, 3004), each item (1002 `txs[i].field`),
 * then the check. data[i] answers txs[i].
 */
async function verifyTxs(ctx: ServiceContext, input: VerifyInput, meta: CallMeta): Promise<VerifyResultA[] | VerifyResultB[]> {
  if (input.txs.length > MAX_BATCH) {
    throw new ServiceError(ErrorCodes.BATCH_TOO_LARGE, `txs: ${input.txs.length} transactions given; at most ${MAX_BATCH} per request`);
  }
  // The API's verifications take the event loop one a turn (engine/turns.ts); the window's do not wait.
  const turn = meta.actor === 'api' ? () => ctx.engine.nextTurn() : undefined;
  await turn?.();
  const scope = scopeOf(meta);
  const walletId = resolveWallet(ctx, input.wallet_id, scope);
  const claims: Claim[] = input.txs.map((raw, i) => {
    const item = readVerifyItem(raw);
    if (isItemIssue(item)) throw invalidParam(fieldPath(item.path, `txs[${i}]`), item.message);
    return { item, claimed: claimedJson(raw) };
  });
  const runId = newRunId();
  const label = meta.apiKey ? (meta.keyLabel ?? (await ctx.keys.get(meta.apiKey))?.label ?? '') : '';
  const outcomes = await verifyChunk(
    ctx,
    { run_id: runId, wallet_id: walletId, wallets: scope, actor: actorOf(ctx, meta) },
    0,
    claims,
    {
      run_id: runId,
      source: meta.actor,
      api_key: meta.apiKey ?? null,
      label,
      wallet_id: walletId,
      shape: input.shape,
      options: '{}',
      created_at: ctx.now(),
    },
    turn,
  );
  afterRunStored(ctx);
  let matched = 0;
  let notFound = 0;
  for (const o of outcomes) {
    if (o.result) matched++;
    else if (o.record === null) notFound++;
  }
  ctx.log.info({
    event: 'verify',
    by: meta.actor,
    ...(label ? { key: label } : {}),
    run_id: runId,
    claims: claims.length,
    matched,
    mismatched: claims.length - matched - notFound,
    not_found: notFound,
  });
  // The HTTP door writes these with the serializer compiled from VerifyResultA / VerifyResultB.
  const result = input.shape === 'A' ? verifyResultA : verifyResultB;
  return outcomes.map((o) => result(o.flags, o.result, o.record, o.ticket_id)) as VerifyResultA[] | VerifyResultB[];
}

/** A two-way run's findings, watching what the queue's Pending exceptions are about. */
const newFindings = (ctx: ServiceContext): RunFindings => ({
  watch: { mismatch: pendingSubjects(ctx.db, 'mismatch'), not_in_ledger: pendingSubjects(ctx.db, 'not_in_ledger') },
  agreed: new Map(),
  disagreed: new Set(),
  found: new Map(),
  repeated: new Set(),
});

/** How a run reads the books' token cells: catalogue ids, or symbols on the chains of the wallet (or wallets) it checks. */
const tokensOf = (ctx: ServiceContext, walletId: string | null, wallets: ReadonlySet<string> | null) =>
  compileTokenResolver(catalogueTokens(ctx.db), () => walletChains(ctx.db, { wallet_id: walletId, wallets }));

/** The accountant's books file, mapped to claims and checked in chunks through the same core as the API. */
async function runBooks(ctx: ServiceContext, input: BooksRunInput, meta: CallMeta): Promise<BooksRunResult> {
  const scope = scopeOf(meta);
  const walletId = resolveWallet(ctx, input.wallet_id, scope);
  // The mapping is checked against the header before anything is stored.
  const file = openBooks(input.source, DECIDING_ROWS);
  const readRow = compileBooksRow(file.headers, { ...input, resolveToken: tokensOf(ctx, walletId, scope) });
  const period = readPeriod(input);
  const total = file.rowEstimate ?? 0;
  // Which file this is, for the report: its name and SHA-256, kept with the run's options.
  const booksFile = await booksFileOf(input.source);
  const runId = newRunId();
  const label = input.label ?? sourceName(input.source);
  const seen: SeenClaims = new Map();
  const runScope: RunScope = {
    run_id: runId,
    wallet_id: walletId,
    wallets: scope,
    actor: actorOf(ctx, meta),
    ...(input.two_way ? { twoWay: { seen, findings: newFindings(ctx) } } : {}),
  };
  const options = {
    amount_delta: input.amount_delta,
    time_type: input.time_type,
    time_delta: input.time_delta,
    mapping: input.mapping,
    ...(input.two_way ? { from: input.from, to: input.to, time_zone: input.time_zone } : {}),
    run_by: runScope.actor,
    books_file: booksFile,
  };
  insertRun(ctx.db, {
    run_id: runId,
    source: meta.actor,
    api_key: meta.apiKey ?? null,
    label,
    wallet_id: walletId,
    shape: 'A',
    options: JSON.stringify(options),
    created_at: ctx.now(),
  });
  if (input.two_way) setRunTwoWay(ctx.db, runId, period.from, period.to);
  const rejected: BooksRunResult['rejected'] = [];
  let rejectedCount = 0;
  let done = 0;
  let chunk: Claim[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    await verifyChunk(ctx, runScope, done, chunk);
    done += chunk.length;
    chunk = [];
    meta.onProgress?.({ done, total: Math.max(total - rejectedCount, done) });
    // Let the API and the window be served between chunks of a long file.
    await new Promise((resolve) => setImmediate(resolve));
  };
  for await (const { row: rowNumber, cells } of booksRows(file)) {
    const outcome = readRow(cells as Record<string, string>);
    if ('reason' in outcome) {
      rejectedCount++;
      if (rejected.length < MAX_REPORTED_REJECTIONS) rejected.push({ row: rowNumber, field: outcome.field, reason: outcome.reason });
      continue;
    }
    chunk.push({ item: outcome.item, claimed: JSON.stringify({ books_row: rowNumber, ...outcome.claimed }), books_row: rowNumber });
    if (chunk.length >= BOOKS_CHUNK) await flush();
  }
  await flush();
  let settled = 0;
  if (input.two_way) {
    const unbooked = await findUnbooked(ctx, runScope, period, seen);
    settled = await settleEarlierExceptions(ctx, runScope, label, unbooked);
  }
  if (rejectedCount > 0) {
    // Kept with the run, so its page shows them whenever it is opened. Not while an import holds the write lock.
    await ctx.engine.writable();
    recordRunRejections(ctx.db, runId, rejectedCount, rejected);
  }
  meta.onProgress?.({ done, total: done });
  // The next file of this layout is proposed the mapping this run used.
  let savedMapping = null;
  if (input.remember_mapping || input.save_mapping_as !== undefined) {
    await ctx.engine.writable();
    savedMapping = rememberMapping(ctx, { headers: file.headers, walletId, fileName: sourceName(input.source), input });
  }
  afterRunStored(ctx);
  const summary = getRun(ctx.db, runId)!;
  ctx.log.info({
    event: 'books-run',
    by: meta.actor,
    run_id: runId,
    claims: summary.item_count,
    matched: summary.matched,
    mismatched: summary.mismatched,
    not_in_ledger: summary.not_found,
    ...(summary.two_way ? { not_in_books: summary.not_in_books, duplicates: summary.duplicates } : {}),
    rejected: rejectedCount,
    ...(settled ? { settled } : {}),
  });
  return { ...summary, rejected, settled, saved_mapping: savedMapping };
}

function requireRun(ctx: ServiceContext, runId: string): RunSummary {
  const run = getRun(ctx.db, runId);
  if (!run) throw new ServiceError(ErrorCodes.INVALID_PARAM, `run_id: no run ${runId}`);
  return run;
}

export function reconcileHandlers(ctx: ServiceContext): HandlersOf<typeof reconcileContract> {
  return {
    'reconcile-verify-txs': (input, meta) => verifyTxs(ctx, input, meta),
    'reconcile-books-detect': ({ source, wallet_id }) => {
      const detected = detectBooks(source);
      return { ...detected, saved: proposeMapping(ctx, detected.headers, wallet_id) };
    },
    'books-mappings-list': ({ headers, wallet_id }) => listSaved(ctx, headers, wallet_id),
    'books-mapping-get': ({ mapping, headers }) => getMapping(ctx, mapping, headers),
    'books-mapping-save': (input) => saveMapping(ctx, input),
    'books-mapping-update': (input) => updateMapping(ctx, input),
    'books-mapping-remove': ({ mapping }) => removeMapping(ctx, mapping),
    'reconcile-books-preview': (input, meta) => {
      const scope = scopeOf(meta);
      return previewBooks(input, tokensOf(ctx, resolveWallet(ctx, input.wallet_id, scope), scope));
    },
    'reconcile-books-run': (input, meta) => runBooks(ctx, input, meta),
    'runs-list': ({ page, page_size }) => listRuns(ctx.db, page, page_size),
    'run-report': ({ run_id, limit }, meta) => buildReport(ctx, requireRun(ctx, run_id), actorOf(ctx, meta), limit),
    'run-report-file': ({ run_id, format }, meta) => reportFile(buildReport(ctx, requireRun(ctx, run_id), actorOf(ctx, meta)), format),
    'run-unbooked': ({ run_id, page, page_size }) => {
      requireRun(ctx, run_id);
      return listUnbooked(ctx.db, run_id, page, page_size);
    },
    'run-get': ({ run_id, page, page_size, filter }) => {
      const run = requireRun(ctx, run_id);
      const items = listRunItems(ctx.db, run_id, filter, page, page_size, (text) => parseClaimed(text) as unknown as unknown[]);
      return {
        ...run,
        rejected: runRejections(ctx.db, run_id),
        stored_items: storedItemCount(ctx.db, run_id),
        items: {
          ...items,
          list: items.list.map((r) => ({
            idx: r.idx,
            claimed: r.claimed as Record<string, unknown>,
            ...flagsOf(r.falseFlags),
            result: r.result,
            record: r.record,
            record_changed: r.record !== null && r.record.updated_at > run.created_at,
            ticket_id: r.ticket_id,
            duplicate_of: r.duplicate_of,
          })),
        },
      };
    },
  };
}
