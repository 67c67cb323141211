import type { z } from 'zod';
import { addressContract } from './address';
import { appContract } from './app';
import { balancesContract } from './balances';
import { catalogueContract } from './catalogue';
import { keysContract } from './keys';
import { reconcileContract } from './reconcile';
import { retentionContract } from './retention';
import { ticketsContract } from './tickets';
import { ledgerContract } from './ledger';
import { onchainContract } from './onchain';
import { walletsContract } from './wallets';

export interface HandlerSpec {
  input: z.ZodType;
  output: z.ZodType;
  /**
   * The call only reads. Every other call may write, and waits (without blocking the service)
   * while a large import holds the store's write lock. A reader left unmarked only waits when it
   * need not; a writer marked here would block the service's thread for the import's length.
   */
  readOnly?: boolean;
  /**
   * The call writes, but never waits for an import: while one holds the write lock, it answers
   * from the committed store and keeps its writes durably until the import ends (the service's
   * engine/deferred.ts). Signed verifications, which local tools send under load.
   */
  defersWrites?: boolean;
  /**
   * The call writes only the data folder's own files (the user's name, the chains' nodes), never
   * the store: it does not wait while an import holds the store's write lock, and it is still
   * announced to the other windows as a write is.
   */
  folderOnly?: boolean;
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Combine maps of named entries; the same name twice is a programming error, reported at start. */
export function mergeUnique<T extends Record<string, unknown>[]>(...parts: T): UnionToIntersection<T[number]> {
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    for (const [name, value] of Object.entries(part)) {
      if (name in out) throw new Error(`duplicate handler name: ${name}`);
      out[name] = value;
    }
  }
  return out as UnionToIntersection<T[number]>;
}

/**
 * The one handler map's contract: every name the desktop window, the browser-mode door and the
 * /nps routes can call, with the schema of its input and of its answer.
 */
export const contract = mergeUnique(
  catalogueContract,
  addressContract,
  appContract,
  keysContract,
  reconcileContract,
  retentionContract,
  ticketsContract,
  ledgerContract,
  walletsContract,
  balancesContract,
  onchainContract,
);

export type Contract = typeof contract;
export type HandlerName = keyof Contract;
export type HandlerInput<N extends HandlerName> = z.input<Contract[N]['input']>;
export type HandlerResult<N extends HandlerName> = z.output<Contract[N]['output']>;
