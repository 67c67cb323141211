import { randomUUID } from 'node:crypto';
import { ErrorCodes } from '../../../shared/errors';
import { BooksMapping, SavedRunOptions, type BooksRunInput, type SavedMapping, type SavedMappingListed } from '../../../shared/reconcile';
import type { ServiceContext } from '../context';
import { invalidParam, ServiceError } from '../errors';
import { findWallet } from '../ledger/repository';
import { inTransaction } from '../ledger/wallets-repository';
import { planBooks } from './books-map';
import {
  deleteMapping,
  dropRemembered,
  insertMapping,
  listMappings,
  mappingById,
  mappingByName,
  mappingOfLayout,
  namesLike,
  proposedMapping,
  replaceMapping,
  type MappingRow,
} from './mappings-repository';

/*
 * Books mappings kept for the next file of the same layout. A layout is the books header: its
 * columns in order, compared trimmed and ignoring case (a file saved again by a spreadsheet keeps
 * its layout). Each run keeps the mapping it used in the entry of its layout and wallet, so the
 * next file of that layout is proposed it (the wallet's first, else the last used of any wallet);
 * the user may name an entry, rename, edit or remove it. A mapping is checked against its layout's
 * columns before it is kept, so a saved mapping always reads its layout.
 */

/** The key of a books header: its columns in order, trimmed and lower-cased. */
const layoutKey = (headers: readonly string[]): string => headers.map((h) => h.trim().toLowerCase()).join('\u001f');

/**
 * A saved mapping for a file of its layout as this file spells its columns: the same columns may
 * be written in other capitals or with spaces around them, and the mapping names them as written.
 */
function spelledFor(saved: SavedMapping, headers: readonly string[] | undefined): SavedMapping {
  if (headers === undefined) return saved;
  const byKey = new Map(headers.map((h) => [h.trim().toLowerCase(), h]));
  const columns = Object.fromEntries(
    Object.entries(saved.mapping.columns).map(([field, column]) => [field, byKey.get(column!.trim().toLowerCase()) ?? column]),
  );
  return { ...saved, mapping: { ...saved.mapping, columns } };
}

function savedOf(row: MappingRow): SavedMapping {
  return {
    mapping_id: row.mapping_id,
    name: row.name,
    named: row.named === 1,
    headers: JSON.parse(row.headers) as string[],
    wallet_id: row.wallet_id,
    mapping: BooksMapping.parse(JSON.parse(row.mapping)),
    options: SavedRunOptions.parse(JSON.parse(row.options)),
    created_at: row.created_at,
    updated_at: row.updated_at,
    used_at: row.used_at,
  };
}

/** A mapping that cannot read its layout is refused, naming the mapping's field at fault. */
function checkAgainst(headers: readonly string[], mapping: BooksMapping): void {
  const problem = planBooks(headers, mapping, []).problems[0];
  if (problem !== undefined) throw invalidParam(problem.field, problem.reason);
}

function requireWallet(ctx: ServiceContext, walletId: string | null | undefined): string | null {
  if (walletId === undefined || walletId === null) return null;
  const stored = findWallet(ctx.db, walletId);
  if (stored === undefined) throw new ServiceError(ErrorCodes.UNKNOWN_WALLET, `wallet_id: unknown wallet ${walletId}`);
  return stored;
}

function requireFreeName(ctx: ServiceContext, name: string, except = ''): void {
  const other = mappingByName(ctx.db, name, except);
  if (other !== undefined)
    throw invalidParam('name', `a saved mapping is already named ${JSON.stringify(other.name)}; names are unique, ignoring case`);
}

/** A saved mapping by its ID, else its name (ignoring case). */
function requireMapping(ctx: ServiceContext, ref: string): MappingRow {
  const row = mappingById(ctx.db, ref) ?? mappingByName(ctx.db, ref.trim());
  if (row === undefined) throw invalidParam('mapping', `no saved mapping is named ${JSON.stringify(ref)}`);
  return row;
}

/** A name no mapping has yet: the wanted one, else with " (2)", " (3)"… after it. */
function freeName(ctx: ServiceContext, wanted: string): string {
  const base = wanted.trim().slice(0, 90) || 'Books';
  const taken = namesLike(ctx.db, base);
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base} (${n})`.toLowerCase())) return `${base} (${n})`;
}

/** The options of a run worth proposing again with its mapping. */
function runOptions(input: BooksRunInput): SavedRunOptions {
  const out: SavedRunOptions = { two_way: input.two_way };
  if (input.amount_delta !== undefined) out.amount_delta = input.amount_delta;
  if (input.time_type !== undefined) out.time_type = input.time_type;
  if (input.time_delta !== undefined) out.time_delta = input.time_delta;
  if (input.two_way) {
    if (input.from !== undefined) out.from = input.from;
    if (input.to !== undefined) out.to = input.to;
    out.time_zone = input.time_zone;
  }
  return out;
}

/** The mapping to propose for a books file of this header: the wallet's first, else the last used. */
export function proposeMapping(ctx: ServiceContext, headers: readonly string[], walletId: string | undefined): SavedMapping | null {
  const row = proposedMapping(ctx.db, layoutKey(headers), walletId === undefined ? undefined : (findWallet(ctx.db, walletId) ?? walletId));
  return row ? spelledFor(savedOf(row), headers) : null;
}

/**
 * After a books run: its mapping and options kept in the entry of its layout and wallet (made,
 * named after the file, when there is none), or under the name the run was given, which then
 * stands for the layout and wallet in place of the entry a run had remembered.
 */
export function rememberMapping(
  ctx: ServiceContext,
  run: { headers: readonly string[]; walletId: string | null; fileName: string; input: BooksRunInput },
): SavedMapping {
  const key = layoutKey(run.headers);
  const now = ctx.now();
  const values = {
    header_key: key,
    headers: JSON.stringify(run.headers),
    wallet_id: run.walletId,
    mapping: JSON.stringify(run.input.mapping),
    options: JSON.stringify(runOptions(run.input)),
    updated_at: now,
    used_at: now,
  };
  const saveAs = run.input.save_mapping_as;
  return inTransaction(ctx.db, () => {
    let id: string;
    const target = saveAs !== undefined ? mappingByName(ctx.db, saveAs) : mappingOfLayout(ctx.db, key, run.walletId);
    if (target !== undefined) {
      id = target.mapping_id;
      const named = saveAs !== undefined || target.named === 1;
      replaceMapping(ctx.db, { ...target, ...values, name: saveAs ?? target.name, named: named ? 1 : 0 });
    } else {
      id = randomUUID();
      insertMapping(ctx.db, {
        mapping_id: id,
        name: saveAs ?? freeName(ctx, run.fileName),
        named: saveAs !== undefined ? 1 : 0,
        created_at: now,
        ...values,
      });
    }
    if (saveAs !== undefined) dropRemembered(ctx.db, key, run.walletId, id);
    return savedOf(mappingById(ctx.db, id)!);
  });
}

export function listSaved(ctx: ServiceContext, headers: string[] | undefined, walletId: string | undefined): SavedMappingListed[] {
  const key = headers === undefined ? null : layoutKey(headers);
  const wallet = walletId === undefined ? undefined : (findWallet(ctx.db, walletId) ?? walletId);
  return listMappings(ctx.db, key, wallet).map((r) => {
    const same = r.header_key === key;
    return { ...spelledFor(savedOf(r), same ? headers : undefined), same_layout: same };
  });
}

export function saveMapping(
  ctx: ServiceContext,
  input: {
    name: string;
    headers: string[];
    wallet_id?: string | null;
    mapping: BooksMapping;
    options?: SavedRunOptions;
    replace: boolean;
  },
): SavedMapping {
  checkAgainst(input.headers, input.mapping);
  const walletId = requireWallet(ctx, input.wallet_id);
  const existing = mappingByName(ctx.db, input.name);
  if (existing !== undefined && !input.replace)
    throw invalidParam('name', `a saved mapping is already named ${JSON.stringify(existing.name)}: choose another name, or replace it`);
  const key = layoutKey(input.headers);
  const now = ctx.now();
  return inTransaction(ctx.db, () => {
    const row: MappingRow = {
      mapping_id: existing?.mapping_id ?? randomUUID(),
      name: input.name,
      named: 1,
      header_key: key,
      headers: JSON.stringify(input.headers),
      wallet_id: walletId,
      mapping: JSON.stringify(input.mapping),
      options: JSON.stringify(input.options ?? {}),
      created_at: existing?.created_at ?? now,
      updated_at: now,
      used_at: existing?.used_at ?? now,
    };
    if (existing) replaceMapping(ctx.db, row);
    else insertMapping(ctx.db, row);
    dropRemembered(ctx.db, key, walletId, row.mapping_id);
    return savedOf(mappingById(ctx.db, row.mapping_id)!);
  });
}

/** Rename, move to another wallet (null: every wallet) or change the mapping of a saved mapping; a rename names it. */
export function updateMapping(
  ctx: ServiceContext,
  input: { mapping_id: string; name?: string; wallet_id?: string | null; mapping?: BooksMapping },
): SavedMapping {
  const row = mappingById(ctx.db, input.mapping_id);
  if (row === undefined) throw invalidParam('mapping_id', `no saved mapping ${JSON.stringify(input.mapping_id)}`);
  if (input.name !== undefined) requireFreeName(ctx, input.name, row.mapping_id);
  if (input.mapping !== undefined) checkAgainst(JSON.parse(row.headers) as string[], input.mapping);
  const walletId = input.wallet_id === undefined ? row.wallet_id : requireWallet(ctx, input.wallet_id);
  replaceMapping(ctx.db, {
    ...row,
    name: input.name ?? row.name,
    named: input.name !== undefined ? 1 : row.named,
    wallet_id: walletId,
    mapping: input.mapping !== undefined ? JSON.stringify(input.mapping) : row.mapping,
    updated_at: ctx.now(),
  });
  return savedOf(mappingById(ctx.db, row.mapping_id)!);
}

/** A saved mapping by name or ID; given a file's header of its layout, its columns as that file spells them. */
export function getMapping(ctx: ServiceContext, ref: string, headers?: string[]): SavedMapping {
  const row = requireMapping(ctx, ref);
  return spelledFor(savedOf(row), headers !== undefined && layoutKey(headers) === row.header_key ? headers : undefined);
}

export function removeMapping(ctx: ServiceContext, ref: string): SavedMapping {
  const row = requireMapping(ctx, ref);
  deleteMapping(ctx.db, row.mapping_id);
  return savedOf(row);
}
