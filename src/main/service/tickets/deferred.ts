import type { Engine } from '../engine/index';
import type { Db } from '../db/open';
import {
  getTicket,
  openTickets,
  pendingTicketIds,
  updateTicketClaim,
  type NewTicket,
  type TicketClaim,
  type TicketRow,
} from './repository';

/*
 * Tickets whose write is deferred while an import holds the write lock (engine/deferred.ts): a
 * verification answered meanwhile opens or updates them in memory first, so the ticket it names
 * can be looked up at once, and a second mismatch about the same transaction lands on the same
 * ticket. Applied to the store when the import ends, then forgotten here.
 */

/** The ticket writes of one verification batch. */
export interface TicketWrites {
  opened: NewTicket[];
  /** [ticket_id, the newer claim], in claim order. */
  updates: [string, TicketClaim][];
}

export class DeferredTickets {
  private readonly opened = new Map<string, NewTicket>();
  private readonly openedFor = new Map<string, string>();
  /** The newest deferred claim of each ticket, and the batch it came from. */
  private readonly newest = new Map<string, { claim: TicketClaim; from: TicketWrites }>();

  /** Writes planned and kept for later: from now on, lookups see them. */
  add(w: TicketWrites): void {
    for (const t of w.opened) {
      this.opened.set(t.ticket_id, t);
      this.openedFor.set(t.transaction_id, t.ticket_id);
    }
    for (const [id, claim] of w.updates) this.newest.set(id, { claim, from: w });
  }

  /** The Pending mismatch ticket of each transaction: the store's, or one opened by a deferred batch. */
  pendingFor(db: Db, transactionIds: readonly string[]): Map<string, string> {
    const found = pendingTicketIds(db, transactionIds);
    for (const tx of transactionIds) {
      const id = this.openedFor.get(tx);
      if (id !== undefined) found.set(tx, id);
    }
    return found;
  }

  /** The ticket as it will be once every deferred write is applied. */
  get(db: Db, ticketId: string): TicketRow | undefined {
    const stored = getTicket(db, ticketId);
    const opened = stored === undefined ? this.opened.get(ticketId) : undefined;
    const row = stored ?? (opened && rowOf(opened));
    const newest = this.newest.get(ticketId)?.claim;
    if (row === undefined || newest === undefined) return row;
    return {
      ...row,
      abnormals: newest.abnormals,
      desc: newest.desc,
      claimed: newest.claimed,
      run_id: newest.run_id,
      updated_at: newest.at,
    };
  }

  /** Apply one batch's writes to the store (the caller holds the transaction) and forget them here. */
  apply(db: Db, w: TicketWrites): void {
    openTickets(db, w.opened);
    for (const [id, claim] of w.updates) updateTicketClaim(db, id, claim);
    this.forget(w);
  }

  /** Forget a batch's writes (applied, or found applied already). */
  forget(w: TicketWrites): void {
    for (const t of w.opened) {
      this.opened.delete(t.ticket_id);
      if (this.openedFor.get(t.transaction_id) === t.ticket_id) this.openedFor.delete(t.transaction_id);
    }
    for (const [id] of w.updates) if (this.newest.get(id)?.from === w) this.newest.delete(id);
  }
}

const rowOf = (t: NewTicket): TicketRow => ({
  ticket_id: t.ticket_id,
  kind: 'mismatch',
  wallet_id: t.wallet_id,
  transaction_id: t.transaction_id,
  status: 'Pending',
  chain_id: t.chain_id,
  token_id: t.token_id,
  amount: t.amount,
  abnormals: t.abnormals,
  desc: t.desc,
  run_id: t.run_id,
  version: 0,
  created_at: t.at,
  updated_at: t.at,
  claimed: t.claimed,
});

const perEngine = new WeakMap<Engine, DeferredTickets>();

/** The service's deferred tickets (one set per engine, so per open store). */
export function deferredTickets(engine: Engine): DeferredTickets {
  let d = perEngine.get(engine);
  if (d === undefined) perEngine.set(engine, (d = new DeferredTickets()));
  return d;
}
