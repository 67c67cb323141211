import { create } from 'zustand';
import type { AppInfo } from '../../../shared/app';
import type { Chain } from '../../../shared/catalogue';
import type { WalletSummary } from '../../../shared/wallets';
import { call, errorText } from '../api';

interface Loadable<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
}

const idle = <T>(): Loadable<T> => ({ data: undefined, error: undefined, loading: false });

interface ReferenceStore {
  chains: Loadable<Chain[]>;
  wallets: Loadable<WalletSummary[]>;
  app: Loadable<AppInfo>;
  loadChains: (force?: boolean) => void;
  loadWallets: (force?: boolean) => void;
  loadApp: (force?: boolean) => void;
}

async function allChains(): Promise<Chain[]> {
  const out: Chain[] = [];
  for (let page = 1; ; page++) {
    const r = await call('catalogue-chains-list', { page, page_size: 100 });
    out.push(...r.chains);
    if (out.length >= r.total || r.chains.length === 0) return out;
  }
}

/** What several screens pick from: the chains, the wallets, the app's own facts. Loaded once, refreshed on demand. */
export const useReference = create<ReferenceStore>((set, get) => {
  /** Lists asked for again while they loaded (another window changed them meanwhile): loaded once more after. */
  const again = new Set<string>();
  const loader = <K extends 'chains' | 'wallets' | 'app'>(key: K, fetch: () => Promise<NonNullable<ReferenceStore[K]['data']>>) => {
    const load = (force = false) => {
      const cur = get()[key];
      if (cur.loading && force) again.add(key);
      if (cur.loading || (cur.data !== undefined && !force)) return;
      set({ [key]: { ...cur, loading: true, error: undefined } } as Partial<ReferenceStore>);
      const after = () => {
        if (again.delete(key)) load(true);
      };
      fetch().then(
        (data) => {
          set({ [key]: { data, error: undefined, loading: false } } as Partial<ReferenceStore>);
          after();
        },
        (err: unknown) => {
          set({ [key]: { data: get()[key].data, error: errorText(err), loading: false } } as Partial<ReferenceStore>);
          after();
        },
      );
    };
    return load;
  };
  return {
    chains: idle(),
    wallets: idle(),
    app: idle(),
    loadChains: loader('chains', allChains),
    loadWallets: loader('wallets', () => call('wallets-list', {})),
    loadApp: loader('app', () => call('app-info', {})),
  };
});

export const chainById = (chains: Chain[] | undefined, id: string): Chain | undefined => chains?.find((c) => c.chain_id === id);
