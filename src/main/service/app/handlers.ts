import type { ApiServerState, AppMode, appContract } from '../../../shared/app';
import type { HandlersOf, ServiceContext } from '../context';
import { invalidParam } from '../errors';
import { requireChain } from '../catalogue/handlers';
import { explorerUrl } from '../catalogue/explorer';

/** What only the process that started the service knows: how the window talks to it, and its HTTP server. */
export interface AppRuntime {
  mode: AppMode;
  version: string;
  api: ApiServerState;
}

const STOPPED: ApiServerState = { state: 'stopped', base_url: null, host: null, port: null, error: null };

const runtimes = new WeakMap<ServiceContext, AppRuntime>();

/** Called by whoever starts the service and its server (CLI serve, the Electron shell) whenever that changes. */
export function reportRuntime(ctx: ServiceContext, runtime: Partial<AppRuntime>): void {
  runtimes.set(ctx, { ...currentRuntime(ctx), ...runtime });
}

function currentRuntime(ctx: ServiceContext): AppRuntime {
  return runtimes.get(ctx) ?? { mode: 'headless', version: '0.0.0', api: STOPPED };
}

export function appHandlers(ctx: ServiceContext): HandlersOf<typeof appContract> {
  return {
    'app-info': () => {
      const rt = currentRuntime(ctx);
      return { version: rt.version, mode: rt.mode, data_dir: ctx.dataDir, db_file: ctx.db.$client.name, api: rt.api };
    },
    'app-user-get': () => ({ name: ctx.user.name }),
    'app-user-set': ({ name }) => {
      ctx.user.set(name, ctx.now());
      return { name };
    },
    'app-explorer-link': ({ chain_id, kind, value }) => {
      const chain = requireChain(ctx, chain_id);
      const url =
        kind === 'tx' ? explorerUrl(chain.explorer_tx_url, '{hash}', value) : explorerUrl(chain.explorer_address_url, '{address}', value);
      if (!url)
        throw invalidParam('chain_id', `${chain_id} has no https explorer template for ${kind === 'tx' ? 'transactions' : 'addresses'}`);
      return { url };
    },
  };
}
