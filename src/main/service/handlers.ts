import { contract, mergeUnique, type Contract, type HandlerName, type HandlerResult } from '../../shared/contract';
import { addressHandlers } from './addresses/handlers';
import { appHandlers } from './app/handlers';
import { catalogueHandlers } from './catalogue/handlers';
import { keysHandlers } from './keys/handlers';
import { reconcileHandlers } from './reconcile/handlers';
import { ticketsHandlers } from './tickets/handlers';
import type { CallMeta, HandlersOf, ServiceContext } from './context';
import { parseInput } from './errors';
import { ledgerHandlers } from './ledger/handlers';

export type Handlers = HandlersOf<Contract>;

/** The one handler map: every domain's handlers, each name once (a repeat throws at start). */
export function createHandlers(ctx: ServiceContext): Handlers {
  const handlers = mergeUnique(
    catalogueHandlers(ctx),
    addressHandlers(ctx),
    appHandlers(ctx),
    keysHandlers(ctx),
    reconcileHandlers(ctx),
    ticketsHandlers(ctx),
    ledgerHandlers(ctx),
  );
  const missing = Object.keys(contract).filter((name) => !(name in handlers));
  if (missing.length) throw new Error(`handlers missing for: ${missing.join(', ')}`);
  for (const name of Object.keys(handlers) as HandlerName[]) {
    if (READ_ONLY.has(name)) continue;
    const fn = handlers[name] as (input: unknown, meta: CallMeta) => unknown;
    (handlers as Record<string, unknown>)[name] = async (input: unknown, meta: CallMeta) => {
      await ctx.writes.idle();
      try {
        return await fn(input, meta);
      } finally {
        ctx.lookups.afterWrite();
      }
    };
  }
  return handlers;
}

/**
 * Handlers that only read. Every other one may write, so it first waits (without blocking the
 * thread) while an import holds the write lock: see write-gate.ts. A reader missing here only
 * waits when it need not; a writer missing here would block the thread.
 */
const READ_ONLY: ReadonlySet<HandlerName> = new Set<HandlerName>([
  'address-check',
  'address-verify',
  'app-explorer-link',
  'app-info',
  'catalogue-chains-list',
  'catalogue-tokens-list',
  'import-get',
  'imports-list',
  'keys-list',
  'ledger-detect',
  'ledger-presets-list',
  'reconcile-books-detect',
  'run-get',
  'runs-list',
  'ticket-get',
  'ticket-lookup',
  'tickets-list',
  'transaction-get',
  'transactions-list',
  'wallets-list',
]);

export const isHandlerName = (name: string): name is HandlerName => Object.hasOwn(contract, name);

/** Validate raw input against the contract and run the handler: the path IPC and /app/rpc take. */
export async function invokeHandler<N extends HandlerName>(
  handlers: Handlers,
  name: N,
  rawInput: unknown,
  meta: CallMeta,
): Promise<HandlerResult<N>> {
  const input = parseInput(contract[name].input, rawInput);
  const fn = handlers[name] as (input: unknown, meta: CallMeta) => unknown;
  return (await fn(input, meta)) as HandlerResult<N>;
}
