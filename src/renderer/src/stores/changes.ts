import { actorLabel } from '../../../shared/actors';
import { create } from 'zustand';
import type { ChangeTopic, StoreChange } from '../../../shared/changes';
import { onStoreChange } from '../api';
import { useReference } from './reference';
import { useAppUser } from './user';

/** A short note of another's change, shown for a few seconds. */
interface ChangeNote {
  id: number;
  text: string;
}

/** How long a note stays, and how many show at once (the oldest goes first). */
const NOTE_MS = 6_000;
const MAX_NOTES = 3;

type Topic = Exclude<ChangeTopic, 'everything'>;

interface ChangesStore {
  /** One more each time others changed the topic's data: views put it in what they load by, and reload. */
  ticks: Record<Topic, number>;
  notes: ChangeNote[];
  /** Start hearing the service's changes (once, for the window's life). */
  start: () => void;
  dismiss: (id: number) => void;
}

let started = false;
let nextNote = 1;
/** Changes heard and not yet applied, and whether a pause is running. */
let pending: StoreChange[] = [];
let pausing = false;

/**
 * Views reload and notes show at most once a second: a local tool verifying all day would
 * otherwise reload the runs list at every request, and fill the corner with notes.
 */
const APPLY_EVERY_MS = 1_000;

/**
 * Others' changes as the window hears them (api's onStoreChange): the views concerned reload, and
 * a short note says what happened and who did it. The window's own changes never come here; a word
 * to reload everything (the stream broke, or the window fell behind) reloads every view, with no note.
 */
export const useChanges = create<ChangesStore>((set, get) => {
  const apply = () => {
    const heard = pending;
    pending = [];
    if (heard.length === 0) {
      pausing = false;
      return;
    }
    const ticks = { ...get().ticks };
    const all = heard.some((c) => c.topic === 'everything');
    for (const topic of Object.keys(ticks) as Topic[]) {
      if (all || heard.some((c) => c.topic === topic)) ticks[topic]++;
    }
    // What several screens pick from is held apart from any one view: it is loaded again here.
    if (ticks.catalogue !== get().ticks.catalogue) useReference.getState().loadChains(true);
    if (ticks.settings !== get().ticks.settings) useAppUser.getState().load(true);
    // An import makes the wallets its file names.
    if (ticks.wallets !== get().ticks.wallets || ticks.imports !== get().ticks.imports) useReference.getState().loadWallets(true);
    const told = heard.filter((c) => c.topic !== 'everything');
    const texts = told.map((c) => (c.actor ? `${c.what} by ${actorLabel(c.actor)}` : c.what));
    const shown =
      texts.length <= MAX_NOTES ? texts : [...texts.slice(0, MAX_NOTES - 1), `and ${texts.length - MAX_NOTES + 1} more changes by others`];
    const notes = shown.map((text) => ({ id: nextNote++, text }));
    for (const n of notes) window.setTimeout(() => get().dismiss(n.id), NOTE_MS);
    set({ ticks, notes: [...get().notes, ...notes].slice(-MAX_NOTES) });
    pausing = true;
    window.setTimeout(apply, APPLY_EVERY_MS);
  };
  return {
    ticks: { tickets: 0, imports: 0, runs: 0, catalogue: 0, settings: 0, checks: 0, wallets: 0, mappings: 0 },
    notes: [],
    start: () => {
      if (started) return;
      started = true;
      onStoreChange((c) => {
        pending.push(c);
        if (!pausing) apply();
      });
    },
    dismiss: (id) => set({ notes: get().notes.filter((n) => n.id !== id) }),
  };
});

/** A key that changes whenever others changed any of these topics: for a view's useQuery key. */
export function useChangeKey(...topics: Topic[]): string {
  return useChanges((s) => topics.map((t) => s.ticks[t]).join('.'));
}
