import { v7 as uuidv7 } from 'uuid';
import type { LedgerRecord } from '../../../shared/ledger';
import { ONCHAIN_FLAG, ONCHAIN_FIELDS, type OnchainCheck } from '../../../shared/onchain';
import { FLAG_FIELDS } from '../../../shared/reconcile';
import { getChain } from '../catalogue/repository';
import { announceChange, checkChange } from '../changes';
import type { ServiceContext } from '../context';
import { raiseExceptions, settleSubjects, type NewException } from '../tickets/repository';
import { nodeFor, nodeStore, tokenView } from './chains';
import type { Judged, TokenView } from './compare';
import type { Chain } from '../../../shared/catalogue';
import type { Db } from '../db/open';
import type { PageRequest } from './page';
import {
  getCheck,
  insertCheck,
  latestOfScope,
  pruneChecks,
  resumeCheck,
  scopeCounts,
  scopeRecords,
  setCheckState,
  storeResults,
  type ResultRow,
  type Scope,
} from './repository';

/*
 * A check of the ledger against the chains' nodes, run in the background: the service answers the
 * window and the API meanwhile, since all the check does on the service's thread is read a page of
 * records and write the page's findings in one short transaction. The nodes are asked, and what they
 * answer parsed and compared, on a thread of the check's own (onchain/page.ts on the engine's chain
 * thread): a page's requests at a bounded concurrency (the EVM transport batches them into JSON-RPC
 * batches), the chain's head read fresh for each page. Records go in the ledger's order (rowid) a
 * page at a time; a page's findings, its exceptions and the check's cursor are written together, so
 * a check stopped anywhere (cancelled, the service closed or killed) resumes after its last page.
 */

export interface CheckOptions {
  /** Records a page. */
  pageSize?: number;
  /** Records asked about at once. */
  concurrency?: number;
  /** Checks kept with their findings (older ones go when a new one starts). */
  keep?: number;
}

/** The exception's one line: what the chain says, field by field. */
function describe(rec: LedgerRecord, j: Judged): string {
  return j.outcome === 'not_found' ? `Not on the chain: ${j.reason}` : `The chain differs from the ledger on ${rec.hash}: ${j.reason}`;
}

/** Chains and tokens of the catalogue, each read once (a page's records share a few). */
class PageCatalogue {
  private readonly chains = new Map<string, Chain | undefined>();
  private readonly tokens = new Map<string, TokenView | undefined>();
  constructor(private readonly db: Db) {}
  chain(id: string): Chain | undefined {
    if (!this.chains.has(id)) this.chains.set(id, getChain(this.db, id));
    return this.chains.get(id);
  }
  token(id: string): TokenView | undefined {
    if (!this.tokens.has(id)) this.tokens.set(id, tokenView(this.db, id));
    return this.tokens.get(id);
  }
}

/** Who started a check, or stopped it: the actor its words name, and the window that does not hear them (changes.ts). */
export interface CheckActor {
  actor: string;
  window?: string;
}

export class CheckRunner {
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void>; by: CheckActor }>();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly opts: CheckOptions = {},
  ) {}

  /**
   * A check as the store has it, and as it is: one the store says is running that no runner of this
   * service runs was left by a service that stopped (closed mid-check, or killed): interrupted.
   */
  asIs<C extends OnchainCheck>(c: C): C {
    return c.state === 'running' && !this.running.has(c.check_id) ? { ...c, state: 'interrupted' } : c;
  }

  /**
   * Start a check of the scope; one of the same scope that stopped before its end (cancelled,
   * interrupted, failed) resumes instead, unless `restart`; one of the scope still running is
   * answered as it is. Answers at once.
   */
  start(scope: Scope, timeZone: string, restart: boolean, by: CheckActor): OnchainCheck & { cursor: number } {
    const { actor } = by;
    const { db } = this.ctx;
    const now = this.ctx.now();
    const latest = latestOfScope(db, scope);
    if (latest && this.running.has(latest.check_id)) return latest;
    const counts = scopeCounts(db, scope);
    let checkId: string;
    if (!restart && latest && this.asIs(latest).state !== 'done') {
      checkId = latest.check_id;
      resumeCheck(db, checkId, counts.with_hash, counts.without_hash, now);
    } else {
      checkId = uuidv7();
      insertCheck(db, {
        check_id: checkId,
        scope,
        time_zone: timeZone,
        total: counts.with_hash,
        without_hash: counts.without_hash,
        actor,
        at: now,
      });
      pruneChecks(db, this.opts.keep ?? 20);
    }
    const abort = new AbortController();
    const done = this.run(checkId, scope, actor, abort.signal).finally(() => this.running.delete(checkId));
    const run = { abort, done, by };
    this.running.set(checkId, run);
    const started = getCheck(db, checkId)!;
    this.announce(started, by);
    // Its end is said by whoever ended it: the one who started it, or the one who cancelled it.
    void done.then(() => {
      if (this.ctx.closing.aborted) return;
      const ended = getCheck(db, checkId);
      if (ended) this.announce(ended, run.by);
    });
    return started;
  }

  /** Others' windows hear that a check started or ended (changes.ts): it runs in the background, so no call's answer says so. */
  private announce(c: OnchainCheck, by: CheckActor): void {
    announceChange(this.ctx, { ...checkChange(c), actor: by.actor, at: this.ctx.now() }, by.window);
  }

  /**
   * Stop a running check after the page it is on (its findings so far are kept; starting it again
   * resumes); resolves once it has stopped. `by`: who stopped it, as its end is announced.
   */
  async cancel(checkId: string, by?: CheckActor): Promise<void> {
    const run = this.running.get(checkId);
    if (!run) return;
    if (by) run.by = by;
    run.abort.abort();
    await run.done;
  }

  isRunning(checkId: string): boolean {
    return this.running.has(checkId);
  }

  private async run(checkId: string, scope: Scope, actor: string, signal: AbortSignal): Promise<void> {
    const { ctx } = this;
    const closed = () => ctx.closing.aborted;
    const store = nodeStore(ctx);
    // Each chain's node as the check began (a node set meanwhile counts from the next check).
    const nodes: PageRequest['nodes'] = {};
    const pageSize = this.opts.pageSize ?? 100;
    const concurrency = this.opts.concurrency ?? 8;
    const begun = getCheck(ctx.db, checkId);
    let cursor = begun?.cursor ?? 0;
    // Retries counted by earlier runs of a resumed check, then this run's own.
    const earlierRetries = begun?.retries ?? 0;
    // The nodes are asked on a thread of the check's own (engine/chain-thread.ts); this thread reads pages and writes findings.
    const judge = ctx.engine.chainJudge();
    try {
      for (;;) {
        if (signal.aborted || closed()) break;
        const page = scopeRecords(ctx.db, scope, cursor, pageSize);
        if (page.length === 0) break;
        // The catalogue as the page is judged (a threshold changed meanwhile counts from the next page).
        const catalogue = new PageCatalogue(ctx.db);
        const request: PageRequest = { records: page.map(([, r]) => r), nodes: {}, chains: {}, tokens: {}, concurrency };
        for (const rec of request.records) {
          request.nodes[rec.chain_id] = nodes[rec.chain_id] ??= nodeFor(ctx, rec.chain_id, store);
          const chain = catalogue.chain(rec.chain_id);
          if (chain) {
            request.chains[rec.chain_id] = { threshold: chain.confirming_threshold, native_token_id: chain.native_token_id };
            const native = catalogue.token(chain.native_token_id);
            if (native) request.tokens[native.token_id] = native;
          }
          const token = catalogue.token(rec.token_id);
          if (token) request.tokens[token.token_id] = token;
        }
        const answer = await judge.judge(request);
        if (closed()) return;
        cursor = page[page.length - 1]![0];
        // The writes wait (without holding the thread) while a large import holds the store.
        await ctx.engine.write(() => {
          if (!closed()) this.store(checkId, page, answer.judged, cursor, earlierRetries + answer.retries, actor);
        });
      }
      if (closed()) return;
      await ctx.engine.write(() => {
        if (closed()) return;
        setCheckState(ctx.db, checkId, signal.aborted ? 'cancelled' : 'done', ctx.now());
      });
      const c = getCheck(ctx.db, checkId);
      if (c) ctx.log.info({ event: 'onchain-check', check_id: checkId, state: c.state, total: c.total, ...c.summary, retries: c.retries });
    } catch (err) {
      if (closed()) return;
      const message = err instanceof Error ? err.message : String(err);
      ctx.log.error({ event: 'onchain-check-failed', check_id: checkId, err: message });
      await ctx.engine.write(() => {
        if (!closed()) setCheckState(ctx.db, checkId, 'failed', ctx.now(), message);
      });
    } finally {
      judge.close();
    }
  }

  /** A page's findings, exceptions and progress, in one transaction. */
  private store(checkId: string, page: [number, LedgerRecord][], judged: Judged[], cursor: number, retries: number, actor: string): void {
    const { db } = this.ctx;
    const at = this.ctx.now();
    db.$client.transaction(() => {
      const raise: NewException[] = [];
      const raisedFor: number[] = [];
      const agreed: string[] = [];
      judged.forEach((j, i) => {
        const rec = page[i]![1];
        if (j.outcome === 'agrees') agreed.push(rec.transaction_id);
        if (j.outcome !== 'differs' && j.outcome !== 'not_found') return;
        raisedFor.push(i);
        const flags = new Set(j.fields.map((f) => ONCHAIN_FLAG[f]));
        raise.push({
          kind: 'onchain',
          subject: rec.transaction_id,
          wallet_id: rec.wallet_id,
          transaction_id: rec.transaction_id,
          chain_id: rec.chain_id,
          token_id: rec.token_id,
          amount: rec.amount,
          abnormals: FLAG_FIELDS.filter((f) => flags.has(f)).join(','),
          desc: describe(rec, j),
          claimed: JSON.stringify({
            check_id: checkId,
            outcome: j.outcome,
            hash: rec.hash,
            fields: j.fields,
            chain: j.chain,
            ledger: Object.fromEntries(ONCHAIN_FIELDS.map((f) => [f, f === 'token' ? rec.token_id : rec[f]])),
            confirmations: j.confirmations,
            block_number: j.block_number,
          }),
          run_id: null,
          actor,
          at,
        });
      });
      const ids = raiseExceptions(db, raise);
      const ticketOf = new Map(raisedFor.map((i, k) => [i, ids[k]!]));
      settleSubjects(db, 'onchain', agreed, `the chain agrees with the record (check ${checkId})`, actor, at);
      const rows: ResultRow[] = judged.map((j, i) => {
        const [recordNo, rec] = page[i]!;
        return {
          record_no: recordNo,
          transaction_id: rec.transaction_id,
          wallet_id: rec.wallet_id,
          chain_id: rec.chain_id,
          token_id: rec.token_id,
          hash: rec.hash,
          outcome: j.outcome,
          fields: j.fields,
          reason: j.reason,
          chain: j.chain,
          confirmations: j.confirmations,
          block_number: j.block_number,
          ticket_id: ticketOf.get(i) ?? null,
          checked_at: at,
        };
      });
      storeResults(db, checkId, rows, cursor, retries, at);
    })();
  }
}
