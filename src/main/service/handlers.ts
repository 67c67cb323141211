import { contract, mergeUnique, type Contract, type HandlerName, type HandlerResult, type HandlerSpec } from '../../shared/contract';
import { addressHandlers } from './addresses/handlers';
import { appHandlers } from './app/handlers';
import { catalogueHandlers } from './catalogue/handlers';
import { keysHandlers } from './keys/handlers';
import { reconcileHandlers } from './reconcile/handlers';
import { retentionHandlers } from './reconcile/retention';
import { ticketsHandlers } from './tickets/handlers';
import { actorOf } from './tickets/rules';
import type { CallMeta, HandlersOf, ServiceContext } from './context';
import { parseInput } from './errors';
import { ledgerHandlers } from './ledger/handlers';
import { walletsHandlers } from './ledger/wallets';
import { balancesHandlers, type BalanceExceptions } from './ledger/balances';
import { raiseExceptions, resolvePendingException } from './tickets/repository';
import { onchainHandlers } from './onchain/handlers';
import type { CheckOptions } from './onchain/checks';
import { announceChange, changeOf } from './changes';

export type Handlers = HandlersOf<Contract>;

/** A balance check's difference, opened in the exception queue or settled there (the ledger sits below tickets/). */
const balanceExceptions = (ctx: ServiceContext): BalanceExceptions => ({
  raise: (e, meta) =>
    ctx.db.$client.transaction(
      () =>
        raiseExceptions(ctx.db, [
          { ...e, kind: 'balance', transaction_id: '', run_id: null, actor: actorOf(ctx, meta), at: ctx.now() },
        ])[0]!,
    )(),
  settle: (subject, reason, meta) => resolvePendingException(ctx.db, 'balance', subject, reason, actorOf(ctx, meta), ctx.now()),
});

/** The one handler map: every domain's handlers, each name once (a repeat throws at start). */
export function createHandlers(ctx: ServiceContext, opts: { onchain?: CheckOptions } = {}): Handlers {
  const handlers = mergeUnique(
    catalogueHandlers(ctx),
    addressHandlers(ctx),
    appHandlers(ctx),
    keysHandlers(ctx),
    reconcileHandlers(ctx),
    retentionHandlers(ctx),
    ticketsHandlers(ctx),
    ledgerHandlers(ctx, actorOf),
    walletsHandlers(ctx),
    balancesHandlers(ctx, balanceExceptions(ctx)),
    onchainHandlers(ctx, opts.onchain),
  );
  const missing = Object.keys(contract).filter((name) => !(name in handlers));
  if (missing.length) throw new Error(`handlers missing for: ${missing.join(', ')}`);
  for (const name of Object.keys(handlers) as HandlerName[]) {
    const spec: HandlerSpec = contract[name];
    if (spec.readOnly) continue;
    const fn = handlers[name] as (input: unknown, meta: CallMeta) => unknown;
    // A call that may write runs when the store is writable, unless it defers its writes (engine/README.md)
    // or writes only the data folder's own files.
    const run = spec.folderOnly
      ? <T>(call: () => T | Promise<T>) => Promise.resolve().then(call)
      : spec.defersWrites
        ? ctx.engine.writeOrDefer.bind(ctx.engine)
        : ctx.engine.write.bind(ctx.engine);
    (handlers as Record<string, unknown>)[name] = async (input: unknown, meta: CallMeta) => {
      // Who acts, as they were named when they acted (a change of the name is by its old one).
      const actor = actorOf(ctx, meta);
      const result = await run(() => fn(input, meta));
      // Once it has succeeded, whichever door it came through: the other windows hear of it (changes.ts).
      const change = changeOf(name, input, result);
      if (change) {
        const word = { ...change, actor, at: ctx.now() };
        // Writes deferred while an import holds the store land after it: announced then, so that a
        // window reloading on the word finds them.
        if (spec.defersWrites && ctx.engine.importing) void ctx.engine.writable().then(() => announceChange(ctx, word, meta.window));
        else announceChange(ctx, word, meta.window);
      }
      return result;
    };
  }
  return handlers;
}

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
