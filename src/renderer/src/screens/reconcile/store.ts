import { create } from 'zustand';
import {
  DEFAULT_AMOUNT_DELTA,
  DEFAULT_TIME_DELTA,
  type BooksColumnField,
  type BooksDetected,
  type BooksPreview,
  type BooksRunResult,
  type BooksTranslatedField,
  type BooksSource,
  type TimeType,
  type VerifyField,
} from '../../../../shared/reconcile';
import type { z } from 'zod';
import type { BooksMapping } from '../../../../shared/reconcile';
import { call, errorText, fileSource, type Progress } from '../../api';
import { previousMonth } from '../../lib/format';

type MappingIn = z.input<typeof BooksMapping>;

interface RunWizard {
  step: 'choose' | 'map';
  file?: { name: string; size: number };
  source?: BooksSource;
  detect?: BooksDetected;
  mapping: MappingIn;
  /** The first rows as the mapping reads them; refreshed as the mapping changes. */
  preview?: BooksPreview;
  previewError?: string;
  previewing: boolean;
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
  setColumn: (field: BooksColumnField, header: string) => void;
  setTranslation: (field: BooksTranslatedField, from: string, to: string) => void;
  setConstant: (field: VerifyField, value: string) => void;
  patch: (
    p: Partial<Pick<RunWizard, 'amountDelta' | 'timeType' | 'timeDelta' | 'walletId' | 'label' | 'twoWay' | 'periodFrom' | 'periodTo'>>,
  ) => void;
  patchMapping: (p: Partial<MappingIn>) => void;
  run: () => Promise<BooksRunResult | undefined>;
}

const START: RunWizard = {
  step: 'choose',
  mapping: {},
  previewing: false,
  amountDelta: DEFAULT_AMOUNT_DELTA,
  timeType: 'Created',
  timeDelta: String(DEFAULT_TIME_DELTA),
  walletId: '',
  label: '',
  twoWay: true,
  periodFrom: previousMonth().from,
  periodTo: previousMonth().to,
};

/** The preview reads the head of the file (the service decides from the same rows): a picked file's text is cut to it. */
const PREVIEW_BYTES = 256 * 1024;
function headOf(source: BooksSource): BooksSource {
  if ('path' in source || source.text.length <= PREVIEW_BYTES) return source;
  const cut = source.text.slice(0, PREVIEW_BYTES);
  return { name: source.name, text: cut.slice(0, cut.lastIndexOf('\n') + 1) };
}

const PREVIEW_DELAY_MS = 200;
let previewTimer: ReturnType<typeof setTimeout> | undefined;
/** Answers of earlier mappings that arrive late are dropped. */
let previewSeq = 0;

export const useRunWizard = create<RunWizard & RunActions>((set, get) => {
  const refreshPreview = (delay = PREVIEW_DELAY_MS) => {
    clearTimeout(previewTimer);
    const seq = ++previewSeq;
    set({ previewing: true });
    previewTimer = setTimeout(() => {
      const s = get();
      if (!s.source) return;
      // The wallet's chains decide which token a currency symbol is.
      call('reconcile-books-preview', { source: headOf(s.source), mapping: s.mapping, ...(s.walletId ? { wallet_id: s.walletId } : {}) })
        .then((preview) => {
          if (seq === previewSeq) set({ preview, previewError: undefined, previewing: false });
        })
        .catch((err: unknown) => {
          if (seq === previewSeq) set({ preview: undefined, previewError: errorText(err), previewing: false });
        });
    }, delay);
  };
  const setMapping = (mapping: MappingIn) => {
    set({ mapping });
    refreshPreview();
  };
  return {
    ...START,
    reset: () => {
      previewSeq++;
      set({ ...START, last: get().last });
    },
    chooseFile: async (file) => {
      set({ ...START, last: get().last, file: { name: file.name, size: file.size }, busy: 'detect' });
      try {
        const source = await fileSource(file);
        const detect = await call('reconcile-books-detect', { source });
        set({ source, detect, mapping: detect.suggested, label: file.name, step: 'map', busy: undefined });
        refreshPreview(0);
      } catch (err) {
        set({ busy: undefined, error: errorText(err) });
      }
    },
    setColumn: (field, header) => {
      const columns = { ...(get().mapping.columns ?? {}) };
      if (header) columns[field] = header;
      else delete columns[field];
      setMapping({ ...get().mapping, columns });
    },
    setTranslation: (field, from, to) => {
      const translations = { ...(get().mapping.translations ?? {}) };
      const table = { ...(translations[field] ?? {}) };
      if (to.trim()) table[from] = to.trim();
      else delete table[from];
      if (Object.keys(table).length) translations[field] = table;
      else delete translations[field];
      setMapping({ ...get().mapping, translations });
    },
    setConstant: (field, value) => {
      const constants = { ...(get().mapping.constants ?? {}) };
      if (value) constants[field] = value;
      else delete constants[field];
      setMapping({ ...get().mapping, constants });
    },
    patch: (p) => {
      const walletChanged = p.walletId !== undefined && p.walletId !== get().walletId;
      set(p);
      if (walletChanged && get().source) refreshPreview();
    },
    patchMapping: (p) => setMapping({ ...get().mapping, ...p }),
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
  };
});
