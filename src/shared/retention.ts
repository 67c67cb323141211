import { z } from 'zod';
import { intField } from './primitives';

/*
 * Data retention: how long verification runs are kept. A run is kept while it is one of the last
 * `runs` runs or younger than `days` days (whichever keeps more); older runs lose their items, except
 * the items that opened or touched a ticket, which stay as long as their ticket does. A run that
 * keeps such an item stays listed (its counts as they were, with only those items); a run that
 * keeps none is removed.
 */

export const DEFAULT_RETENTION = { days: 90, runs: 100 } as const;
export const RETENTION_LIMITS = { days: { min: 1, max: 3650 }, runs: { min: 0, max: 1_000_000 } } as const;

export const RetentionPolicy = z.object({
  days: z.number().int().meta({ description: 'Runs younger than this many days are kept whole' }),
  runs: z.number().int().meta({ description: 'The last this many runs are kept whole, however old' }),
});
export type RetentionPolicy = z.infer<typeof RetentionPolicy>;

const RetentionSetInput = z.object({
  days: intField({ ...RETENTION_LIMITS.days, description: 'Keep runs of the last this many days' }).optional(),
  runs: intField({ ...RETENTION_LIMITS.runs, description: 'Keep at least the last this many runs' }).optional(),
});

/** What removal does to the file: SQLite gives freed pages back to the disk only in incremental auto-vacuum mode. */
const AutoVacuum = z.enum(['none', 'full', 'incremental']);

export const RetentionStore = z.object({
  /** The store's file (nps.sqlite). */
  file: z.string(),
  db_bytes: z.number().int(),
  /** Its write-ahead log (nps.sqlite-wal); 0 when there is none. */
  wal_bytes: z.number().int(),
  /** Space inside the file that removed rows left free: reused by new rows; the file shrinks only by a vacuum. */
  free_bytes: z.number().int(),
  auto_vacuum: AutoVacuum,
});
export type RetentionStore = z.infer<typeof RetentionStore>;

const RemovalCounts = z.object({
  /** Runs removed whole (none of their items opened or touched a ticket). */
  runs: z.number().int(),
  /** Items removed, in those runs and in the runs kept for their tickets' items. */
  items: z.number().int(),
});

export const RetentionStatus = z.object({
  policy: RetentionPolicy,
  store: RetentionStore,
  /** Runs and their items stored now. */
  runs: z.number().int(),
  items: z.number().int(),
  /** What applying the policy now would remove. */
  would_remove: RemovalCounts,
  /** A removal is running now (the background pass or an apply). */
  running: z.boolean(),
});
export type RetentionStatus = z.infer<typeof RetentionStatus>;

export const RetentionApplied = z.object({
  policy: RetentionPolicy,
  removed: RemovalCounts,
  /** Older runs kept listed because some of their items opened or touched a ticket, and those items. */
  kept_for_tickets: z.object({ runs: z.number().int(), items: z.number().int() }),
  db_bytes_before: z.number().int(),
  db_bytes_after: z.number().int(),
  /** incremental: the freed pages were given back to the disk; none: they stay in the file for new rows until a VACUUM. */
  vacuum: z.enum(['incremental', 'none']),
  store: RetentionStore,
});
export type RetentionApplied = z.infer<typeof RetentionApplied>;

export const retentionContract = {
  'retention-get': { readOnly: true, input: z.object({}), output: RetentionStatus },
  'retention-set': { input: RetentionSetInput, output: RetentionPolicy },
  'retention-apply': { input: z.object({}), output: RetentionApplied },
};
