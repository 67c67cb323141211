import { create } from 'zustand';

export const SCREENS = ['ledger', 'reconcile', 'tickets', 'balances', 'wallets', 'catalogue', 'address', 'settings'] as const;
export type Screen = (typeof SCREENS)[number];

export interface Route {
  screen: Screen;
  /** The screen's tab or step, e.g. 'import' in #/ledger/import. */
  sub: string;
  /** An id the screen shows, e.g. a run or a ticket. */
  id: string;
}

function parseHash(hash: string): Route {
  const [screen = '', sub = '', id = ''] = hash
    .replace(/^#\/?/, '')
    .split('/')
    .map((p) => decodeURIComponent(p));
  return { screen: (SCREENS as readonly string[]).includes(screen) ? (screen as Screen) : 'ledger', sub, id };
}

const routeHash = (r: Partial<Route> & { screen: Screen }): string =>
  '#/' +
  [r.screen, r.sub ?? '', r.id ?? '']
    .filter((p, i, all) => p !== '' || all.slice(i).some((q) => q !== ''))
    .map(encodeURIComponent)
    .join('/');

interface RouteStore extends Route {
  /** Move to a place; `replace` steps within a list without filling the back history. */
  go: (r: Partial<Route> & { screen: Screen }, opts?: { replace?: boolean }) => void;
}

/** Where the window is, kept in the URL's hash so a reload (and a test) lands on the same screen. */
export const useRoute = create<RouteStore>(() => ({
  ...parseHash(window.location.hash),
  go: (r, opts) => {
    const hash = routeHash(r);
    if (window.location.hash === hash) return;
    if (opts?.replace) {
      window.history.replaceState(null, '', hash);
      useRoute.setState(parseHash(hash));
    } else {
      window.location.hash = hash;
    }
  },
}));

window.addEventListener('hashchange', () => useRoute.setState(parseHash(window.location.hash)));
