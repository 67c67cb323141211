import { create } from 'zustand';
import type { ChangeTopic, StoreChange } from '../../../shared/changes';
import { onStoreChange } from '../api';

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

/**
 * Others' changes as the window hears them (api's onStoreChange): the views concerned reload, and
 * a short note says what happened and who did it. The window's own changes never come here; a word
 * to reload everything (the stream broke, or the window fell behind) reloads every view, with no note.
 */
export const useChanges = create<ChangesStore>((set, get) => ({
  ticks: { tickets: 0, imports: 0, runs: 0 },
  notes: [],
  start: () => {
    if (started) return;
    started = true;
    onStoreChange((c: StoreChange) => {
      const { ticks, notes } = get();
      if (c.topic === 'everything') {
        set({ ticks: { tickets: ticks.tickets + 1, imports: ticks.imports + 1, runs: ticks.runs + 1 } });
        return;
      }
      const note = { id: nextNote++, text: c.actor ? `${c.what} by ${c.actor}` : c.what };
      set({ ticks: { ...ticks, [c.topic]: ticks[c.topic] + 1 }, notes: [...notes, note].slice(-MAX_NOTES) });
      window.setTimeout(() => get().dismiss(note.id), NOTE_MS);
    });
  },
  dismiss: (id) => set({ notes: get().notes.filter((n) => n.id !== id) }),
}));

/** A key that changes whenever others changed any of these topics: for a view's useQuery key. */
export function useChangeKey(...topics: Topic[]): string {
  return useChanges((s) => topics.map((t) => s.ticks[t]).join('.'));
}
