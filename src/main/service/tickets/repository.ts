import { uuidv7 } from '../uuid-v7';
import type { Page } from '../../../shared/primitives';
import type { ExceptionKind, TicketEvent, TicketListInput, TicketStatus, TicketSummary } from '../../../shared/tickets';
import type { Db } from '../db/open';
import { hashEquals } from '../db/ledger-sql';
import { stmt } from '../db/statements';

export interface TicketRow extends TicketSummary {
  claimed: string;
}

/** A ticket's columns as the queue shows it (its claim apart): the same SQL on both engines. */
export const TICKET_COLUMNS =
  'ticket_id, kind, wallet_id, transaction_id, status, chain_id, token_id, amount, abnormals, "desc", run_id, version, created_at, updated_at';

/** The Pending mismatch ticket of each of these transactions, if any. */
export function pendingTicketIds(db: Db, transactionIds: Iterable<string>): Map<string, string> {
  const list = [...new Set(transactionIds)];
  if (list.length === 0) return new Map();
  const rows = stmt<[string], { ticket_id: string; transaction_id: string }>(
    db,
    "SELECT ticket_id, transaction_id FROM tickets WHERE transaction_id IN (SELECT value FROM json_each(?)) AND status = 'Pending' AND kind = 'mismatch'",
  ).all(JSON.stringify(list));
  return new Map(rows.map((r) => [r.transaction_id, r.ticket_id]));
}

export interface TicketClaim {
  abnormals: string;
  desc: string;
  claimed: string;
  run_id: string | null;
  actor: string;
  at: number;
}

function addEvent(
  db: Db,
  ticketId: string,
  e: { kind: TicketEvent['kind']; from: TicketStatus | null; to: TicketStatus | null; note: string; actor: string; at: number },
): void {
  stmt(db, 'INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    ticketId,
    e.kind,
    e.from,
    e.to,
    e.note,
    e.actor,
    e.at,
  );
}

export type NewTicket = TicketClaim & {
  ticket_id: string;
  wallet_id: string;
  transaction_id: string;
  chain_id: string;
  token_id: string;
  amount: string;
};

/**
 * New Pending tickets, each with its first event keeping what the claim said. One prepared INSERT
 * a row: for the few hundred a batch of claims opens, cheaper than one INSERT ... SELECT over a
 * JSON document (which reads each field back out of the JSON, measured at twice the time).
 * The caller holds the transaction.
 */
export function openTickets(db: Db, list: readonly NewTicket[]): void {
  if (list.length === 0) return;
  const ticket = stmt(
    db,
    `INSERT INTO tickets (ticket_id, kind, subject, wallet_id, transaction_id, status, chain_id, token_id, amount, abnormals, "desc", claimed, run_id, created_at, updated_at)
     VALUES (?, 'mismatch', ?, ?, ?, 'Pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const t of list) {
    ticket.run(
      t.ticket_id,
      t.transaction_id,
      t.wallet_id,
      t.transaction_id,
      t.chain_id,
      t.token_id,
      t.amount,
      t.abnormals,
      t.desc,
      t.claimed,
      t.run_id,
      t.at,
      t.at,
    );
  }
  const opened = stmt(
    db,
    "INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at) VALUES (?, 'opened', NULL, 'Pending', ?, ?, ?)",
  );
  for (const t of list) opened.run(t.ticket_id, t.desc, t.actor, t.at);
}

/** A newer mismatching claim about the same transaction replaces what the Pending ticket says. */
export function updateTicketClaim(db: Db, ticketId: string, t: TicketClaim): void {
  stmt(
    db,
    'UPDATE tickets SET abnormals = ?, "desc" = ?, claimed = ?, run_id = ?, updated_at = ?, version = version + 1 WHERE ticket_id = ?',
  ).run(t.abnormals, t.desc, t.claimed, t.run_id, t.at, ticketId);
  addEvent(db, ticketId, { kind: 'updated', from: 'Pending', to: 'Pending', note: t.desc, actor: t.actor, at: t.at });
}

export function getTicket(db: Db, ticketId: string): TicketRow | undefined {
  return stmt<[string], TicketRow>(db, `SELECT ${TICKET_COLUMNS}, claimed FROM tickets WHERE ticket_id = ?`).get(ticketId);
}

export function ticketEvents(db: Db, ticketId: string): TicketEvent[] {
  return stmt<[string], TicketEvent>(
    db,
    'SELECT kind, from_status, to_status, note, actor, at FROM ticket_events WHERE ticket_id = ? ORDER BY id',
  ).all(ticketId);
}

const SORT_SQL: Record<TicketListInput['sort'], string> = {
  updated_at: 'updated_at',
  created_at: 'created_at',
  amount: 'decimal_key(amount)',
  kind: 'kind',
  status: 'status',
};

const DAY_MS = 86_400_000;

/**
 * The queue: filters are exact (wallet IDs are stored lower-cased, as the ledger keeps them),
 * amounts are bounded as exact decimal numbers, `search` finds words in the description, the ids, the
 * claim and the record's hash. `now` dates the age filter.
 */
export function listTickets(db: Db, q: TicketListInput, now: number): Page<TicketSummary> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  if (q.status !== undefined) add('status = ?', q.status);
  if (q.kind !== undefined) add('kind = ?', q.kind);
  if (q.wallet_id !== undefined) add('wallet_id = ?', q.wallet_id.toLowerCase());
  if (q.chain_id !== undefined && q.chain_id !== '') add('chain_id = ?', q.chain_id);
  if (q.token_id !== undefined && q.token_id !== '') add('token_id = ?', q.token_id);
  if (q.run_id !== undefined && q.run_id !== '') add('run_id = ?', q.run_id);
  if (q.field !== undefined) add("instr(',' || abnormals || ',', ?) > 0", `,${q.field},`);
  if (q.amount_min !== undefined) add("amount <> '' AND decimal_key(amount) >= decimal_key(?)", q.amount_min);
  if (q.amount_max !== undefined) add("amount <> '' AND decimal_key(amount) <= decimal_key(?)", q.amount_max);
  if (q.older_than_days !== undefined) add('created_at <= ?', now - q.older_than_days * DAY_MS);
  const words = (q.search ?? '').trim().toLowerCase();
  if (words !== '') {
    // A hash is searched with and without its 0x (a Tron hash has none), by the hash index.
    const other = words.startsWith('0x') ? words.slice(2) : `0x${words}`;
    add(
      `(instr(lower("desc" || ' ' || ticket_id || ' ' || transaction_id || ' ' || wallet_id || ' ' || claimed), ?) > 0
        OR transaction_id IN (SELECT transaction_id FROM transactions t WHERE (${hashEquals('t.hash_key')}) OR (${hashEquals('t.hash_key')})))`,
      words,
      words,
      words,
      other,
      other,
    );
  }
  const filter = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = stmt<unknown[], { n: number }>(db, `SELECT count(*) AS n FROM tickets ${filter}`).get(...params)!.n;
  const order = q.order === 'asc' ? 'ASC' : 'DESC';
  const list = stmt<unknown[], TicketSummary>(
    db,
    `SELECT ${TICKET_COLUMNS} FROM tickets ${filter} ORDER BY ${SORT_SQL[q.sort]} ${order}, ticket_id ${order} LIMIT ? OFFSET ?`,
  ).all(...params, q.page_size, (q.page - 1) * q.page_size);
  return { list, total, page: q.page, page_size: q.page_size };
}

/** A status change of one ticket: from the status it was read with, and, when the caller saw it, the version it saw. */
export interface StatusChange {
  ticket_id: string;
  from: TicketStatus;
  version?: number;
}

/**
 * Change many tickets' status with one reason, in one transaction: each gets its own event. Each
 * row changes only if it still has the status (and version) it was read with, checked by the
 * UPDATE itself, so two services racing on one store get one answer: when any ticket had changed,
 * nothing is written and the answer is those tickets' ids; else it is empty.
 */
export function setTicketsStatus(
  db: Db,
  changes: readonly StatusChange[],
  to: TicketStatus,
  note: string,
  actor: string,
  at: number,
): string[] {
  const stale: string[] = [];
  const rollback = new Error('stale');
  try {
    db.$client.transaction(() => {
      const update = stmt(
        db,
        'UPDATE tickets SET status = ?, updated_at = ?, version = version + 1 WHERE ticket_id = ? AND status = ? AND (? IS NULL OR version = ?)',
      );
      for (const c of changes) {
        const version = c.version ?? null;
        if (update.run(to, at, c.ticket_id, c.from, version, version).changes !== 1) stale.push(c.ticket_id);
        else addEvent(db, c.ticket_id, { kind: 'status', from: c.from, to, note, actor, at });
      }
      if (stale.length > 0) throw rollback;
    })();
  } catch (err) {
    if (err !== rollback) throw err;
  }
  return stale;
}

/** A ticket as it stands, with the last event that changed it (who, what, when). */
export interface TicketNow {
  ticket_id: string;
  status: TicketStatus;
  version: number;
  last: { kind: TicketEvent['kind']; to: TicketStatus | null; actor: string; at: number } | null;
}

/** Each of these tickets that exists as it stands now, with its last event (one statement for the lot). */
export function ticketsNow(db: Db, ticketIds: readonly string[]): Map<string, TicketNow> {
  if (ticketIds.length === 0) return new Map();
  const rows = stmt<[string], TicketNowRow>(
    db,
    `SELECT t.ticket_id, t.status, t.version, e.kind, e.to_status, e.actor, e.at
     FROM tickets t LEFT JOIN ticket_events e ON e.id = (SELECT max(id) FROM ticket_events WHERE ticket_id = t.ticket_id)
     WHERE t.ticket_id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ticketIds));
  return ticketsNowOf(rows);
}

/** A ticket's row joined with its last event (none: nulls), as both engines read it. */
export interface TicketNowRow {
  ticket_id: string;
  status: TicketStatus;
  version: number;
  kind: TicketEvent['kind'] | null;
  to_status: TicketStatus | null;
  actor: string | null;
  at: number | null;
}

/** The tickets as they stand, by id, from their rows joined with their last event. */
export function ticketsNowOf(rows: readonly TicketNowRow[]): Map<string, TicketNow> {
  return new Map(
    rows.map((r) => [
      r.ticket_id,
      {
        ticket_id: r.ticket_id,
        status: r.status,
        version: r.version,
        last: r.kind === null ? null : { kind: r.kind, to: r.to_status, actor: r.actor ?? '', at: r.at ?? 0 },
      },
    ]),
  );
}

/*
 * Exceptions other than mismatches (a claim not in the ledger, a record not in the books, a
 * duplicate claim, a balance difference) live in the tickets table beside the mismatch tickets,
 * with the same statuses and events. Each has a subject, so the same finding twice (the same books
 * reconciled again) updates the Pending exception instead of opening a second one.
 */

export interface NewException {
  kind: Exclude<ExceptionKind, 'mismatch'>;
  /** What it is about, unique per kind among Pending exceptions (a transaction id, a claim's lookup key, wallet|token|date). */
  subject: string;
  wallet_id: string;
  /** '' when there is no record. */
  transaction_id: string;
  chain_id: string;
  token_id: string;
  amount: string;
  /** One line: what was found. */
  desc: string;
  /** JSON: the claim (or the check's figures) kept with the exception and shown beside the record. */
  claimed: string;
  run_id: string | null;
  actor: string;
  at: number;
  /** The fields at fault, as the queue filters by them (FLAG_FIELDS names, comma-separated); '' by default. */
  abnormals?: string;
}

/**
 * Open each exception, or update the Pending one of its kind and subject (an `updated` event).
 * Answers the ticket ids in the order given. The caller holds the transaction.
 */
export function raiseExceptions(db: Db, list: readonly NewException[]): string[] {
  if (list.length === 0) return [];
  const pending = stmt<[string, string], string>(
    db,
    "SELECT ticket_id FROM tickets WHERE kind = ? AND subject = ? AND status = 'Pending' ORDER BY created_at LIMIT 1",
  ).pluck();
  const insert = stmt(
    db,
    `INSERT INTO tickets (ticket_id, kind, subject, wallet_id, transaction_id, status, chain_id, token_id, amount, abnormals, "desc", claimed, run_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'Pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = stmt(
    db,
    `UPDATE tickets SET wallet_id = ?, transaction_id = ?, chain_id = ?, token_id = ?, amount = ?, abnormals = ?, "desc" = ?, claimed = ?, run_id = ?, updated_at = ?, version = version + 1
     WHERE ticket_id = ?`,
  );
  const event = stmt(
    db,
    'INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  return list.map((e) => {
    const existing = pending.get(e.kind, e.subject);
    // The columns both statements write, in their order.
    const fields = [e.wallet_id, e.transaction_id, e.chain_id, e.token_id, e.amount, e.abnormals ?? '', e.desc, e.claimed, e.run_id];
    if (existing !== undefined) {
      update.run(...fields, e.at, existing);
      event.run(existing, 'updated', 'Pending', 'Pending', e.desc, e.actor, e.at);
      return existing;
    }
    const id = uuidv7();
    insert.run(id, e.kind, e.subject, ...fields, e.at, e.at);
    event.run(id, 'opened', null, 'Pending', e.desc, e.actor, e.at);
    return id;
  });
}

/**
 * Resolve the Pending exception of this kind and subject, with the reason (a `status` event): a
 * later finding that settles it, such as a statement checked again with a figure that agrees.
 * Answers its ticket_id, or null when none is Pending.
 */
export function resolvePendingException(
  db: Db,
  kind: NewException['kind'],
  subject: string,
  note: string,
  actor: string,
  at: number,
): string | null {
  const id = stmt<[string, string], string>(
    db,
    "SELECT ticket_id FROM tickets WHERE kind = ? AND subject = ? AND status = 'Pending' ORDER BY created_at LIMIT 1",
  )
    .pluck()
    .get(kind, subject);
  if (id === undefined) return null;
  // Read and written within the caller's turn on the one connection: the row is as read.
  setTicketsStatus(db, [{ ticket_id: id, from: 'Pending' }], 'Resolved', note, actor, at);
  return id;
}

/** An exception's status, and its last resolution or dismissal: who, when, why. */
export interface ExceptionState {
  status: TicketStatus;
  /** The last status event's actor, moment and note; null when none was ever made. */
  last_change: { to: TicketStatus; actor: string; at: number; note: string } | null;
}

/** The state of each of these exceptions that exists, as it stands now (one statement for the lot). */
export function exceptionStates(db: Db, ticketIds: Iterable<string>): Map<string, ExceptionState> {
  const ids = [...new Set(ticketIds)];
  if (ids.length === 0) return new Map();
  const rows = stmt<
    [string],
    {
      ticket_id: string;
      kind: ExceptionKind;
      status: TicketStatus;
      to_status: TicketStatus | null;
      actor: string;
      at: number;
      note: string;
    }
  >(
    db,
    `SELECT t.ticket_id, t.status, e.to_status, e.actor, e.at, e.note
     FROM tickets t LEFT JOIN ticket_events e
       ON e.id = (SELECT max(id) FROM ticket_events WHERE ticket_id = t.ticket_id AND kind = 'status')
     WHERE t.ticket_id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids));
  return new Map(
    rows.map((r) => [
      r.ticket_id,
      {
        status: r.status,
        last_change: r.to_status === null ? null : { to: r.to_status, actor: r.actor, at: r.at, note: r.note },
      },
    ]),
  );
}

/**
 * Resolve the Pending exceptions of a kind about these subjects that another run opened or last
 * updated (a mismatch's subject is its transaction id), each with an event of its own note; a
 * mismatch only when a books run (two-way) opened it: the API's tickets are not settled by books.
 * Exceptions a person dismissed or resolved are left as they are. The caller holds the
 * transaction. Answers the ids resolved.
 */
/** The subjects of the Pending exceptions of a kind (a mismatch's: its transaction id; only those books runs opened). */
export function pendingSubjects(db: Db, kind: ExceptionKind): Set<string> {
  return new Set(
    stmt<[string], string>(db, `SELECT subject FROM tickets WHERE kind = ? AND status = 'Pending' ${booksOnly(kind)}`)
      .pluck()
      .all(kind),
  );
}

const booksOnly = (kind: ExceptionKind) =>
  kind === 'mismatch' ? 'AND run_id IN (SELECT run_id FROM verification_runs WHERE two_way = 1)' : '';

export function settleExceptions(
  db: Db,
  kind: ExceptionKind,
  noteOf: (subject: string) => string | undefined,
  exceptRun: string,
  actor: string,
  at: number,
): string[] {
  // The Pending exceptions of the kind (the queue's open work, not the run's claims) are read and each is looked up.
  const rows = stmt<[string, string], { ticket_id: string; subject: string }>(
    db,
    `SELECT ticket_id, subject FROM tickets WHERE kind = ? AND status = 'Pending' AND (run_id IS NULL OR run_id <> ?) ${booksOnly(kind)}`,
  ).all(kind, exceptRun);
  const update = stmt(db, "UPDATE tickets SET status = 'Resolved', updated_at = ?, version = version + 1 WHERE ticket_id = ?");
  const resolved: string[] = [];
  for (const r of rows) {
    const note = noteOf(r.subject);
    if (note === undefined) continue;
    update.run(at, r.ticket_id);
    addEvent(db, r.ticket_id, { kind: 'status', from: 'Pending', to: 'Resolved', note, actor, at });
    resolved.push(r.ticket_id);
  }
  return resolved;
}

/**
 * Resolve the Pending exceptions of a kind about these subjects (a later finding says they no
 * longer stand: the chain now agrees with the record), each with an event saying why. Exceptions a
 * person dismissed or resolved stay as they are. The caller holds the transaction. Answers the
 * subjects settled, with their ticket ids.
 */
export function settleSubjects(
  db: Db,
  kind: ExceptionKind,
  subjects: readonly string[],
  note: string,
  actor: string,
  at: number,
): Map<string, string> {
  const settled = new Map<string, string>();
  if (subjects.length === 0) return settled;
  const rows = stmt<[string, string], { ticket_id: string; subject: string }>(
    db,
    "SELECT ticket_id, subject FROM tickets WHERE kind = ? AND status = 'Pending' AND subject IN (SELECT value FROM json_each(?))",
  ).all(kind, JSON.stringify(subjects));
  const update = stmt(db, "UPDATE tickets SET status = 'Resolved', updated_at = ?, version = version + 1 WHERE ticket_id = ?");
  for (const r of rows) {
    update.run(at, r.ticket_id);
    addEvent(db, r.ticket_id, { kind: 'status', from: 'Pending', to: 'Resolved', note, actor, at });
    settled.set(r.subject, r.ticket_id);
  }
  return settled;
}
