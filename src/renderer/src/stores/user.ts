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

/** Who acts in this window, as every ticket event records it: set once (Settings, or the first resolve or dismiss). */
export const useAppUser = create<UserStore>((set, get) => ({
  name: undefined,
  error: undefined,
  load: (force = false) => {
    if (get().name !== undefined && !force) return;
    call('app-user-get', {}).then(
      (u) => set({ name: u.name, error: undefined }),
      (err: unknown) => set({ error: errorText(err) }),
    );
  },
  save: async (name) => {
    const u = await call('app-user-set', { name });
    set({ name: u.name, error: undefined });
    return u.name;
  },
}));
