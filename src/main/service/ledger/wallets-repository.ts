import type { WalletAddress, WalletSummary } from '../../../shared/wallets';
import type { Db } from '../db/open';
import { stmt } from '../db/statements';
import { LEDGER_TABLE, nameNo } from '../db/ledger-sql';

/* SQL of the named wallets: the wallets, their names and notes, their addresses per chain. */

type WalletRow = Omit<WalletSummary, 'addresses'>;

const WALLET_SELECT = `SELECT w.wallet_id, w.name, w.notes,
  (SELECT count(*) FROM ${LEDGER_TABLE} t WHERE t.wallet_no = ${nameNo('w.wallet_id')}) AS transactions FROM wallets w`;

function withAddresses(db: Db, rows: WalletRow[]): WalletSummary[] {
  const byWallet = new Map<string, WalletAddress[]>(rows.map((r) => [r.wallet_id, []]));
  const all = stmt<[], WalletAddress & { wallet_id: string }>(
    db,
    'SELECT wallet_id, chain_id, address, label FROM wallet_addresses ORDER BY chain_id, created_at, address',
  ).all();
  for (const { wallet_id, ...a } of all) byWallet.get(wallet_id)?.push(a);
  return rows.map((r) => ({ ...r, addresses: byWallet.get(r.wallet_id) ?? [] }));
}

/** Named wallets by name (ignoring case), then the unnamed ones. */
export function listWallets(db: Db): WalletSummary[] {
  const rows = stmt<[], WalletRow>(db, `${WALLET_SELECT} ORDER BY w.name = '', lower(w.name), w.wallet_id`).all();
  return withAddresses(db, rows);
}

export function getWallet(db: Db, walletId: string): WalletSummary | undefined {
  const row = stmt<[string], WalletRow>(db, `${WALLET_SELECT} WHERE w.wallet_id = lower(?)`).get(walletId);
  if (!row) return undefined;
  const addresses = stmt<[string], WalletAddress>(
    db,
    'SELECT chain_id, address, label FROM wallet_addresses WHERE wallet_id = ? ORDER BY chain_id, created_at, address',
  ).all(row.wallet_id);
  return { ...row, addresses };
}

/** The wallet of this name, ignoring case (excluding one wallet: the one being renamed). */
export function walletIdByName(db: Db, name: string, except = ''): string | undefined {
  return stmt<[string, string], { wallet_id: string }>(
    db,
    "SELECT wallet_id FROM wallets WHERE name <> '' AND lower(name) = lower(?) AND wallet_id <> ?",
  ).get(name, except)?.wallet_id;
}

export function insertWallet(db: Db, w: { wallet_id: string; name: string; notes: string }, now: number): void {
  stmt(db, 'INSERT INTO wallets (wallet_id, name, notes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(
    w.wallet_id,
    w.name,
    w.notes,
    now,
    now,
  );
}

export function updateWallet(db: Db, walletId: string, change: { name?: string; notes?: string }, now: number): void {
  stmt(db, 'UPDATE wallets SET name = coalesce(?, name), notes = coalesce(?, notes), updated_at = ? WHERE wallet_id = ?').run(
    change.name ?? null,
    change.notes ?? null,
    now,
    walletId,
  );
}

/** The wallet an address on a chain belongs to. */
export function addressOwner(db: Db, chainId: string, address: string): string | undefined {
  return stmt<[string, string], { wallet_id: string }>(db, 'SELECT wallet_id FROM wallet_addresses WHERE chain_id = ? AND address = ?').get(
    chainId,
    address,
  )?.wallet_id;
}

export function insertAddress(db: Db, walletId: string, a: WalletAddress, now: number): void {
  stmt(db, 'INSERT INTO wallet_addresses (wallet_id, chain_id, address, label, created_at) VALUES (?, ?, ?, ?, ?)').run(
    walletId,
    a.chain_id,
    a.address,
    a.label,
    now,
  );
}

export function deleteAddress(db: Db, walletId: string, chainId: string, address: string): boolean {
  return (
    stmt(db, 'DELETE FROM wallet_addresses WHERE wallet_id = ? AND chain_id = ? AND address = ?').run(walletId, chainId, address).changes >
    0
  );
}

/** The wallet's one address on a chain (none, or several: undefined). */
export function walletAddressOn(db: Db, walletId: string, chainId: string): string | undefined {
  const rows = stmt<[string, string], { address: string }>(
    db,
    'SELECT address FROM wallet_addresses WHERE wallet_id = lower(?) AND chain_id = ? LIMIT 2',
  ).all(walletId, chainId);
  return rows.length === 1 ? rows[0]!.address : undefined;
}

/** Run fn in one transaction: a refused request changes nothing. */
export const inTransaction = <T>(db: Db, fn: () => T): T => db.$client.transaction(fn)();
