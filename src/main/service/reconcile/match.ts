import Big from 'big.js';
import { RECORD_FIELDS, RECORD_TIME_FIELDS, type TransactionRecord } from '../../../shared/ledger';
import {
  FLAG_FIELDS,
  MATCH_FLAGS,
  matchFlagOf,
  type FlagField,
  type MatchFlags,
  type RecordShapeA,
  type RecordShapeB,
  type TimeType,
  type VerifyItem,
  type VerifyResultA,
  type VerifyResultB,
} from '../../../shared/reconcile';

/*
 * The matching rules of POST /nps/bill/verify/txs (docs/api.md, "A claim" and "Lookup"), as pure functions over
 * a claim and the records its identifiers point at. No store, no clock: the table-driven tests
 * in match.test.ts pin every rule.
 */

/** What the rules need to know about chains: whether addresses on one compare case-insensitively. */
export type IsEvmChain = (chainId: string) => boolean;

export type Identifier = 'transaction_id' | 'hash' | 'request_id';

/** Which identifier finds the record: transaction_id, else hash (with chain_id when given), else request_id. */
export function lookupKey(item: VerifyItem): { by: Identifier; value: string } {
  if (item.transaction_id !== undefined) return { by: 'transaction_id', value: item.transaction_id };
  if (item.hash !== undefined) return { by: 'hash', value: item.hash };
  return { by: 'request_id', value: item.request_id! };
}

const HEX_HASH = /^(0x)?[0-9a-fA-F]+$/;
const UUID_LIKE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/**
 * Whether an identifier is a number written in hex (a UUID, a hex hash), whose case carries no
 * meaning; anything else (a Base58 signature, a request_id) is compared exactly.
 */
export const isCaseless = (by: Identifier, value: string): boolean =>
  by === 'transaction_id' ? UUID_LIKE.test(value) : by === 'hash' ? HEX_HASH.test(value) : false;

/**
 * The form two identifiers are compared in: hex lower-cased, and a hex hash without its 0x (the
 * ledger keeps TRON hashes bare while tools often prefix them).
 */
function identifierKey(by: Identifier, value: string): string {
  return isCaseless(by, value) ? caselessKey(by, value) : value;
}

/** identifierKey of a value known to be caseless. */
export function caselessKey(by: Identifier, value: string): string {
  const lower = value.toLowerCase();
  return by === 'hash' && lower.startsWith('0x') ? lower.slice(2) : lower;
}

// The same text is the same identifier (the common case: no pattern test, no copy in lower case).
const sameId = (by: Identifier, claimed: string, recorded: string): boolean =>
  recorded !== '' && (claimed === recorded || identifierKey(by, claimed) === identifierKey(by, recorded));

/**
 * Every identifier the claim gives agrees with the record (and, for a hash lookup, the chain).
 * A Deposit record's request_id is never compared (source rule 2: request_id does not apply to a
 * Deposit; a claim of type Deposit has already dropped its own, readVerifyItem).
 */
export function identifiersAgree(item: VerifyItem, record: TransactionRecord): boolean {
  if (item.transaction_id !== undefined && !sameId('transaction_id', item.transaction_id, record.transaction_id)) return false;
  if (item.hash !== undefined && !sameId('hash', item.hash, record.hash)) return false;
  if (item.request_id !== undefined && record.type !== 'Deposit' && !sameId('request_id', item.request_id, record.request_id)) return false;
  if (item.transaction_id === undefined && item.hash !== undefined && item.chain_id !== undefined && item.chain_id !== record.chain_id)
    return false;
  return true;
}

/** The recorded moment `time` is compared with, in Unix milliseconds; null when not recorded. */
function recordedMoment(record: TransactionRecord, timeType: TimeType): number | null {
  switch (timeType) {
    case 'Created':
      return record.created_at;
    case 'Confirmed':
      return record.confirmed_at;
    case 'Completed':
      return record.completed_at;
  }
}

const TIME_TYPE_FIELD: Record<TimeType, 'created_at' | 'confirmed_at' | 'completed_at'> = {
  Created: 'created_at',
  Confirmed: 'confirmed_at',
  Completed: 'completed_at',
};

/** A stored time in the API's unit: whole Unix seconds, rounded down (as Shape A shows it). */
const toUnixSeconds = (ms: number): number => Math.floor(ms / 1000);

/** |claimed - recorded| exactly; null when nothing (or no number) is recorded. */
function difference(claimed: string, recorded: string): Exact | null {
  if (recorded === '') return null;
  const a = exactOf(claimed);
  const b = a === undefined ? undefined : exactOf(recorded);
  if (a !== undefined && b !== undefined) {
    const scale = Math.max(a.scale, b.scale);
    const d = rescale(a, scale) - rescale(b, scale);
    return { units: d < 0n ? -d : d, scale };
  }
  try {
    return exactOf(new Big(claimed).minus(new Big(recorded)).abs().toFixed())!;
  } catch {
    return null;
  }
}

/*
 * Plain decimals (the claims' amounts as read, the ledger's as stored) are compared as BigInts of
 * units at a common scale, exactly as big.js would compare them and several times faster (two
 * hundred mismatches a request each took two subtractions in big.js); anything else a decimal can
 * be written as goes through big.js first.
 */
interface Exact {
  units: bigint;
  scale: number;
}
const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;

function exactOf(text: string): Exact | undefined {
  const m = PLAIN.exec(text);
  if (m === null) return undefined;
  const frac = m[3] ?? '';
  const units = BigInt(m[2]! + frac);
  return { units: m[1] ? -units : units, scale: frac.length };
}

const rescale = (x: Exact, scale: number): bigint => (scale === x.scale ? x.units : x.units * 10n ** BigInt(scale - x.scale));

/** An amount written out as big.js's toFixed() writes it: plain, no trailing zeros in the fraction. */
function plainText(x: Exact): string {
  const negative = x.units < 0n;
  const digits = (negative ? -x.units : x.units).toString().padStart(x.scale + 1, '0');
  const whole = digits.slice(0, digits.length - x.scale);
  const frac = digits.slice(digits.length - x.scale).replace(/0+$/, '');
  const text = frac ? `${whole}.${frac}` : whole;
  return negative && text !== '0' ? `-${text}` : text;
}

/** x <= limit, exactly (limit a decimal as the claim gives it: amount_delta). */
function atMost(x: Exact, limit: string): boolean {
  const l = exactOf(limit) ?? exactOf(new Big(limit).toFixed())!;
  const scale = Math.max(x.scale, l.scale);
  return rescale(x, scale) <= rescale(l, scale);
}

/** A plain decimal that is zero ("0", "0.000"). */
export const isZeroAmount = (plain: string): boolean => /^-?0+(?:\.0+)?$/.test(plain);

/**
 * A claim of a transaction's gas: a fee, and no amount moved (books keep a line per fee, In and Out
 * empty). It pairs with the record that pays the hash's fee, and its amount is not compared: the
 * ledger keeps the fee on the transaction's own record, beside whatever that record moved.
 */
export const isGasClaim = (item: VerifyItem): boolean =>
  item.fee !== undefined && !isZeroAmount(item.fee) && (item.amount === undefined || isZeroAmount(item.amount));

/** A claim that something moved: an amount other than zero. */
const movesAmount = (item: VerifyItem): boolean => item.amount !== undefined && !isZeroAmount(item.amount);

/** A record that pays a fee. */
const paysFee = (r: TransactionRecord): boolean => r.fee !== '' && !isZeroAmount(r.fee);

/** A record of gas alone: nothing moved, a fee paid (a contract call, an approval). */
const gasOnly = (r: TransactionRecord): boolean => (r.amount === '' || isZeroAmount(r.amount)) && paysFee(r);

/**
 * What a claim books of the record it pairs with: the movement (its amount), the fee, or both.
 * In a books run each is booked once: a second claim of either is a duplicate.
 */
export type Facet = 'value' | 'fee';

export function facetsOf(item: VerifyItem): Facet[] {
  if (isGasClaim(item)) return ['fee'];
  return item.fee !== undefined && !isZeroAmount(item.fee) ? ['value', 'fee'] : ['value'];
}

function amountWithin(claimed: string, recorded: string, delta: string): boolean {
  // Both sides are plain decimals: the same text is the same number (the common case, no arithmetic).
  if (claimed === recorded) return true;
  const diff = difference(claimed, recorded);
  return diff !== null && atMost(diff, delta);
}

const sameText = (a: string, b: string, caseInsensitive: boolean): boolean =>
  b !== '' && (a === b || (caseInsensitive && equalIgnoringCase(a, b)));

/**
 * a.toLowerCase() === b.toLowerCase(), without making either copy while both are ASCII (an
 * address a claim wrote in lower case, the ledger with its checksum's capitals).
 */
function equalIgnoringCase(a: string, b: string): boolean {
  if (a.length !== b.length) return a.toLowerCase() === b.toLowerCase();
  for (let i = 0; i < a.length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x > 0x7f || y > 0x7f) return a.toLowerCase() === b.toLowerCase();
    if (x >= 0x41 && x <= 0x5a) x += 0x20;
    if (y >= 0x41 && y <= 0x5a) y += 0x20;
    if (x !== y) return false;
  }
  return true;
}

const ALL_FALSE: MatchFlags = Object.freeze(Object.fromEntries(MATCH_FLAGS.map((f) => [f, false])) as MatchFlags);

/** The claimed time agrees with the recorded moment (ms): within the claimed day, or within time_delta seconds. */
function timeAgrees(item: VerifyItem, moment: number | null): boolean {
  if (moment === null) return false;
  if (item.time_until !== undefined) return moment >= item.time! * 1000 && moment < item.time_until * 1000;
  return Math.abs(item.time! - toUnixSeconds(moment)) <= item.time_delta;
}

/** Each comparable field's flag, in the source's order: true when it agrees or the claim does not give it. */
function compareFields(item: VerifyItem, record: TransactionRecord, isEvm: IsEvmChain): MatchFlags {
  const moment = recordedMoment(record, item.time_type);
  const gas = isGasClaim(item);
  return {
    chain_id_match: item.chain_id === undefined || item.chain_id === record.chain_id,
    token_id_match: item.token_id === undefined || item.token_id === record.token_id,
    to_match: item.to === undefined || sameText(item.to, record.to, isEvm(record.chain_id)),
    status_match: item.status === undefined || sameText(item.status, record.status, true),
    type_match: item.type === undefined || sameText(item.type, record.type, true),
    amount_match: item.amount === undefined || gas || amountWithin(item.amount, record.amount, item.amount_delta),
    fee_match: item.fee === undefined || amountWithin(item.fee, record.fee, item.amount_delta),
    amount_actual_match: item.amount_actual === undefined || amountWithin(item.amount_actual, record.amount_actual, item.amount_delta),
    time_match: item.time === undefined || timeAgrees(item, moment),
  };
}

const allTrue = (flags: MatchFlags): boolean => MATCH_FLAGS.every((f) => flags[f]);

/** The fields of the false flags, in the order docs/api.md gives `abnormals`. */
export const abnormalFields = (flags: MatchFlags): FlagField[] => FLAG_FIELDS.filter((f) => !flags[matchFlagOf(f)]);

export interface MatchOutcome<R extends TransactionRecord = TransactionRecord> {
  record: R | null;
  flags: MatchFlags;
  result: boolean;
  /** The record's facets this claim books were booked by an earlier claim of the run (`taken`): a duplicate. */
  taken?: boolean;
}

/**
 * Pick the claim's record among the records its lookup identifier points at (already limited to
 * the wallets in scope) and compare. One hash carries several movements (the transaction's own
 * record with its fee, internal transfers, token transfers): the claim pairs with the one that
 * agrees with it on token_id, then direction (type), then amount, then `to`, in that order of
 * weight. Among them a gas claim pairs only with the record that pays the fee, and a claim that
 * moves an amount never with a record of gas alone; a record that is the only one is compared (docs/api.md, "Lookup"). In a books run (`taken` given) a record booked already by an
 * earlier claim gives way to an equal one that is not; when the best is taken, the claim is a
 * duplicate of that earlier one. When nothing tells them apart, the first in movement order
 * (native, internal, then token transfers by log index; then the lowest transaction_id).
 */
export function matchClaim<R extends TransactionRecord>(
  item: VerifyItem,
  candidates: readonly R[],
  isEvm: IsEvmChain,
  taken?: (record: R) => boolean,
): MatchOutcome<R> {
  // Most claims point at one record: no list is made for them.
  let pool: readonly R[] =
    candidates.length === 1
      ? identifiersAgree(item, candidates[0]!)
        ? candidates
        : []
      : candidates.filter((r) => identifiersAgree(item, r));
  // Among several movements: a gas claim takes the one that pays the fee, a claim that moves an
  // amount never one of gas alone. A record that is the only one stays the claim's, to compare.
  if (pool.length > 1) {
    if (isGasClaim(item)) {
      if (pool.some(paysFee)) pool = pool.filter(paysFee);
    } else if (movesAmount(item) && pool.some((r) => !gasOnly(r))) pool = pool.filter((r) => !gasOnly(r));
  }
  let best: MatchOutcome<R> | null = null;
  let bestRank = -1;
  let bestFree = false;
  for (const record of pool) {
    const flags = compareFields(item, record, isEvm);
    const rank = (flags.token_id_match ? 8 : 0) + (flags.type_match ? 4 : 0) + (flags.amount_match ? 2 : 0) + (flags.to_match ? 1 : 0);
    const free = taken === undefined || !taken(record);
    if (best === null || rank > bestRank || (rank === bestRank && (free !== bestFree ? free : earlier(record, best.record!)))) {
      best = free ? { record, flags, result: allTrue(flags) } : { record, flags, result: allTrue(flags), taken: true };
      bestRank = rank;
      bestFree = free;
    }
  }
  return best ?? { record: null, flags: { ...ALL_FALSE }, result: false };
}

function earlier(a: TransactionRecord & { movement?: number }, b: TransactionRecord & { movement?: number }): boolean {
  const ma = a.movement ?? 0;
  const mb = b.movement ?? 0;
  return ma !== mb ? ma < mb : a.transaction_id < b.transaction_id;
}

/** A moment for a person: ISO 8601 UTC, milliseconds only when there are some. */
export function humanTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso;
}

const shown = (v: string | null | undefined): string => (v === null || v === undefined || v === '' ? 'nothing' : v);

/**
 * Per false flag, what was claimed and what is recorded, in the order of `abnormals`, e.g.
 * "amount: claimed 100.5, recorded 100.25 (off by 0.25, tolerance 0.001); time: claimed
 * 2026-01-02T03:04:05Z, recorded 2026-01-02T03:06:05Z as created_at (off by 120 s, tolerance 10 s)".
 */
export function describeMismatch(item: VerifyItem, record: TransactionRecord, flags: MatchFlags): string {
  const parts: string[] = [];
  for (const field of abnormalFields(flags)) {
    switch (field) {
      case 'amount':
      case 'fee':
      case 'amount_actual': {
        const claimed = item[field]!;
        const recorded = record[field];
        const diff = difference(claimed, recorded);
        const off = diff === null ? '' : `off by ${plainText(diff)}, `;
        parts.push(`${field}: claimed ${claimed}, recorded ${shown(recorded)} (${off}tolerance ${item.amount_delta})`);
        break;
      }
      case 'time': {
        const column = TIME_TYPE_FIELD[item.time_type];
        const moment = recordedMoment(record, item.time_type);
        const claimed = humanTime(item.time! * 1000);
        if (item.time_until !== undefined) {
          const day = `the day from ${claimed} to ${humanTime(item.time_until * 1000)}`;
          parts.push(
            moment === null
              ? `time: claimed ${day}, recorded nothing (no ${column})`
              : `time: claimed ${day}, recorded ${humanTime(moment)} as ${column}, outside it`,
          );
          break;
        }
        parts.push(
          moment === null
            ? `time: claimed ${claimed}, recorded nothing (no ${column})`
            : `time: claimed ${claimed}, recorded ${humanTime(moment)} as ${column} (off by ${Math.abs(item.time! - toUnixSeconds(moment))} s, tolerance ${item.time_delta} s)`,
        );
        break;
      }
      default:
        parts.push(`${field}: claimed ${item[field]!}, recorded ${shown(record[field])}`);
    }
  }
  return parts.join('; ');
}

const seconds = (ms: number | null) => (ms === null ? null : toUnixSeconds(ms));
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const TIMES = new Set<string>(RECORD_TIME_FIELDS);

/**
 * The record as the wire shows it: the contract's fields in its order (the store's own import_id
 * and updated_at left out), its times as `time` writes them. Compiled once from RECORD_FIELDS into
 * one object literal (a verify answer holds a thousand of these; a literal of a fixed shape is the
 * cheapest object to build and to collect); the code is made from the field names only.
 */
function compileWireRecord<T>(time: (ms: number | null) => unknown): (r: TransactionRecord) => T {
  const fields = RECORD_FIELDS.map(
    (f) => `${JSON.stringify(f)}: ${TIMES.has(f) ? `time(r[${JSON.stringify(f)}])` : `r[${JSON.stringify(f)}]`}`,
  );
  return new Function('time', `return (r) => ({${fields.join(', ')}});`)(time) as (r: TransactionRecord) => T;
}

/** Shape A's record: times in whole Unix seconds. */
export const recordShapeA = compileWireRecord<RecordShapeA>(seconds);

/** Shape B's record: times as ISO 8601 UTC with milliseconds. */
export const recordShapeB = compileWireRecord<RecordShapeB>(iso);

/**
 * One verification result in the contract's order: the flags, `result`, the record under `tx`
 * (Shape A) or `data` (Shape B), then `ticket_id`. Compiled like the records, from MATCH_FLAGS.
 */
function compileResult<R>(recordKey: 'tx' | 'data', wire: (r: TransactionRecord) => unknown) {
  const flags = MATCH_FLAGS.map((f) => `${f}: flags.${f}`);
  return new Function(
    'wire',
    `return (flags, result, record, ticket_id) => ({${flags.join(', ')}, result, ${recordKey}: record === null ? null : wire(record), ticket_id});`,
  )(wire) as (flags: MatchFlags, result: boolean, record: TransactionRecord | null, ticketId: string | null) => R;
}

export const verifyResultA = compileResult<VerifyResultA>('tx', recordShapeA);
export const verifyResultB = compileResult<VerifyResultB>('data', recordShapeB);
