import { create } from 'zustand';
import {
  DEFAULT_AMOUNT_DELTA,
  DEFAULT_TIME_DELTA,
  type BooksDetected,
  type BooksRunResult,
  type BooksSource,
  type TimeType,
  type VerifyField,
} from '../../../../shared/reconcile';
import type { z } from 'zod';
import type { BooksMapping } from '../../../../shared/reconcile';
import { call, errorText, fileSource, type Progress } from '../../api';

type MappingIn = z.input<typeof BooksMapping>;

interface RunWizard {
  step: 'choose' | 'map';
  file?: { name: string; size: number };
  source?: BooksSource;
  detect?: BooksDetected;
  mapping: MappingIn;
  amountDelta: string;
  timeType: TimeType;
  timeDelta: string;
  walletId: string;
  label: string;
  /** Two-way: the ledger side of the period is checked too (YYYY-MM-DD, UTC, both days included; empty: open). */
  twoWay: boolean;
  periodFrom: string;
  periodTo: string;
  busy?: 'detect' | 'run';
  progress?: Progress;
  error?: string;
  /** The last finished run of this window, with the books rows that could not be read. */
  last?: BooksRunResult;
}

interface RunActions {
  reset: () => void;
  chooseFile: (f: File) => Promise<void>;
  setColumn: (field: VerifyField, header: string) => void;
  setConstant: (field: VerifyField, value: string) => void;
  patch: (
    p: Partial<Pick<RunWizard, 'amountDelta' | 'timeType' | 'timeDelta' | 'walletId' | 'label' | 'twoWay' | 'periodFrom' | 'periodTo'>>,
  ) => void;
  patchMapping: (p: Partial<MappingIn>) => void;
  run: () => Promise<BooksRunResult | undefined>;
}

/** The previous calendar month, as YYYY-MM-DD: the period a month-end close usually covers. */
function lastMonth(now = new Date()): { from: string; to: string } {
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0));
  return { from: first.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) };
}

const START: RunWizard = {
  step: 'choose',
  mapping: {},
  amountDelta: DEFAULT_AMOUNT_DELTA,
  timeType: 'Created',
  timeDelta: String(DEFAULT_TIME_DELTA),
  walletId: '',
  label: '',
  twoWay: true,
  periodFrom: lastMonth().from,
  periodTo: lastMonth().to,
};

export const useRunWizard = create<RunWizard & RunActions>((set, get) => ({
  ...START,
  reset: () => set({ ...START, last: get().last }),
  chooseFile: async (file) => {
    set({ ...START, last: get().last, file: { name: file.name, size: file.size }, busy: 'detect' });
    try {
      const source = await fileSource(file);
      const detect = await call('reconcile-books-detect', { source });
      set({ source, detect, mapping: detect.suggested, label: file.name, step: 'map', busy: undefined });
    } catch (err) {
      set({ busy: undefined, error: errorText(err) });
    }
  },
  setColumn: (field, header) => {
    const columns = { ...(get().mapping.columns ?? {}) };
    if (header) columns[field] = header;
    else delete columns[field];
    set({ mapping: { ...get().mapping, columns } });
  },
  setConstant: (field, value) => {
    const constants = { ...(get().mapping.constants ?? {}) };
    if (value) constants[field] = value;
    else delete constants[field];
    set({ mapping: { ...get().mapping, constants } });
  },
  patch: (p) => set(p),
  patchMapping: (p) => set({ mapping: { ...get().mapping, ...p } }),
  run: async () => {
    const s = get();
    if (!s.source) return undefined;
    set({ busy: 'run', error: undefined, progress: undefined });
    try {
      const result = await call(
        'reconcile-books-run',
        {
          source: s.source,
          mapping: s.mapping,
          ...(s.walletId ? { wallet_id: s.walletId } : {}),
          amount_delta: s.amountDelta.trim() || DEFAULT_AMOUNT_DELTA,
          time_type: s.timeType,
          time_delta: s.timeDelta.trim() === '' ? DEFAULT_TIME_DELTA : Number(s.timeDelta),
          ...(s.label.trim() ? { label: s.label.trim() } : {}),
          two_way: s.twoWay,
          ...(s.twoWay && s.periodFrom ? { from: s.periodFrom } : {}),
          ...(s.twoWay && s.periodTo ? { to: s.periodTo } : {}),
        },
        { onProgress: (progress) => set({ progress }) },
      );
      set({ ...START, last: result });
      return result;
    } catch (err) {
      set({ busy: undefined, error: errorText(err) });
      return undefined;
    }
  },
}));
