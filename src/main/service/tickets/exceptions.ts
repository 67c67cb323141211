import { v7 as uuidv7 } from 'uuid';
import type { ExceptionKind } from '../../../shared/tickets';
import type { Db } from '../db/open';
import { stmt } from '../db/statements';

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
     VALUES (?, ?, ?, ?, ?, 'Pending', ?, ?, ?, '', ?, ?, ?, ?, ?)`,
  );
  const update = stmt(
    db,
    `UPDATE tickets SET wallet_id = ?, transaction_id = ?, chain_id = ?, token_id = ?, amount = ?, "desc" = ?, claimed = ?, run_id = ?, updated_at = ?
     WHERE ticket_id = ?`,
  );
  const event = stmt(
    db,
    'INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  return list.map((e) => {
    const existing = pending.get(e.kind, e.subject);
    if (existing !== undefined) {
      update.run(e.wallet_id, e.transaction_id, e.chain_id, e.token_id, e.amount, e.desc, e.claimed, e.run_id, e.at, existing);
      event.run(existing, 'updated', 'Pending', 'Pending', e.desc, e.actor, e.at);
      return existing;
    }
    const id = uuidv7();
    insert.run(
      id,
      e.kind,
      e.subject,
      e.wallet_id,
      e.transaction_id,
      e.chain_id,
      e.token_id,
      e.amount,
      e.desc,
      e.claimed,
      e.run_id,
      e.at,
      e.at,
    );
    event.run(id, 'opened', null, 'Pending', e.desc, e.actor, e.at);
    return id;
  });
}
