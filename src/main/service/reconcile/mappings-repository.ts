import type { Db } from '../db/open';
import { stmt } from '../db/statements';

/* SQL of the saved books mappings (table books_mappings, db/schema.ts): rows as stored, JSON kept as text. */

export interface MappingRow {
  mapping_id: string;
  name: string;
  named: number;
  header_key: string;
  headers: string;
  wallet_id: string | null;
  mapping: string;
  options: string;
  created_at: number;
  updated_at: number;
  used_at: number;
}

const COLUMNS = 'mapping_id, name, named, header_key, headers, wallet_id, mapping, options, created_at, updated_at, used_at';

/**
 * Every saved mapping: those of this layout first (the wallet's first among them when one is
 * given, then the last used), then the others by name.
 */
export function listMappings(db: Db, headerKey: string | null, walletId: string | null | undefined): MappingRow[] {
  return stmt<[{ key: string | null; wallet: string | null; byWallet: number }], MappingRow>(
    db,
    `SELECT ${COLUMNS} FROM books_mappings
     ORDER BY header_key = @key DESC, CASE WHEN header_key = @key AND @byWallet THEN wallet_id IS @wallet END DESC,
       CASE WHEN header_key = @key THEN -used_at END, lower(name), mapping_id`,
  ).all({ key: headerKey, wallet: walletId ?? null, byWallet: walletId === undefined ? 0 : 1 });
}

/** The mapping of a layout to propose: the wallet's when one is given, else the last used of any wallet. */
export function proposedMapping(db: Db, headerKey: string, walletId: string | null | undefined): MappingRow | undefined {
  return listMappings(db, headerKey, walletId).find((r) => r.header_key === headerKey);
}

/** The entry a run of this layout and wallet keeps its mapping in: the last used of them. */
export function mappingOfLayout(db: Db, headerKey: string, walletId: string | null): MappingRow | undefined {
  return stmt<[string, string | null], MappingRow>(
    db,
    `SELECT ${COLUMNS} FROM books_mappings WHERE header_key = ? AND wallet_id IS ? ORDER BY used_at DESC, mapping_id LIMIT 1`,
  ).get(headerKey, walletId);
}

export function mappingById(db: Db, mappingId: string): MappingRow | undefined {
  return stmt<[string], MappingRow>(db, `SELECT ${COLUMNS} FROM books_mappings WHERE mapping_id = ?`).get(mappingId);
}

/** The mapping of this name, ignoring case (except one: the one being renamed). */
export function mappingByName(db: Db, name: string, except = ''): MappingRow | undefined {
  return stmt<[string, string], MappingRow>(
    db,
    `SELECT ${COLUMNS} FROM books_mappings WHERE lower(name) = lower(?) AND mapping_id <> ?`,
  ).get(name, except);
}

/** The names taken that begin like this one, ignoring case: a new name is made unique among them. */
export function namesLike(db: Db, prefix: string): Set<string> {
  const rows = stmt<[{ prefix: string }], { name: string }>(
    db,
    'SELECT lower(name) AS name FROM books_mappings WHERE lower(substr(name, 1, length(@prefix))) = lower(@prefix)',
  ).all({ prefix });
  return new Set(rows.map((r) => r.name));
}

export function insertMapping(db: Db, row: MappingRow): void {
  stmt<[MappingRow]>(db, `INSERT INTO books_mappings (${COLUMNS}) VALUES (${COLUMNS.replace(/(\w+)/g, '@$1')})`).run(row);
}

/** Write every column of an existing entry but its id and creation time. */
export function replaceMapping(db: Db, row: MappingRow): void {
  stmt<[MappingRow]>(
    db,
    `UPDATE books_mappings SET name = @name, named = @named, header_key = @header_key, headers = @headers, wallet_id = @wallet_id,
       mapping = @mapping, options = @options, updated_at = @updated_at, used_at = @used_at
     WHERE mapping_id = @mapping_id`,
  ).run(row);
}

/** Entries a run remembered (unnamed) for this layout and wallet, but one: superseded by a mapping the user named for them. */
export function dropRemembered(db: Db, headerKey: string, walletId: string | null, keep: string): void {
  stmt(db, 'DELETE FROM books_mappings WHERE header_key = ? AND wallet_id IS ? AND named = 0 AND mapping_id <> ?').run(
    headerKey,
    walletId,
    keep,
  );
}

export function deleteMapping(db: Db, mappingId: string): boolean {
  return stmt(db, 'DELETE FROM books_mappings WHERE mapping_id = ?').run(mappingId).changes > 0;
}
