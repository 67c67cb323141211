import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HandlerName, HandlerResult } from '../../shared/contract';
import { seedFromResources } from './catalogue/handlers';
import type { CallMeta, ServiceContext } from './context';
import { openDb } from './db/open';
import { createHandlers, invokeHandler, type Handlers } from './handlers';
import { defaultResourcesDir } from './paths';
import { Engine } from './engine/index';

export interface ServiceOptions {
  dataDir: string;
  resourcesDir?: string;
  /** The clock, in Unix milliseconds; tests move it. */
  now?: () => number;
  /** better-sqlite3 build for a runtime other than this Node (Electron). */
  nativeBinding?: string;
  /** An existing store is about to be brought up to date with these migrations (see openDb). */
  onUpgrade?: (pending: string[]) => void;
}

export interface Service {
  ctx: ServiceContext;
  handlers: Handlers;
  invoke<N extends HandlerName>(name: N, input: unknown, meta: CallMeta): Promise<HandlerResult<N>>;
  close(): void;
}

export const DB_FILE = 'nps.sqlite';

/** Open (or create) the data directory's store, bring it up to date, seed the catalogue. */
export function openService(opts: ServiceOptions): Service {
  mkdirSync(opts.dataDir, { recursive: true });
  const db = openDb({ file: join(opts.dataDir, DB_FILE), nativeBinding: opts.nativeBinding, onUpgrade: opts.onUpgrade });
  const ctx: ServiceContext = {
    db,
    dataDir: opts.dataDir,
    resourcesDir: opts.resourcesDir ?? defaultResourcesDir(),
    now: opts.now ?? Date.now,
    engine: new Engine(db),
  };
  try {
    seedFromResources(ctx);
    const handlers = createHandlers(ctx);
    return {
      ctx,
      handlers,
      invoke: (name, input, meta) => invokeHandler(handlers, name, input, meta),
      close: () => {
        ctx.engine.close();
        db.$client.close();
      },
    };
  } catch (err) {
    db.$client.close();
    throw err;
  }
}
