import { existsSync, statSync } from 'node:fs';
import type { RetentionApplied, RetentionPolicy, RetentionStatus, RetentionStore, retentionContract } from '../../../shared/retention';
import { announceChange, changeOf } from '../changes';
import type { CallMeta, HandlersOf, ServiceContext } from '../context';
import {
  boundsOf,
  incrementalVacuum,
  lastRunsStart,
  pageStats,
  readPolicy,
  REMOVAL_START,
  removable,
  removalBounds,
  removeBatch,
  storedCounts,
  writePolicy,
  type RemovalCursor,
} from './retention-repository';

/*
 * Data retention (the policy: shared/retention.ts). The removal runs beside the service's other
 * work: a transaction of a few thousand items at a time, each taken when no import holds the write
 * lock (ctx.engine.write), with the event loop free between them, so requests and the window are
 * answered throughout and a process killed midway leaves whole batches behind it.
 *
 * Space: SQLite keeps the pages removed rows leave in the file and reuses them for new rows, so
 * the store stops growing once runs are removed as fast as they come. It gives them back to the
 * disk only in incremental auto-vacuum mode (then each removal ends with incremental vacuums, in
 * steps like the removal's); the store is in the default mode unless it was made otherwise, and
 * then the file keeps its size until a VACUUM. A VACUUM is never run here: it rewrites the whole
 * file while holding the write lock, for as long as that takes on a large store.
 *
 * It runs once after the service starts, after a verification run is stored (at most once an hour),
 * and when asked (retention-apply), one removal at a time.
 */

const BATCH_ITEMS = 4000;
const BATCH_RUNS = 200;
const VACUUM_PAGES = 256;
const AFTER_RUN_EVERY_MS = 3_600_000;

type Reason = 'start' | 'after-run' | 'apply';

interface State {
  /** The removal running now (or queued behind another). */
  job: Promise<RetentionApplied> | null;
  /** When the last removal started (ctx.now()). */
  lastStart: number | null;
}

const states = new WeakMap<ServiceContext, State>();

function stateOf(ctx: ServiceContext): State {
  let s = states.get(ctx);
  if (!s) states.set(ctx, (s = { job: null, lastStart: null }));
  return s;
}

const isOpen = (ctx: ServiceContext): boolean => ctx.db.$client.open;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

function storeOf(ctx: ServiceContext): RetentionStore {
  const file = ctx.db.$client.name;
  const pages = pageStats(ctx.db);
  return {
    file,
    db_bytes: fileSize(file),
    wal_bytes: fileSize(`${file}-wal`),
    free_bytes: pages.free_pages * pages.page_size,
    auto_vacuum: pages.auto_vacuum,
  };
}

function status(ctx: ServiceContext): RetentionStatus {
  const policy = readPolicy(ctx.db);
  return {
    policy,
    store: storeOf(ctx),
    ...storedCounts(ctx.db),
    would_remove: removable(ctx.db, removalBounds(ctx.db, policy, ctx.now())),
    running: stateOf(ctx).job !== null,
  };
}

/** One removal under the policy as it stands at each batch (a change while it runs applies from the next batch). */
async function removal(ctx: ServiceContext, reason: Reason, meta?: CallMeta): Promise<RetentionApplied> {
  const before = fileSize(ctx.db.$client.name);
  const startPolicy = readPolicy(ctx.db);
  const total = meta?.onProgress ? removable(ctx.db, removalBounds(ctx.db, startPolicy, ctx.now())).items : 0;
  const result: RetentionApplied = {
    policy: startPolicy,
    removed: { runs: 0, items: 0 },
    kept_for_tickets: { runs: 0, items: 0 },
    db_bytes_before: before,
    db_bytes_after: before,
    vacuum: 'none',
    store: storeOf(ctx),
  };
  let cursor: RemovalCursor = REMOVAL_START;
  let seen = 0;
  // Where the policy's last runs start, read again only when the policy's run count changes: runs
  // stored meanwhile only make it keep more than it must.
  let lastStart: { runs: number; at: ReturnType<typeof lastRunsStart> } | undefined;
  for (;;) {
    const batch = await ctx.engine.write(() => {
      if (!isOpen(ctx)) return null;
      const policy = (result.policy = readPolicy(ctx.db));
      if (lastStart?.runs !== policy.runs) lastStart = { runs: policy.runs, at: lastRunsStart(ctx.db, policy.runs) };
      const bounds = boundsOf(lastStart.at, policy.days, ctx.now());
      return bounds === null ? null : removeBatch(ctx.db, bounds, cursor, BATCH_ITEMS, BATCH_RUNS);
    });
    if (batch === null) break;
    cursor = batch.cursor;
    seen += batch.items_seen;
    result.removed.runs += batch.runs_removed;
    result.removed.items += batch.items_removed;
    result.kept_for_tickets.runs += batch.runs_kept;
    result.kept_for_tickets.items += batch.items_kept;
    meta?.onProgress?.({ done: Math.min(seen, total), total });
    if (batch.done) break;
    await yieldToLoop();
  }
  if (!isOpen(ctx)) return result;
  const removedAny = result.removed.runs + result.removed.items > 0;
  if (removedAny && pageStats(ctx.db).auto_vacuum === 'incremental') {
    result.vacuum = 'incremental';
    for (;;) {
      const left = await ctx.engine.write(() => (isOpen(ctx) ? incrementalVacuum(ctx.db, VACUUM_PAGES) : 0));
      if (left === 0) break;
      await yieldToLoop();
    }
    if (!isOpen(ctx)) return result;
  }
  result.store = storeOf(ctx);
  result.db_bytes_after = result.store.db_bytes;
  if (removedAny || reason === 'apply') {
    ctx.log.info({
      event: 'retention',
      reason,
      days: result.policy.days,
      runs: result.policy.runs,
      runs_removed: result.removed.runs,
      items_removed: result.removed.items,
      runs_kept_for_tickets: result.kept_for_tickets.runs,
      db_bytes: result.db_bytes_after,
      free_bytes: result.store.free_bytes,
    });
  }
  return result;
}

/** Queue a removal behind the one running, if any. */
function enqueue(ctx: ServiceContext, reason: Reason, meta?: CallMeta): Promise<RetentionApplied> {
  const state = stateOf(ctx);
  const job = (state.job ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => {
      state.lastStart = ctx.now();
      return removal(ctx, reason, meta);
    });
  state.job = job;
  const clear = () => {
    if (state.job === job) state.job = null;
  };
  job.then(clear, clear);
  return job;
}

/** A removal nobody waits for: skipped when one is running; a failure goes to the log. */
function inBackground(ctx: ServiceContext, reason: Reason): void {
  if (!isOpen(ctx) || stateOf(ctx).job !== null) return;
  enqueue(ctx, reason).then(
    (applied) => {
      // No call answers a removal in the background: the windows hear of it as of one asked for,
      // from no one (the policy did it).
      const change = changeOf('retention-apply', {}, applied);
      if (change && isOpen(ctx)) announceChange(ctx, { ...change, actor: '', at: ctx.now() });
    },
    (err: unknown) => {
      // A service closed under it ends the removal between two batches; anything else is worth a line.
      if (isOpen(ctx)) ctx.log.error({ event: 'retention', reason, err: err instanceof Error ? err.message : String(err) });
    },
  );
}

/** The removal after the service starts: on the next turn of the event loop, so opening the service never waits for it. */
export function startRetention(ctx: ServiceContext): void {
  stateOf(ctx).lastStart = ctx.now();
  setImmediate(() => inBackground(ctx, 'start')).unref();
}

/** A verification run was stored: remove what the policy no longer keeps, if the last removal started an hour ago or more. */
export function afterRunStored(ctx: ServiceContext): void {
  const last = stateOf(ctx).lastStart;
  if (last !== null && ctx.now() - last < AFTER_RUN_EVERY_MS) return;
  inBackground(ctx, 'after-run');
}

/** Resolves when no removal is running (tests, and a service about to close). */
export async function retentionSettled(ctx: ServiceContext): Promise<void> {
  while (stateOf(ctx).job) await stateOf(ctx).job!.catch(() => undefined);
}

export function retentionHandlers(ctx: ServiceContext): HandlersOf<typeof retentionContract> {
  return {
    'retention-get': () => status(ctx),
    'retention-set': (input) => {
      const stored = readPolicy(ctx.db);
      const policy: RetentionPolicy = { days: input.days ?? stored.days, runs: input.runs ?? stored.runs };
      writePolicy(ctx.db, policy, ctx.now());
      return policy;
    },
    'retention-apply': (_input, meta) => enqueue(ctx, 'apply', meta),
  };
}
