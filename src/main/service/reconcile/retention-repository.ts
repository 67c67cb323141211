import { DEFAULT_RETENTION, RETENTION_LIMITS, type RetentionPolicy } from '../../../shared/retention';
import { inTransaction, type Db } from '../db/open';
import { stmt } from '../db/statements';
import type { StoredOutcome } from './repository';

/*
 * Retention's SQL: the policy in `settings`, what it would remove, and the removal itself in small
 * transactions. A run is a candidate when it is older than the policy's days and not one of its
 * last runs; a candidate's items go, except those whose ticket exists (an item's ticket_id is the
 * fourth member of its stored outcome). Every mismatched item opened or updated a ticket, and in a
 * two-way run so did every claim not in the ledger and every duplicate (reconcile/verify.ts, TICKETED);
 * tickets are never deleted, so a chunk whose items all hold one
 * has nothing to remove, and a chunk with more items than those has (the estimate below counts
 * on it; the removal itself reads each item's ticket and checks that the ticket exists).
 */

const POLICY_KEY = 'retention_policy';
const DAY_MS = 86_400_000;

const within = (n: unknown, limits: { min: number; max: number }): n is number =>
  Number.isSafeInteger(n) && (n as number) >= limits.min && (n as number) <= limits.max;

/** The policy stored, each value the default when it is missing or not one the contract allows. */
export function readPolicy(db: Db): RetentionPolicy {
  const text = stmt<[string], string>(db, 'SELECT value FROM settings WHERE key = ?').pluck().get(POLICY_KEY);
  let stored: Partial<Record<keyof RetentionPolicy, unknown>> = {};
  try {
    if (text !== undefined) stored = JSON.parse(text) as typeof stored;
  } catch {
    stored = {};
  }
  return {
    days: within(stored.days, RETENTION_LIMITS.days) ? stored.days : DEFAULT_RETENTION.days,
    runs: within(stored.runs, RETENTION_LIMITS.runs) ? stored.runs : DEFAULT_RETENTION.runs,
  };
}

export function writePolicy(db: Db, policy: RetentionPolicy, now: number): void {
  stmt(
    db,
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  ).run(POLICY_KEY, JSON.stringify({ days: policy.days, runs: policy.runs }), now);
}

/**
 * Where the policy draws its line, in the runs' order (created_at, then rowid): a run before
 * (created_at, id) is older than the days and not one of the last runs. null: no run is (fewer runs
 * than the policy keeps).
 */
export interface RemovalBounds {
  created_at: number;
  id: number;
}

/**
 * The oldest of the last `runs` runs: a run before it is not one of them. null: none is kept for
 * its place (runs = 0); undefined: every run is (there are no more runs than that). It scans that
 * many entries of the runs' index, so a long removal reads it once, not at every batch.
 */
export function lastRunsStart(db: Db, runs: number): RemovalBounds | null | undefined {
  if (runs === 0) return null;
  return stmt<[number], RemovalBounds>(
    db,
    'SELECT created_at, rowid AS id FROM verification_runs ORDER BY created_at DESC, rowid DESC LIMIT 1 OFFSET ?',
  ).get(runs - 1);
}

/** The line for a policy of `days` days given where its last runs start (lastRunsStart). */
export function boundsOf(lastStart: RemovalBounds | null | undefined, days: number, now: number): RemovalBounds | null {
  if (lastStart === undefined) return null;
  const cutoff = { created_at: now - days * DAY_MS, id: 0 };
  return lastStart !== null && lastStart.created_at < cutoff.created_at ? lastStart : cutoff;
}

export const removalBounds = (db: Db, policy: RetentionPolicy, now: number): RemovalBounds | null =>
  boundsOf(lastRunsStart(db, policy.runs), policy.days, now);

const CANDIDATE = '(r.created_at <= @created_at AND (r.created_at, r.rowid) < (@created_at, @id))';

/** Runs and items stored now. */
export function storedCounts(db: Db): { runs: number; items: number } {
  return {
    runs: stmt<[], number>(db, 'SELECT count(*) FROM verification_runs').pluck().get()!,
    items: stmt<[], number>(db, 'SELECT coalesce(sum(item_count), 0) FROM verification_chunks').pluck().get()!,
  };
}

/**
 * A chunk's items that hold a ticket: its mismatches, and in a two-way run also its claims not in
 * the ledger and its duplicates (each opened an exception).
 */
const TICKETED = '(c.mismatched + CASE WHEN r.two_way THEN c.not_found + c.duplicates ELSE 0 END)';

/** What a removal within these bounds would take: runs without an item kept for a ticket, and the items without one. */
export function removable(db: Db, bounds: RemovalBounds | null): { runs: number; items: number } {
  if (bounds === null) return { runs: 0, items: 0 };
  const runs = stmt<[RemovalBounds], number>(
    db,
    `SELECT count(*) FROM verification_runs r WHERE ${CANDIDATE}
       AND NOT EXISTS (SELECT 1 FROM verification_chunks c WHERE c.run_id = r.run_id AND ${TICKETED} > 0)
       AND NOT EXISTS (SELECT 1 FROM run_unbooked u WHERE u.run_id = r.run_id)`,
  )
    .pluck()
    .get(bounds)!;
  const items = stmt<[RemovalBounds], number>(
    db,
    `SELECT coalesce(sum(c.item_count - ${TICKETED}), 0) FROM verification_runs r
       JOIN verification_chunks c ON c.run_id = r.run_id
     WHERE ${CANDIDATE} AND c.item_count > ${TICKETED}`,
  )
    .pluck()
    .get(bounds)!;
  return { runs, items };
}

/**
 * How far a removal has gone, in the runs' order: every candidate before (created_at, id) is done;
 * with `next_idx`, the run at (created_at, id) itself is done up to that item.
 */
export interface RemovalCursor {
  created_at: number;
  id: number;
  next_idx: number | null;
}

export const REMOVAL_START: RemovalCursor = { created_at: Number.MIN_SAFE_INTEGER, id: 0, next_idx: null };

export interface BatchOutcome {
  cursor: RemovalCursor;
  /** No candidate is left after the cursor. */
  done: boolean;
  runs_removed: number;
  items_removed: number;
  /** Candidates finished in this batch that stay listed for their tickets' items, and how many items they keep. */
  runs_kept: number;
  items_kept: number;
  /** Items looked at (removed or kept). */
  items_seen: number;
}

interface RunRef {
  run_id: string;
  created_at: number;
  id: number;
}

interface ChunkDoc {
  first_idx: number;
  item_count: number;
  outcomes: string;
}

/**
 * Remove what the policy no longer keeps, from the cursor on, in one transaction of at most about
 * `maxItems` items and `maxRuns` runs: each chunk of a candidate run is replaced by its items that
 * opened or touched an existing ticket, each as a chunk of one (at its own index, so the run's page
 * and its items' positions read as before); a run left without items is removed. Killed midway, the
 * store holds every batch before this one and none of this one.
 */
export function removeBatch(db: Db, bounds: RemovalBounds, from: RemovalCursor, maxItems: number, maxRuns: number): BatchOutcome {
  return inTransaction(db, () => {
    const out: BatchOutcome = {
      cursor: from,
      done: false,
      runs_removed: 0,
      items_removed: 0,
      runs_kept: 0,
      items_kept: 0,
      items_seen: 0,
    };
    const resumed = stmt<[RemovalBounds & { at: number }], RunRef>(
      db,
      `SELECT r.run_id, r.created_at, r.rowid AS id FROM verification_runs r WHERE r.rowid = @at AND ${CANDIDATE}`,
    );
    // The next candidate with something to remove: first among the runs of the cursor's own moment
    // (a seek on the index's created_at and rowid), then after it.
    const NEEDS_WORK = `(EXISTS (SELECT 1 FROM verification_chunks c WHERE c.run_id = r.run_id AND c.item_count > ${TICKETED})
       OR (NOT EXISTS (SELECT 1 FROM verification_chunks c WHERE c.run_id = r.run_id)
           AND NOT EXISTS (SELECT 1 FROM run_unbooked u WHERE u.run_id = r.run_id)))`;
    type After = RemovalBounds & { after_created: number; after_id: number };
    const sameMoment = stmt<[After], RunRef>(
      db,
      `SELECT r.run_id, r.created_at, r.rowid AS id FROM verification_runs r
       WHERE r.created_at = @after_created AND r.rowid > @after_id AND ${CANDIDATE} AND ${NEEDS_WORK}
       ORDER BY r.rowid LIMIT 1`,
    );
    const later = stmt<[After], RunRef>(
      db,
      `SELECT r.run_id, r.created_at, r.rowid AS id FROM verification_runs r
       WHERE r.created_at > @after_created AND ${CANDIDATE} AND ${NEEDS_WORK}
       ORDER BY r.created_at, r.rowid LIMIT 1`,
    );
    const nextRun = (after: After): RunRef | undefined => sameMoment.get(after) ?? later.get(after);
    const nextChunk = stmt<[string, number], ChunkDoc>(
      db,
      `SELECT c.first_idx, c.item_count, c.outcomes FROM verification_chunks c JOIN verification_runs r ON r.run_id = c.run_id
       WHERE c.run_id = ? AND c.first_idx >= ? AND c.item_count > ${TICKETED} ORDER BY c.first_idx LIMIT 1`,
    );
    let runs = 0;
    while (runs < maxRuns) {
      let cursor = out.cursor;
      let run = cursor.next_idx === null ? undefined : resumed.get({ ...bounds, at: cursor.id });
      // The run a batch stopped in, unless the policy keeps it now; then the next candidate.
      if (run === undefined) {
        cursor = out.cursor = { ...cursor, next_idx: null };
        run = nextRun({ ...bounds, after_created: cursor.created_at, after_id: cursor.id });
      }
      if (run === undefined) {
        out.done = true;
        break;
      }
      runs++;
      let at = cursor.next_idx ?? 0;
      for (;;) {
        if (out.items_seen >= maxItems) {
          out.cursor = { created_at: run.created_at, id: run.id, next_idx: at };
          return out;
        }
        const chunk = nextChunk.get(run.run_id, at);
        if (chunk === undefined) break;
        const kept = pruneChunk(db, run.run_id, chunk);
        out.items_seen += chunk.item_count;
        out.items_removed += chunk.item_count - kept;
        at = chunk.first_idx + chunk.item_count;
      }
      const left = stmt<[string], number | null>(db, 'SELECT sum(item_count) FROM verification_chunks WHERE run_id = ?')
        .pluck()
        .get(run.run_id)!;
      // A two-way run's ledger records not in the books hold exceptions too: such a run stays listed.
      const unbooked = stmt<[string], number>(db, 'SELECT count(*) FROM run_unbooked WHERE run_id = ?').pluck().get(run.run_id)!;
      if (left === null && unbooked === 0) {
        stmt(db, 'DELETE FROM verification_runs WHERE run_id = ?').run(run.run_id);
        out.runs_removed++;
      } else {
        out.runs_kept++;
        out.items_kept += left ?? 0;
      }
      out.cursor = { created_at: run.created_at, id: run.id, next_idx: null };
    }
    return out;
  });
}

/** Replace a chunk by its items whose ticket exists, each a chunk of one; answers how many were kept. */
function pruneChunk(db: Db, runId: string, chunk: ChunkDoc): number {
  const outcomes = JSON.parse(chunk.outcomes) as StoredOutcome[];
  const ticketIds = [...new Set(outcomes.map((o) => o[3]).filter((t) => t !== null))];
  const live = new Set(
    ticketIds.length === 0
      ? []
      : stmt<[string], string>(db, 'SELECT ticket_id FROM tickets WHERE ticket_id IN (SELECT value FROM json_each(?))')
          .pluck()
          .all(JSON.stringify(ticketIds)),
  );
  const keep = outcomes.flatMap((o, i) => (o[3] !== null && live.has(o[3]) ? [i] : []));
  // Each claim's text as stored (SQLite's JSON keeps every number's digits as written).
  const claims = new Map(
    keep.length === 0
      ? []
      : stmt<[string, number, string], { key: number; value: string }>(
          db,
          `SELECT key, value FROM json_each((SELECT claims FROM verification_chunks WHERE run_id = ? AND first_idx = ?))
           WHERE key IN (SELECT value FROM json_each(?))`,
        )
          .all(runId, chunk.first_idx, JSON.stringify(keep))
          .map((r) => [r.key, r.value]),
  );
  stmt(db, 'DELETE FROM verification_chunks WHERE run_id = ? AND first_idx = ?').run(runId, chunk.first_idx);
  const insert = stmt(
    db,
    `INSERT INTO verification_chunks (run_id, first_idx, item_count, matched, mismatched, not_found, duplicates, claims, outcomes)
     VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?)`,
  );
  for (const i of keep) {
    const o = outcomes[i]!;
    const claim = claims.get(i);
    if (claim === undefined) throw new Error(`run ${runId}: item ${chunk.first_idx + i} has an outcome but no claim`);
    // A duplicate of a two-way run counts as a duplicate only, as when it was stored.
    const duplicate = o[4] !== undefined ? 1 : 0;
    const matched = duplicate === 0 && o[1] === 1 ? 1 : 0;
    const notFound = duplicate === 0 && matched === 0 && o[0] === null ? 1 : 0;
    const mismatched = 1 - duplicate - matched - notFound;
    insert.run(runId, chunk.first_idx + i, matched, mismatched, notFound, duplicate, `[${claim}]`, JSON.stringify([o]));
  }
  return keep.length;
}

export type AutoVacuumMode = 'none' | 'full' | 'incremental';

/** The file's page accounting: its page size, the pages removed rows left free, and SQLite's auto-vacuum mode. */
export function pageStats(db: Db): { page_size: number; free_pages: number; auto_vacuum: AutoVacuumMode } {
  const client = db.$client;
  const mode = client.pragma('auto_vacuum', { simple: true }) as number;
  return {
    page_size: client.pragma('page_size', { simple: true }) as number,
    free_pages: client.pragma('freelist_count', { simple: true }) as number,
    auto_vacuum: mode === 2 ? 'incremental' : mode === 1 ? 'full' : 'none',
  };
}

/** Give up to `pages` free pages back to the disk (incremental auto-vacuum only); answers the free pages left. */
export function incrementalVacuum(db: Db, pages: number): number {
  db.$client.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
  return db.$client.pragma('freelist_count', { simple: true }) as number;
}
