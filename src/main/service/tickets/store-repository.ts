import type { TicketEvent, TicketStatus } from '../../../shared/tickets';
import type { Db } from '../db/open';
import { inPgTransaction, type PgDb } from '../db/postgres';
import {
  getTicket,
  openTickets,
  setTicketsStatus,
  TICKET_COLUMNS,
  ticketEvents,
  ticketsNow,
  ticketsNowOf,
  type NewTicket,
  type StatusChange,
  type TicketNow,
  type TicketNowRow,
  type TicketRow,
} from './repository';

/*
 * A person's work on tickets, on either engine: the second slice of the store interface of team
 * mode (docs/team.md), after the nonces. What the window reads of a ticket and the change of its
 * status go through it; on PostgreSQL, several services share one store, and of two people
 * changing one ticket at the same time one wins and the other is told who changed it: the check of
 * the status and version the caller read is the UPDATE's own condition, and PostgreSQL evaluates
 * it again on the row as the winner left it (the loser's UPDATE waits for the winner's row lock),
 * so the loser's UPDATE changes nothing and its transaction writes nothing.
 *
 * The tickets a verification opens and updates are written with its batch, in the batch's own
 * transaction (reconcile/run-repository.ts). The queue's listing and the exceptions a books run
 * raises stay on the SQLite store's own statements (repository.ts) until the ledger moves too: the
 * listing's search reads the ledger's hashes.
 */

export interface TicketStore {
  /** A ticket with its claim, or undefined. */
  get(ticketId: string): Promise<TicketRow | undefined>;
  /** Its events, oldest first. */
  events(ticketId: string): Promise<TicketEvent[]>;
  /** Each of these tickets that exists as it stands now, with its last event. */
  now(ticketIds: readonly string[]): Promise<Map<string, TicketNow>>;
  /**
   * Change the tickets' status with one reason, each only if it still has the status (and the
   * version) it was read with, each with its own event, in one commit; when any had changed,
   * nothing is written and the answer is those tickets' ids (repository.ts setTicketsStatus).
   */
  setStatus(changes: readonly StatusChange[], to: TicketStatus, note: string, actor: string, at: number): Promise<string[]>;
  /** New Pending mismatch tickets, each with its first event, in one commit. */
  open(list: readonly NewTicket[]): Promise<void>;
}

/** The embedded store's tickets: repository.ts's statements, on the service's connection. */
export function sqliteTicketStore(db: Db): TicketStore {
  return {
    get: async (ticketId) => getTicket(db, ticketId),
    events: async (ticketId) => ticketEvents(db, ticketId),
    now: async (ticketIds) => ticketsNow(db, ticketIds),
    setStatus: async (changes, to, note, actor, at) => setTicketsStatus(db, changes, to, note, actor, at),
    open: async (list) => db.$client.transaction(() => openTickets(db, list))(),
  };
}

const ADD_EVENT =
  'INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at) VALUES ($1, $2, $3, $4, $5, $6, $7)';

/** A team store's tickets, on PostgreSQL. */
export function postgresTicketStore(db: PgDb): TicketStore {
  const pool = db.$client;
  /** Thrown inside the transaction to roll it back when a ticket had changed. */
  const stale = new Error('stale');
  return {
    async get(ticketId) {
      const { rows } = await pool.query<TicketRow>(`SELECT ${TICKET_COLUMNS}, claimed FROM tickets WHERE ticket_id = $1`, [ticketId]);
      return rows[0];
    },
    async events(ticketId) {
      const { rows } = await pool.query<TicketEvent>(
        'SELECT kind, from_status, to_status, note, actor, at FROM ticket_events WHERE ticket_id = $1 ORDER BY id',
        [ticketId],
      );
      return rows;
    },
    async now(ticketIds) {
      if (ticketIds.length === 0) return new Map();
      const { rows } = await pool.query<TicketNowRow>(
        `SELECT t.ticket_id, t.status, t.version, e.kind, e.to_status, e.actor, e.at
         FROM tickets t LEFT JOIN LATERAL (
           SELECT kind, to_status, actor, at FROM ticket_events WHERE ticket_id = t.ticket_id ORDER BY id DESC LIMIT 1
         ) e ON true
         WHERE t.ticket_id = ANY($1::text[])`,
        [ticketIds],
      );
      return ticketsNowOf(rows);
    },
    async setStatus(changes, to, note, actor, at) {
      const ids = new Set<string>();
      // Rows are locked in one order by every service: two batches over the same tickets wait for
      // each other instead of each holding a row the other needs (which PostgreSQL would end as a
      // deadlock, failing one of them after a second).
      const ordered = [...changes].sort((a, b) => (a.ticket_id < b.ticket_id ? -1 : a.ticket_id > b.ticket_id ? 1 : 0));
      try {
        await inPgTransaction(pool, async (client) => {
          for (const c of ordered) {
            const { rowCount } = await client.query(
              `UPDATE tickets SET status = $1, updated_at = $2, version = version + 1
               WHERE ticket_id = $3 AND status = $4 AND ($5::integer IS NULL OR version = $5::integer)`,
              [to, at, c.ticket_id, c.from, c.version ?? null],
            );
            if (rowCount !== 1) ids.add(c.ticket_id);
            else await client.query(ADD_EVENT, [c.ticket_id, 'status', c.from, to, note, actor, at]);
          }
          if (ids.size > 0) throw stale;
        });
      } catch (err) {
        if (err !== stale) throw err;
      }
      return changes.map((c) => c.ticket_id).filter((id) => ids.has(id));
    },
    async open(list) {
      if (list.length === 0) return;
      await inPgTransaction(pool, async (client) => {
        for (const t of list) {
          await client.query(
            `INSERT INTO tickets (ticket_id, kind, subject, wallet_id, transaction_id, status, chain_id, token_id, amount, abnormals, "desc", claimed, run_id, created_at, updated_at)
             VALUES ($1, 'mismatch', $2, $3, $2, 'Pending', $4, $5, $6, $7, $8, $9, $10, $11, $11)`,
            [t.ticket_id, t.transaction_id, t.wallet_id, t.chain_id, t.token_id, t.amount, t.abnormals, t.desc, t.claimed, t.run_id, t.at],
          );
          await client.query(ADD_EVENT, [t.ticket_id, 'opened', null, 'Pending', t.desc, t.actor, t.at]);
        }
      });
    },
  };
}
