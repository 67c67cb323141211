import type { ImportUndo } from '../../../shared/ledger';
import type { Db } from '../db/open';
import { stmt } from '../db/statements';
import { columnOf, encodeField, encodeId, LEDGER_TABLE, NAMED_FIELDS, NAMES_TABLE, nameNo, STORED_RECORD_FIELDS } from '../db/ledger-sql';

/*
 * The SQL of undoing an import (undo.ts). What an import wrote is found from the store itself: the
 * records it updated are its rows of import_replaced (each with the version before it); the
 * records it added are the ones still carrying its import_id that it did not replace. A later import
 * that changed one of them names this import as the previous writer in its own import_replaced
 * row; while that import stands, this one's records are not its to put back.
 */

export interface ImportRow {
  import_id: string;
  file_name: string;
  finished_at: number;
  undone_at: number | null;
  undone_by: string | null;
}

export function findImport(db: Db, importId: string): ImportRow | undefined {
  return stmt<[string], ImportRow>(
    db,
    'SELECT import_id, file_name, finished_at, undone_at, undone_by FROM imports WHERE import_id = ?',
  ).get(importId);
}

/** The records the import added (no earlier version kept): the ones the undo removes. */
const addedSql = (column: 'transaction_id' | 'rowid') => `SELECT t.${column} FROM transactions t
  WHERE t.import_no = ${nameNo('@id')} AND NOT EXISTS (SELECT 1 FROM import_replaced r WHERE r.import_id = @id AND r.transaction_id = t.transaction_id)`;
const ADDED = addedSql('transaction_id');

/** What undoing the import would change, as the store stands. */
export function undoFigures(db: Db, importId: string): Pick<ImportUndo, 'remove' | 'restore' | 'tickets' | 'blocked_by'> {
  const id = { id: importId };
  const remove = stmt<[{ id: string }], number>(db, `SELECT count(*) FROM (${ADDED})`).pluck().get(id)!;
  const restore = stmt<[string], number>(db, 'SELECT count(*) FROM import_replaced WHERE import_id = ?').pluck().get(importId)!;
  const tickets = stmt<[{ id: string }], number>(
    db,
    `SELECT count(*) FROM tickets WHERE status = 'Pending' AND transaction_id IN (${ADDED})`,
  )
    .pluck()
    .get(id)!;
  const blocked_by = stmt<[string], { import_id: string; file_name: string }>(
    db,
    `SELECT i.import_id, i.file_name FROM imports i
     WHERE i.undone_at IS NULL AND i.import_id IN (SELECT import_id FROM import_replaced WHERE previous_import_id = ?)
     ORDER BY i.rowid`,
  ).all(importId);
  return { remove, restore, tickets, blocked_by };
}

/**
 * Undo the import (the caller holds the transaction and has checked it may): dismiss the Pending
 * tickets of the records it added, with an event each; remove those records; put back the earlier
 * version of each record it updated; mark the import undone.
 */
export function applyUndo(db: Db, u: { importId: string; actor: string; note: string; at: number }): void {
  const id = { id: u.importId };
  const pending = `SELECT ticket_id FROM tickets WHERE status = 'Pending' AND transaction_id IN (${ADDED})`;
  stmt(
    db,
    `INSERT INTO ticket_events (ticket_id, kind, from_status, to_status, note, actor, at)
     SELECT ticket_id, 'status', 'Pending', 'Dismissed', @note, @actor, @at FROM (${pending})`,
  ).run({ ...id, note: u.note, actor: u.actor, at: u.at });
  stmt(db, `UPDATE tickets SET status = 'Dismissed', updated_at = @at, version = version + 1 WHERE ticket_id IN (${pending})`).run({
    ...id,
    at: u.at,
  });
  stmt(db, `DELETE FROM ${LEDGER_TABLE} WHERE rowid IN (${addedSql('rowid')})`).run(id);
  stmt(db, RESTORE_NAMES).run(u.importId);
  stmt(db, RESTORE).run(u.importId);
  stmt(db, 'UPDATE imports SET undone_at = ?, undone_by = ? WHERE import_id = ?').run(u.at, u.actor, u.importId);
}

/** The names the earlier versions hold, into ledger_names (a row holds a name by its number). */
const RESTORE_NAMES = `INSERT OR IGNORE INTO ${NAMES_TABLE} (name)
  SELECT j.value FROM import_replaced r, json_each(json_array(${NAMED_FIELDS.map((f) => `json_extract(r.previous, '$.${f}')`).join(', ')})) j
  WHERE r.import_id = ? AND j.value IS NOT NULL`;

/**
 * Every field of each record the import updated, set from the JSON of its earlier version
 * (import-repository.ts keeps them all, under the view's names), encoded as the store keeps it.
 */
const RESTORE = `UPDATE ${LEDGER_TABLE} SET (${STORED_RECORD_FIELDS.map(columnOf).join(', ')}) =
    (SELECT ${STORED_RECORD_FIELDS.map((f) => encodeField(f, `p."${f}"`)).join(', ')}
     FROM (SELECT ${STORED_RECORD_FIELDS.map((f) => `json_extract(r.previous, '$.${f}') AS "${f}"`).join(', ')}) p)
  FROM import_replaced r
  WHERE r.import_id = ? AND ${LEDGER_TABLE}.tx_key = (SELECT ${encodeId('v')} FROM (SELECT r.transaction_id AS v))`;
