import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { HandlerName, HandlerResult } from '../../shared/contract';
import { followCatalogueOf, seedFromResources, seedShared } from './catalogue/handlers';
import { sqliteCatalogueStore, type CatalogueStore } from './catalogue/store-repository';
import { announceChange } from './changes';
import type { CallMeta, ServiceContext } from './context';
import { ErrorCodes } from '../../shared/errors';
import { openDb, type Db } from './db/open';
import { prepareDataFolder } from './data-folder';
import { rememberStore, ServiceError, storeFailure } from './errors';
import { createHandlers, invokeHandler, type Handlers } from './handlers';
import { defaultResourcesDir } from './paths';
import { Engine, localStoreChanges, type StoreChanges } from './engine/index';
import type { Logger } from 'pino';
import { silentLog } from './log';
import { startRetention } from './reconcile/retention';
import { applyDeferredVerify } from './reconcile/verify';
import { applyDeferredNonces } from './keys/nonces';
import { sqliteKeyStore, type KeyStore } from './keys/key-repository';
import { sqliteNonceStore, type NonceStore } from './keys/nonce-repository';
import { sqliteTicketStore, type TicketStore } from './tickets/store-repository';
import { sqliteRunStore, type RunStore } from './reconcile/run-repository';
import type { SecretBox } from './onchain/nodes';
import type { CheckOptions } from './onchain/checks';
import { answerFor, byDoor, sayFor } from './said';
import { openLocalUser, type LocalUser } from './local-user';

export interface ServiceOptions {
  dataDir: string;
  resourcesDir?: string;
  /** The clock, in Unix milliseconds; tests move it. */
  now?: () => number;
  /** better-sqlite3 build for a runtime other than this Node (Electron). */
  nativeBinding?: string;
  /** An existing store is about to be brought up to date with these migrations (see openDb). */
  onUpgrade?: (pending: string[]) => void;
  /** The service's log (log.ts); default none. */
  logger?: Logger;
  /** See OpenDbOptions.busyTimeoutMs: serving processes pass SERVING_BUSY_TIMEOUT_MS. */
  busyTimeoutMs?: number;
  /** Seals node URLs with the system's keychain (the Electron shell's safeStorage, src/main/safe-storage.ts). */
  secretBox?: SecretBox;
  /** How checks against the chain page and pace their requests (tests take small pages). */
  onchain?: CheckOptions;
  /** The folder is the app's own (the default one): made private whatever else it holds (data-folder.ts). */
  own?: boolean;
  /** Told what the user should know about the folder (other users can read it); also in the log. */
  onWarning?: (line: string) => void;
  /**
   * Where signed requests' nonces are used up: by default the service's own store; a team store's
   * (keys/nonce-repository.ts), so that a nonce passes once among every service on it.
   */
  nonces?: NonceStore;
  /** The API keys signed requests are checked against: by default the service's own store; a team store's (keys/key-repository.ts). */
  keys?: KeyStore;
  /** Where a person's work on tickets is read and written: by default the service's own store; a team store's (tickets/store-repository.ts). */
  tickets?: TicketStore;
  /**
   * The chains, tokens and ignored contracts: by default the service's own store, seeded as it opens;
   * a team store's (catalogue/store-repository.ts), seeded once `ready` resolves.
   */
  catalogue?: CatalogueStore;
  /** Where a verification's batches are written: by default the service's own store; a team store's (reconcile/run-repository.ts). */
  runs?: RunStore;
  /** Word of a change among the services on the store: by default this process's own (engine/store-changes.ts). */
  changes?: StoreChanges;
}

export interface Service {
  ctx: ServiceContext;
  /**
   * Resolves when the service's start on its store is done: at once on its own store, seeded as it
   * opened; on a team store once the catalogue is seeded (or found seeded by another service).
   * Rejects, as the catalogue's calls do, when that seed failed.
   */
  ready: Promise<void>;
  handlers: Handlers;
  invoke<N extends HandlerName>(name: N, input: unknown, meta: CallMeta): Promise<HandlerResult<N>>;
  close(): void;
}

export const DB_FILE = 'nps.sqlite';

/**
 * Open (or create) the data directory's store, bring it up to date, seed the catalogue. A store
 * that cannot be used (not a store, damaged, read-only, full, locked, of a newer version: 5001 in
 * docs/api.md) is a ServiceError of one line naming the file, the cause and what to do; such a store is
 * never replaced, and one of a newer version is not written to at all.
 */
export function openService(opts: ServiceOptions): Service {
  const file = join(opts.dataDir, DB_FILE);
  const warnings = prepareFolder(opts);
  const db = openStore(opts, file);
  const forget = rememberStore(file);
  const closing = new AbortController();
  const log = opts.logger ?? silentLog;
  const now = opts.now ?? Date.now;
  const warn = (line: string) => {
    log.warn({ event: 'data-folder' }, line);
    opts.onWarning?.(line);
  };
  for (const line of warnings) warn(line);
  let user: LocalUser;
  try {
    // Before anything else reads who acts: a store an older version kept the name in hands it over.
    user = openLocalUser(opts.dataDir, db, now(), warn);
  } catch (err) {
    forget();
    db.$client.close();
    throw storeFailure(err, file) ?? err;
  }
  const ctx: ServiceContext = {
    db,
    dataDir: opts.dataDir,
    resourcesDir: opts.resourcesDir ?? defaultResourcesDir(),
    now,
    nonces: opts.nonces ?? sqliteNonceStore(db),
    keys: opts.keys ?? sqliteKeyStore(db),
    tickets: opts.tickets ?? sqliteTicketStore(db),
    catalogue: opts.catalogue ?? sqliteCatalogueStore(db),
    runs: opts.runs ?? sqliteRunStore(db),
    engine: new Engine(db, (err) =>
      ctx.log.error({ event: 'deferred-write-failed', err }, 'a write deferred during an import could not be applied'),
    ),
    changes: opts.changes ?? localStoreChanges(),
    instance: randomUUID(),
    user,
    log,
    closing: closing.signal,
    ...(opts.secretBox ? { secretBox: opts.secretBox } : {}),
  };
  const unfollow = followCatalogueOf(ctx, opts.catalogue === undefined);
  try {
    const ready = opts.catalogue ? seedTeamCatalogue(ctx, opts.catalogue) : seedOwnCatalogue(ctx);
    const handlers = createHandlers(ctx, { onchain: opts.onchain });
    applyDeferredNonces(ctx);
    applyDeferredVerify(ctx);
    const recovered = ctx.engine.recover();
    if (recovered > 0) ctx.log.info({ event: 'deferred-writes-recovered', count: recovered });
    startRetention(ctx);
    return {
      ctx,
      ready,
      handlers,
      // The command line's words (said.ts): the CLI and the tests call here; the window's calls go through app/call.ts.
      invoke: async (name, input, meta) => {
        try {
          return answerFor(await invokeHandler(handlers, name, input, meta), 'cli');
        } catch (err) {
          throw err instanceof ServiceError ? new ServiceError(err.code, sayFor(err.message, 'cli')) : err;
        }
      },
      close: () => {
        closing.abort();
        forget();
        unfollow();
        void ctx.changes.close();
        ctx.engine.close();
        db.$client.close();
      },
    };
  } catch (err) {
    closing.abort();
    forget();
    unfollow();
    ctx.engine.close();
    db.$client.close();
    throw storeFailure(err, file) ?? err;
  }
}

/** Word of a seed that changed the catalogue, for the other services on the store (their kept answers) and their windows. */
const announceSeed = (ctx: ServiceContext): void =>
  announceChange(ctx, {
    topic: 'catalogue',
    what: "The catalogue updated from the app's list of chains and tokens",
    ids: [],
    actor: '',
    at: ctx.now(),
  });

/** The service's own store is seeded as it opens (a failure is the open's), so its catalogue is whole before the first call. */
function seedOwnCatalogue(ctx: ServiceContext): Promise<void> {
  if (seedFromResources(ctx)) announceSeed(ctx);
  return Promise.resolve();
}

/**
 * A team store is seeded once the service has opened (the seed waits for any other service
 * seeding it); until then the catalogue's calls wait for it, and fail as it failed.
 */
function seedTeamCatalogue(ctx: ServiceContext, store: CatalogueStore): Promise<void> {
  const ready = seedShared(ctx, store).then((seeded) => {
    if (seeded) announceSeed(ctx);
  });
  ready.catch((err: unknown) => ctx.log.error({ event: 'catalogue-seed-failed', err }, 'the catalogue could not be seeded'));
  ctx.catalogue = afterSeeding(store, ready);
  return ready;
}

/** The store whose every call waits for the seed first. */
function afterSeeding(store: CatalogueStore, ready: Promise<void>): CatalogueStore {
  return Object.fromEntries(
    Object.entries(store).map(([name, call]: [string, (...args: unknown[]) => Promise<unknown>]) => [
      name,
      async (...args: unknown[]) => {
        await ready;
        return call(...args);
      },
    ]),
  ) as unknown as CatalogueStore;
}

/** The folder made (0700) or its modes tightened (data-folder.ts): the warnings to give. */
function prepareFolder(opts: ServiceOptions): string[] {
  try {
    return prepareDataFolder(opts.dataDir, opts.own);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ServiceError(
      ErrorCodes.STORE_UNAVAILABLE,
      `the data folder ${opts.dataDir} cannot be created (${reason}); ${byDoor('point --data-dir elsewhere', 'start the app on another data folder (NPS_DATA_DIR)')}`,
    );
  }
}

function openStore(opts: ServiceOptions, file: string): Db {
  try {
    return openDb({ file, nativeBinding: opts.nativeBinding, onUpgrade: opts.onUpgrade, busyTimeoutMs: opts.busyTimeoutMs });
  } catch (err) {
    throw storeFailure(err, file) ?? err;
  }
}
