import { create } from 'zustand';
import { call, errorText } from '../api';

interface UserStore {
  /** The named local user; "" while unnamed; undefined until loaded. */
  name: string | undefined;
  error: string | undefined;
  load: () => void;
  /** Name the user (the service trims and checks it); answers the name kept. */
  save: (name: string) => Promise<string>;
}

/** Who acts in this window, as every ticket event records it: set once (Settings, or the first resolve or dismiss). */
export const useAppUser = create<UserStore>((set, get) => ({
  name: undefined,
  error: undefined,
  load: () => {
    if (get().name !== undefined) return;
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
