import type { FlagField, RunItem } from '../../../../shared/reconcile';
import { REPORT_GROUP_LABELS } from '../../../../shared/reports';
import type { TransactionRecord } from '../../../../shared/ledger';
import { formatSeconds, formatTime } from '../../lib/format';

/** A claimed value as text: numbers may arrive as exact-number objects ({isLosslessNumber, value}). */
export function claimText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object' && v !== null && 'value' in v && (v as { isLosslessNumber?: boolean }).isLosslessNumber)
    return String((v as { value: unknown }).value);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export const given = (claimed: Record<string, unknown>, f: string): boolean => {
  const t = claimText(claimed[f]);
  return t !== '';
};

/** Which recorded moment a claim's time is compared with (Created unless it says otherwise). */
function timeFieldOf(claimed: Record<string, unknown>): 'created_at' | 'confirmed_at' | 'completed_at' {
  const t = claimText(claimed.time_type).toLowerCase();
  return t === 'confirmed' ? 'confirmed_at' : t === 'completed' ? 'completed_at' : 'created_at';
}

export function recordedText(record: TransactionRecord | null, f: FlagField, claimed: Record<string, unknown>): string {
  if (!record) return '';
  if (f === 'time') return formatTime(record[timeFieldOf(claimed)]);
  const v = record[f];
  return v === null || v === undefined ? '' : String(v);
}

export function claimedDisplay(claimed: Record<string, unknown>, f: FlagField): string {
  const t = claimText(claimed[f]);
  if (f === 'time' && /^\d+$/.test(t)) {
    // A books date without a time claims its whole day: shown as that day (the UTC date of its middle is the books' own).
    const until = claimText(claimed.time_until);
    if (/^\d+$/.test(until)) return `${new Date(((Number(t) + Number(until)) / 2) * 1000).toISOString().slice(0, 10)} (all day)`;
    return formatSeconds(Number(t));
  }
  return t;
}

/** A claim's group by its one name (shared/reports.ts): Matched, Mismatched, Not in ledger, Duplicate. */
export const outcomeOf = (item: RunItem): string =>
  REPORT_GROUP_LABELS[item.duplicate_of !== null ? 'duplicates' : item.result ? 'matched' : item.record ? 'mismatched' : 'not_in_ledger'];

export function identifierOf(claimed: Record<string, unknown>): { kind: string; value: string } {
  for (const k of ['hash', 'transaction_id', 'request_id']) {
    const v = claimText(claimed[k]);
    if (v) return { kind: k, value: v };
  }
  return { kind: '', value: '' };
}

/**
 * The books cell a claim field was read from, for the preview's "as written" beside the value:
 * its column; for amount (and type) of an In/Out pair, the side that holds the amount; a signed
 * amount's type, the amount cell. undefined when no column gives it (a constant).
 */
export function rawCellOf(
  mapping: { columns?: Partial<Record<string, string>>; amount_sign?: string },
  cells: Record<string, string>,
  field: string,
): string | undefined {
  const columns = mapping.columns ?? {};
  const own = columns[field];
  if (own !== undefined && (cells[own] ?? '').trim() !== '') return cells[own];
  if ((field === 'amount' || field === 'type') && columns.amount_in && columns.amount_out) {
    const side = [columns.amount_in, columns.amount_out].find(
      (c) => (cells[c] ?? '').trim() !== '' && !/^[-+]?0*[.,]?0*$/.test(cells[c]!.trim()),
    );
    if (side !== undefined) return field === 'type' ? `${side}: ${cells[side]}` : cells[side];
  }
  if (field === 'type' && mapping.amount_sign && columns.amount) return cells[columns.amount];
  return own !== undefined ? cells[own] : undefined;
}
