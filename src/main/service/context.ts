import type { z } from 'zod';
import type { HandlerSpec } from '../../shared/contract';
import type { CatalogueStore } from './catalogue/store-repository';
import type { Db } from './db/open';
import type { Logger } from 'pino';
import type { Engine, StoreChanges } from './engine/index';
import type { KeyStore } from './keys/key-repository';
import type { NonceStore } from './keys/nonce-repository';
import type { LocalUser } from './local-user';
import type { SecretBox } from './onchain/nodes';
import type { RunStore } from './reconcile/run-repository';
import type { TicketStore } from './tickets/store-repository';

/** What every domain's handlers share: the store, the clock, and where files live. */
export interface ServiceContext {
  db: Db;
  dataDir: string;
  resourcesDir: string;
  now: () => number;
  /**
   * The signed requests' used nonces, in the store the service opened: the first part of the store
   * interface that team mode puts PostgreSQL behind (docs/team.md).
   */
  nonces: NonceStore;
  /** The API keys signed requests are checked against, in the store the service opened (keys/key-repository.ts). */
  keys: KeyStore;
  /** What a person reads of a ticket and changes of its status, in the store the service opened (tickets/store-repository.ts). */
  tickets: TicketStore;
  /**
   * The chains, tokens and ignored contracts, in the store the service opened: what the catalogue's
   * calls, the /nps chain and token routes and the address check read and write
   * (catalogue/store-repository.ts).
   */
  catalogue: CatalogueStore;
  /** Where a verification's batches write their runs, tickets and results, one transaction each (reconcile/run-repository.ts). */
  runs: RunStore;
  /** Threads, the write lock and where rows are written: the engine room (engine/README.md). */
  engine: Engine;
  /** Word of a change to every service on the store, and so to every window (changes.ts). */
  changes: StoreChanges;
  /** This service among those on the store: word of a change to its data folder is for its own windows (changes.ts). */
  instance: string;
  /** Who acts in the desktop app and the CLI: the data folder's named user (local-user.ts), never the store's. */
  user: LocalUser;
  /** The service's log (log.ts): summaries of imports and verifications, failures with their cause. */
  log: Logger;
  /** Aborted when the service closes: work running in the background (a check against the chain) stops before its next write. */
  closing: AbortSignal;
  /** Seals the chains' node URLs with the system's keychain: the desktop app's safeStorage; none in the CLI (onchain/nodes.ts). */
  secretBox?: SecretBox;
}

/** Who is calling, and how to report progress of a long job. */
export interface CallMeta {
  actor: 'ui' | 'api' | 'cli';
  /** The window that called (its session in browser mode; the desktop window): its own changes are not news to it (changes.ts). */
  window?: string;
  /** The API key behind a signed request. */
  apiKey?: string;
  /** That key's label, as the signature's check read it from the store (no second read for a run's label). */
  keyLabel?: string;
  /** Wallets the caller may act on; undefined means all. */
  walletScope?: string[];
  onProgress?: (progress: { done: number; total?: number; bytes?: number; totalBytes?: number }) => void;
}

type HandlerFn<S extends HandlerSpec> = (
  input: z.output<S['input']>,
  meta: CallMeta,
) => z.input<S['output']> | Promise<z.input<S['output']>>;

export type HandlersOf<C extends Record<string, HandlerSpec>> = { [K in keyof C]: HandlerFn<C[K]> };
