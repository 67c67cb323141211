import { uuidv7 } from '../uuid-v7';
import type { LedgerRecord } from '../../../shared/ledger';
import type { MatchFlags, VerifyItem } from '../../../shared/reconcile';
import type { ServiceContext } from '../context';
import { deferredTickets, type TicketWrites } from '../tickets/deferred';
import { raiseExceptions, type NewException, type NewTicket, type TicketClaim } from '../tickets/repository';
import {
  abnormalFields,
  caselessKey,
  describeMismatch,
  facetsOf,
  isCaseless,
  isGasClaim,
  lookupKey,
  matchClaim,
  type Identifier,
  type MatchOutcome,
} from './match';
import { evmChainIds, getRun, insertChunk, insertRun, outcomeJson, type ChunkRow, type RunRow } from './repository';

/*
 * The one verification core: the signed API and the books runs both come through verifyChunk, a
 * batch of at most 1000 claims looked up together, matched by the pure rules, and stored with
 * their tickets in one transaction of the run store (run-repository.ts).
 */

export interface Claim {
  item: VerifyItem;
  /** The claim as the caller sent it (JSON), kept for the audit trail and the ticket. */
  claimed: string;
  /** The books row it came from (books runs). */
  books_row?: number;
}

export interface Outcome {
  record: LedgerRecord | null;
  flags: MatchFlags;
  result: boolean;
  ticket_id: string | null;
  /** A duplicate claim of a two-way run: the idx of the claim it repeats. */
  duplicate_of?: number;
}

/**
 * The first claim of a two-way run for each facet of a record it booked (`tx:` id for the
 * movement, `fee:` id for its fee) or identifier not found (`id:` key).
 */
export type SeenClaims = Map<string, { idx: number; row: number | undefined }>;

/**
 * What a two-way run found, for settling the exceptions earlier runs opened (settle.ts). Only what
 * a Pending exception is about is kept (`watch`, read when the run starts), so a run of a million
 * claims keeps no more than the queue holds.
 */
export interface RunFindings {
  watch: { mismatch: ReadonlySet<string>; not_in_ledger: ReadonlySet<string> };
  /** Watched records a claim of this run agreed with, and those a claim disagreed with. */
  agreed: Map<string, number | undefined>;
  disagreed: Set<string>;
  /** Watched not_in_ledger subjects of claims this run found in the ledger, with their books row. */
  found: Map<string, number | undefined>;
  /** Facet keys (`tx:`, `fee:`, `id:`) claimed more than once in this run. */
  repeated: Set<string>;
}

export interface RunScope {
  run_id: string;
  /** Limit lookups to this wallet (stored spelling); null: the wallets in `wallets`. */
  wallet_id: string | null;
  /** Wallets the caller may use, lower-cased; null: every wallet. */
  wallets: ReadonlySet<string> | null;
  actor: string;
  /**
   * A two-way run (books): claims that repeat an earlier claim are duplicates (an exception each,
   * no mismatch ticket), claims that find nothing open a not-in-ledger exception. `seen` carries
   * the first claims from chunk to chunk; the run's ledger side reads it at the end.
   */
  twoWay?: { seen: SeenClaims; findings: RunFindings };
}

/** The key of a claim that found nothing: its identifier on its chain and token. */
function notFoundKey(item: VerifyItem): string {
  const { by, value } = lookupKey(item);
  const key = isCaseless(by, value) ? caselessKey(by, value) : value;
  return `id:${by}:${key}|${item.chain_id ?? ''}|${item.token_id ?? ''}`;
}

/** The keys of what a claim books: each facet of the record it found, or (found nothing) its identifier. */
function claimKeys(item: VerifyItem, record: LedgerRecord | null): string[] {
  if (record === null) return [notFoundKey(item)];
  return facetsOf(item).map((f) => `${f === 'value' ? 'tx' : 'fee'}:${record.transaction_id}`);
}

/** The subject of a two-way run's exception about a claim key (not in ledger, duplicate). */
const subjectOf = (scope: RunScope, key: string): string => `${scope.wallet_id ?? ''}|${key}`;

/** A claim's own words for the queue: its identifier and what it says moved. */
function claimWords(item: VerifyItem): string {
  const { by, value } = lookupKey(item);
  const what = isGasClaim(item)
    ? `gas ${[item.fee, item.token_id ?? item.chain_id].filter((w) => w !== undefined).join(' ')}`
    : [item.type, item.amount, item.token_id ?? item.chain_id].filter((w) => w !== undefined).join(' ');
  return `${by} ${value}${what ? `, ${what}` : ''}`;
}

const rowWords = (row: number | undefined): string => (row === undefined ? 'the books' : `books row ${row}`);

/**
 * Pair a two-way chunk's claims with their records, in books order: each claim takes the record
 * its rules pick (matchClaim), a record booked already by an earlier claim of the run giving way
 * to an equal one that is not; a claim whose record (or whose fee) was booked before is a
 * duplicate of that claim (`dupOf`). Keeps the run's seen claims and findings.
 */
function pairInRun(
  scope: RunScope,
  firstIdx: number,
  claims: readonly Claim[],
  candidates: readonly LedgerRecord[][],
  isEvm: (chainId: string) => boolean,
): { matches: MatchOutcome<LedgerRecord>[]; dupOf: (number | undefined)[] } {
  const { seen, findings } = scope.twoWay!;
  const dupOf: (number | undefined)[] = new Array(claims.length).fill(undefined);
  const matches = claims.map((claim, i) => {
    const item = claim.item;
    const facets = facetsOf(item);
    const taken = (r: LedgerRecord) => facets.some((f) => seen.has(`${f === 'value' ? 'tx' : 'fee'}:${r.transaction_id}`));
    const m = matchClaim(item, candidates[i]!, isEvm, taken);
    const keys = claimKeys(item, m.record);
    const repeats = keys.find((k) => seen.has(k));
    if (repeats !== undefined) {
      dupOf[i] = seen.get(repeats)!.idx;
      findings.repeated.add(repeats);
    }
    // A claim that repeats one facet still books the others it names (a line of amount and fee after a line of the fee alone).
    for (const k of keys) if (!seen.has(k)) seen.set(k, { idx: firstIdx + i, row: claim.books_row });
    if (repeats === undefined && m.record !== null) {
      const subject = findings.watch.not_in_ledger.size ? subjectOf(scope, notFoundKey(item)) : '';
      if (findings.watch.not_in_ledger.has(subject)) findings.found.set(subject, claim.books_row);
      const tx = m.record.transaction_id;
      if (findings.watch.mismatch.has(tx)) {
        if (m.result) findings.agreed.set(tx, claim.books_row);
        else findings.disagreed.add(tx);
      }
    }
    return m;
  });
  return { matches, dupOf };
}

/**
 * The exceptions of a two-way chunk: a duplicate for each claim that repeats an earlier one, a
 * not-in-ledger for each claim that found nothing. Answers each claim's exception ticket, or
 * undefined. The caller holds the transaction.
 */
function twoWayExceptions(
  ctx: ServiceContext,
  scope: RunScope,
  claims: readonly Claim[],
  matches: readonly { record: LedgerRecord | null }[],
  dupOf: readonly (number | undefined)[],
  now: number,
): (string | undefined)[] {
  const seen = scope.twoWay!.seen;
  const raised: NewException[] = [];
  const at: number[] = [];
  matches.forEach((m, i) => {
    const claim = claims[i]!;
    const common = {
      wallet_id: m.record?.wallet_id ?? scope.wallet_id ?? '',
      transaction_id: m.record?.transaction_id ?? '',
      chain_id: m.record?.chain_id ?? claim.item.chain_id ?? '',
      token_id: m.record?.token_id ?? claim.item.token_id ?? '',
      amount: m.record?.amount ?? claim.item.amount ?? '',
      claimed: claim.claimed,
      run_id: scope.run_id,
      actor: scope.actor,
      at: now,
    };
    const keys = claimKeys(claim.item, m.record);
    if (dupOf[i] !== undefined) {
      const key = keys.find((k) => seen.get(k)!.idx === dupOf[i])!;
      const first = seen.get(key)!;
      raised.push({
        ...common,
        kind: 'duplicate',
        subject: subjectOf(scope, key),
        desc: `Claimed twice: ${rowWords(claim.books_row)} repeats ${rowWords(first.row)} (${claimWords(claim.item)})`,
      });
      at.push(i);
      return;
    }
    if (m.record === null) {
      raised.push({
        ...common,
        kind: 'not_in_ledger',
        subject: subjectOf(scope, keys[0]!),
        desc: `Claimed in ${rowWords(claim.books_row)}, not in the ledger: ${claimWords(claim.item)}`,
      });
      at.push(i);
    }
  });
  const ids = raiseExceptions(ctx.db, raised);
  const out: (string | undefined)[] = new Array(matches.length).fill(undefined);
  at.forEach((i, n) => (out[i] = ids[n]));
  return out;
}

export const newRunId = (): string => uuidv7();

/**
 * Every record each claim's lookup identifier points at: one statement per identifier kind (on two
 * threads for a large batch). Each value is asked for in every spelling the ledger may keep it in
 * (it keeps UUIDs and hex hashes lower-cased, EVM hashes with 0x and TRON hashes without; other
 * identifiers exactly as imported), and a record found is filed under the claim's comparison key
 * by the spelling that found it: one pattern test a claim, none a record.
 */
async function candidatesOf(ctx: ServiceContext, items: readonly VerifyItem[]): Promise<LedgerRecord[][]> {
  const keys: { by: Identifier; key: string }[] = [];
  const keyOfSpelling: Record<Identifier, Map<string, string>> = { transaction_id: new Map(), hash: new Map(), request_id: new Map() };
  for (const item of items) {
    const { by, value } = lookupKey(item);
    const caseless = isCaseless(by, value);
    const key = caseless ? caselessKey(by, value) : value;
    keys.push({ by, key });
    const spelled = keyOfSpelling[by];
    if (!caseless) spelled.set(value, key);
    else {
      spelled.set(key, key);
      if (by === 'hash') spelled.set(`0x${key}`, key);
    }
  }
  const records = await ctx.engine.findRecords({
    transaction_id: [...keyOfSpelling.transaction_id.keys()],
    hash: [...keyOfSpelling.hash.keys()],
    request_id: [...keyOfSpelling.request_id.keys()],
  });
  const found: Record<Identifier, Map<string, LedgerRecord[]>> = { transaction_id: new Map(), hash: new Map(), request_id: new Map() };
  for (const by of ['transaction_id', 'hash', 'request_id'] as const) {
    for (const r of records[by]) {
      const key = keyOfSpelling[by].get(r[by]!);
      if (key === undefined) continue;
      const list = found[by].get(key);
      if (list) list.push(r);
      else found[by].set(key, [r]);
    }
  }
  return keys.map((k) => found[k.by].get(k.key) ?? []);
}

function inScope(scope: RunScope, record: LedgerRecord): boolean {
  if (scope.wallet_id !== null) return record.wallet_id.toLowerCase() === scope.wallet_id.toLowerCase();
  return scope.wallets === null || scope.wallets.has(record.wallet_id.toLowerCase());
}

/** What a batch of claims writes: its run (when the batch creates it), its tickets, its chunk of results. */
interface VerifyWrites extends TicketWrites {
  run_id: string;
  run?: RunRow;
  chunk: ChunkRow;
}

/**
 * Check a batch of claims and store the outcome: each result under the run (created first when
 * `createRun` is given), and a ticket opened or updated for each record that does not match.
 * The whole batch is one transaction: it lands entirely or not at all.
 *
 * A signed verification (`createRun`, one-way) does not wait for a large import holding the write
 * lock: it reads the ledger as committed, answers, and keeps its writes durably until the import
 * ends (engine/deferred.ts, `applyDeferredVerify`). Books runs wait for the import instead.
 */
export async function verifyChunk(
  ctx: ServiceContext,
  scope: RunScope,
  firstIdx: number,
  claims: readonly Claim[],
  createRun?: RunRow,
  /** The API's: a turn of the event loop of its own before the matching and the write (engine/turns.ts). */
  turn?: () => Promise<void>,
): Promise<Outcome[]> {
  const items = claims.map((c) => c.item);
  const deferrable = createRun !== undefined && scope.twoWay === undefined;
  // Books runs read when no import holds the write lock (their write must not wait on one), and
  // again if an import took it meanwhile: the import may have changed what was found.
  const candidates = deferrable ? await candidatesOf(ctx, items) : await ctx.engine.settledRead(() => candidatesOf(ctx, items));
  // Waiting for the turn, an import may have taken the write lock: `importing` is read after it.
  await turn?.();
  // From here to the write nothing waits: no other call of the service runs in between.
  const evm = evmChainIds(ctx.db);
  const isEvm = (chainId: string) => evm.has(chainId);
  const scoped = scope.wallet_id !== null || scope.wallets !== null;
  const inScopeOf = scoped ? candidates.map((list) => list.filter((r) => inScope(scope, r))) : candidates;
  const paired = scope.twoWay ? pairInRun(scope, firstIdx, claims, inScopeOf, isEvm) : undefined;
  const matches = paired?.matches ?? items.map((item, i) => matchClaim(item, inScopeOf[i]!, isEvm));
  const tickets = deferredTickets(ctx.engine);

  if (deferrable && ctx.engine.importing) {
    const { writes, outcomes } = planWrites(ctx, scope, firstIdx, claims, matches, [], [], (ids) => tickets.pendingFor(ctx.db, ids));
    writes.run = createRun;
    tickets.add(writes);
    // In the queue at once (the next verification sees its tickets); answered once it is on disk.
    // A write that fails leaves the queue, and its tickets go with it: none would ever be stored.
    await ctx.engine.defer(DEFERRED_VERIFY, writes).catch((err: unknown) => {
      tickets.forget(writes);
      throw err;
    });
    return outcomes;
  }
  const dupOf = paired?.dupOf ?? [];
  return ctx.runs.writeBatch({
    run_id: scope.run_id,
    run: createRun,
    mismatched: mismatchedIds(matches, dupOf),
    plan: (pending) => {
      const exceptionOf = paired ? twoWayExceptions(ctx, scope, claims, matches, dupOf, ctx.now()) : [];
      const { writes, outcomes } = planWrites(ctx, scope, firstIdx, claims, matches, dupOf, exceptionOf, () => pending);
      return { writes, result: outcomes };
    },
  });
}

const DEFERRED_VERIFY = 'verify';

/**
 * How a verification deferred during an import is applied when it ends (engine/deferred.ts).
 * Idempotent: a batch whose run is stored already was applied before a crash.
 */
export function applyDeferredVerify(ctx: ServiceContext): void {
  const tickets = deferredTickets(ctx.engine);
  ctx.engine.onDeferred(DEFERRED_VERIFY, (body) => {
    const writes = body as VerifyWrites;
    if (writes.run === undefined || getRun(ctx.db, writes.run_id) !== undefined) {
      tickets.forget(writes);
      return;
    }
    insertRun(ctx.db, writes.run);
    tickets.apply(ctx.db, writes);
    insertChunk(ctx.db, writes.run_id, writes.chunk);
  });
}

/** The transactions of the records a batch's claims (duplicates apart) disagree with: those its tickets are about. */
function mismatchedIds(
  matches: readonly { record: LedgerRecord | null; result: boolean }[],
  dupOf: readonly (number | undefined)[],
): string[] {
  return matches.filter((m, i) => m.record !== null && !m.result && dupOf[i] === undefined).map((m) => m.record!.transaction_id);
}

/**
 * The outcome of each claim and what the batch writes: a new Pending ticket for a mismatch about
 * a transaction without one (`pendingOf` answers those that have one), an update of the ticket
 * otherwise, and the chunk of results. Reads only; the caller writes.
 */
function planWrites(
  ctx: ServiceContext,
  scope: RunScope,
  firstIdx: number,
  claims: readonly Claim[],
  matches: readonly { record: LedgerRecord | null; flags: MatchFlags; result: boolean }[],
  dupOf: readonly (number | undefined)[],
  exceptionOf: readonly (string | undefined)[],
  pendingOf: (transactionIds: string[]) => Map<string, string>,
): { writes: VerifyWrites; outcomes: Outcome[] } {
  const now = ctx.now();
  const pending = pendingOf(mismatchedIds(matches, dupOf));
  // New tickets are written together first; updates follow in claim order, so a second
  // mismatch about a transaction in this batch lands on the ticket the first one opened.
  const opened: NewTicket[] = [];
  const updates: [string, TicketClaim][] = [];
  const outcomes = matches.map((m, i): Outcome => {
    if (dupOf[i] !== undefined) {
      return { record: m.record, flags: m.flags, result: m.result, ticket_id: exceptionOf[i] ?? null, duplicate_of: dupOf[i] };
    }
    if (m.record === null || m.result) return { record: m.record, flags: m.flags, result: m.result, ticket_id: exceptionOf[i] ?? null };
    const claim = {
      abnormals: abnormalFields(m.flags).join(','),
      desc: describeMismatch(claims[i]!.item, m.record, m.flags),
      claimed: claims[i]!.claimed,
      run_id: scope.run_id,
      actor: scope.actor,
      at: now,
    };
    let ticketId = pending.get(m.record.transaction_id);
    if (ticketId !== undefined) {
      updates.push([ticketId, claim]);
    } else {
      ticketId = uuidv7();
      opened.push({
        ...claim,
        ticket_id: ticketId,
        wallet_id: m.record.wallet_id,
        transaction_id: m.record.transaction_id,
        chain_id: m.record.chain_id,
        token_id: m.record.token_id,
        amount: m.record.amount,
      });
      pending.set(m.record.transaction_id, ticketId);
    }
    return { record: m.record, flags: m.flags, result: m.result, ticket_id: ticketId };
  });
  // Each document joined once, flat: as a thousand concatenations it was a tree SQLite's binding had to walk.
  const claimsDoc = new Array<string>(outcomes.length);
  const outcomesDoc = new Array<string>(outcomes.length);
  let matched = 0;
  let notFound = 0;
  let duplicates = 0;
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i]!;
    if (o.duplicate_of !== undefined) duplicates++;
    else if (o.result) matched++;
    else if (o.record === null) notFound++;
    claimsDoc[i] = claims[i]!.claimed;
    outcomesDoc[i] = outcomeJson(o.record?.transaction_id ?? null, o.result, o.flags, o.ticket_id, o.duplicate_of);
  }
  const chunk: ChunkRow = {
    first_idx: firstIdx,
    item_count: outcomes.length,
    matched,
    mismatched: outcomes.length - matched - notFound - duplicates,
    not_found: notFound,
    duplicates,
    claims: jsonList(claimsDoc),
    outcomes: jsonList(outcomesDoc),
  };
  return { writes: { run_id: scope.run_id, opened, updates, chunk }, outcomes };
}

/** A JSON array of the elements' texts, made flat in one join (brackets included). */
function jsonList(texts: string[]): string {
  if (texts.length === 0) return '[]';
  texts[0] = `[${texts[0]!}`;
  texts[texts.length - 1] += ']';
  return texts.join(',');
}
