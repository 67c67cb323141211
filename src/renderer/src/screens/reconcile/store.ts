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
  type SavedMapping,
  type SavedMappingListed,
  type TimeType,
  type VerifyField,
} from '../../../../shared/reconcile';
import { call, errorText, fileSource, type Progress } from '../../api';
import { nextPeriod, previousMonth } from '../../lib/format';
import { withColumn, withConstant, withTranslation, type MappingIn } from './mapping-editor';

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
  /** The saved mapping the mapping came from (proposed for the file's layout, or picked), and whether it was changed since. */
  saved?: SavedMapping;
  edited: boolean;
  /** Every saved mapping, the file's layout's first. */
  savedList?: SavedMappingListed[];
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
  setMapping: (m: MappingIn) => void;
  /** Read the file with a saved mapping (its ID), or with the first guess from the header (''). */
  useSaved: (mappingId: string) => void;
  /** Keep the mapping and this run's options under a name (replacing the mapping of that name when asked). */
  saveAs: (name: string, replace: boolean) => Promise<SavedMapping>;
  /** Read the saved mappings again (they may have been edited in Saved mappings). */
  refreshSaved: () => Promise<void>;
  run: () => Promise<BooksRunResult | undefined>;
}

const START: RunWizard = {
  step: 'choose',
  mapping: {},
  edited: false,
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
    set({ mapping, edited: true });
    refreshPreview();
  };
  /** The saved mapping and what its last run was given: tolerances, wallet, two-way, the next period. */
  const fromSaved = (saved: SavedMapping): Partial<RunWizard> => {
    const o = saved.options;
    const period = nextPeriod(o);
    return {
      saved,
      edited: false,
      mapping: saved.mapping,
      walletId: saved.wallet_id ?? '',
      amountDelta: o.amount_delta ?? DEFAULT_AMOUNT_DELTA,
      timeType: o.time_type ?? 'Created',
      timeDelta: String(o.time_delta ?? DEFAULT_TIME_DELTA),
      twoWay: o.two_way ?? true,
      periodFrom: period.from,
      periodTo: period.to,
    };
  };
  const loadSavedList = async () => {
    const headers = get().detect?.headers;
    try {
      const savedList = await call('books-mappings-list', {
        ...(headers ? { headers } : {}),
        ...(get().walletId ? { wallet_id: get().walletId } : {}),
      });
      // The mapping on screen follows an edit made in Saved mappings, unless it was changed here too.
      const s = get();
      const current = s.saved && savedList.find((m) => m.mapping_id === s.saved!.mapping_id);
      if (s.saved && !current) set({ savedList, saved: undefined, edited: true });
      else if (current && current.updated_at !== s.saved!.updated_at && !s.edited) {
        set({ savedList, saved: current, mapping: current.mapping });
        refreshPreview(0);
      } else set({ savedList, ...(current ? { saved: current } : {}) });
    } catch {
      // The list is a convenience: the run does not need it, and the failure of a call says itself elsewhere.
    }
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
        set({
          source,
          detect,
          mapping: detect.suggested,
          label: file.name,
          step: 'map',
          busy: undefined,
          ...(detect.saved ? fromSaved(detect.saved) : {}),
        });
        refreshPreview(0);
        void loadSavedList();
      } catch (err) {
        set({ busy: undefined, error: errorText(err) });
      }
    },
    setColumn: (field, header) => setMapping(withColumn(get().mapping, field, header)),
    setTranslation: (field, from, to) => setMapping(withTranslation(get().mapping, field, from, to)),
    setConstant: (field, value) => setMapping(withConstant(get().mapping, field, value)),
    patch: (p) => {
      const s = get();
      set(p);
      if (p.walletId === undefined || p.walletId === s.walletId || !s.source) return;
      // Another wallet: its own mapping of this layout, while the one shown is a saved one left as it was.
      const own = s.edited ? undefined : s.savedList?.find((m) => m.same_layout && (m.wallet_id ?? '') === p.walletId);
      if (own && own.mapping_id !== s.saved?.mapping_id) set({ saved: own, mapping: own.mapping, edited: false });
      // The wallet decides which token a currency symbol is: the preview is read again.
      refreshPreview();
    },
    patchMapping: (p) => setMapping({ ...get().mapping, ...p }),
    setMapping,
    useSaved: (mappingId) => {
      const s = get();
      if (!s.detect) return;
      const saved = s.savedList?.find((m) => m.mapping_id === mappingId);
      if (saved) set(fromSaved(saved));
      else set({ saved: undefined, edited: false, mapping: s.detect.suggested });
      refreshPreview(0);
    },
    refreshSaved: loadSavedList,
    saveAs: async (name, replace) => {
      const s = get();
      const saved = await call('books-mapping-save', {
        name,
        replace,
        headers: s.detect!.headers,
        wallet_id: s.walletId || null,
        mapping: s.mapping,
        options: {
          amount_delta: s.amountDelta.trim() || DEFAULT_AMOUNT_DELTA,
          time_type: s.timeType,
          time_delta: s.timeDelta.trim() === '' ? DEFAULT_TIME_DELTA : Number(s.timeDelta),
          two_way: s.twoWay,
          ...(s.twoWay && s.periodFrom ? { from: s.periodFrom } : {}),
          ...(s.twoWay && s.periodTo ? { to: s.periodTo } : {}),
        },
      });
      set({ saved, edited: false });
      await loadSavedList();
      return saved;
    },
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
