import { create } from 'zustand';
import { call, errorText } from '../api';

interface UserStore {
  /** The named local user; "" while unnamed; undefined until loaded. */
  name: string | undefined;
  error: string | undefined;
  /** Load the name once; `force`: again (another window may have changed it). */
  load: (force?: boolean) => void;
  /** Name the user (the service trims and checks it); answers the name kept. */
  save: (name: string) => Promise<string>;
}

/**
 * Answers in order: each read takes a number as it is sent, a save as it is answered; an answer is
 * shown only when none with a later number was. A read sent before this window's save was answered
 * (or before another window's change) can come back after it, with the name as it was.
 */
let issued = 0;
let shown = 0;

/** Who acts in this window, as every ticket event records it: set once (Settings, or the first resolve or dismiss). */
export const useAppUser = create<UserStore>((set, get) => ({
  name: undefined,
  error: undefined,
  load: (force = false) => {
    if (get().name !== undefined && !force) return;
    const mine = ++issued;
    call('app-user-get', {}).then(
      (u) => {
        if (mine < shown) return;
        shown = mine;
        set({ name: u.name, error: undefined });
      },
      (err: unknown) => {
        if (mine > shown) set({ error: errorText(err) });
      },
    );
  },
  save: async (name) => {
    const u = await call('app-user-set', { name });
    shown = ++issued;
    set({ name: u.name, error: undefined });
    return u.name;
  },
}));
