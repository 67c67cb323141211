import { create } from 'zustand';
import type { Chain, Token } from '../../../../shared/catalogue';
import type { HandlerInput } from '../../../../shared/contract';
import type {
  ImportChoices,
  ImportReport,
  LedgerDetectResult,
  LedgerPreset,
  LedgerSource,
  MappingConstant,
  MappingInput,
  MappingInputJson,
} from '../../../../shared/ledger';
import { call, errorText, fileSource, type Progress } from '../../api';
import { useReference } from '../../stores/reference';

export type WizardStep = 'choose' | 'map' | 'preview' | 'done';

/** One token's addition: the token as the catalogue took it, or the service's reason for refusing it. */
export type TokenAddResult = { token: Token; error?: undefined } | { token?: undefined; error: string };

interface Wizard {
  step: WizardStep;
  file?: { name: string; size: number };
  source?: LedgerSource;
  /** The latest answer of ledger-detect for the choices below (one step behind while `checking`). */
  detect?: LedgerDetectResult;
  /** The preset the file's header fitted when it was chosen (detect answers null once the mapping is custom). */
  detectedPreset: string | null;
  presets?: LedgerPreset[];
  /** The preset in use; 'custom' once the mapping has been changed by hand. */
  preset: string;
  mapping: MappingInputJson;
  walletId: string;
  /** The name of the wallet every row goes to when no walletId is chosen: an existing wallet's, or a new one's; null: not naming one. */
  walletName: string | null;
  walletAddress: string;
  /** What the user stated that the file does not say; sent as they are with detect, preview and import. */
  choices: ImportChoices;
  /** The chains the file's chain question offered, kept once it is answered so that the answer can be changed. */
  chainOptions: string[];
  /** A choice changed and the file is being read again with it. */
  checking: boolean;
  /** Why the last reading with the current choices failed (cleared as soon as a choice changes). */
  detectError?: string;
  busy?: 'detect' | 'preview' | 'import';
  progress?: Progress;
  error?: string;
  preview?: ImportReport;
  report?: ImportReport;
  /** Tokens added to the catalogue from this wizard since the file was last previewed from the mapping, or imported. */
  addedTokens: Token[];
  /**
   * The catalogue changed after the preview shown was made (a token added on the Preview step): its
   * counts are stale until the preview that is being made again comes in, and Import waits for it.
   */
  previewStale: boolean;
  /** Chains added to the catalogue from this wizard for this file. */
  addedChains: Chain[];
}

interface WizardActions {
  reset: () => void;
  chooseFile: (file: File) => Promise<void>;
  usePreset: (name: string) => void;
  setColumn: (field: MappingInput, header: string) => void;
  setConstant: (field: MappingConstant, value: string) => void;
  patchMapping: (patch: Partial<MappingInputJson>) => void;
  setWallet: (patch: { walletId?: string; walletName?: string | null; walletAddress?: string }) => void;
  /** Change choices; a key given as undefined is no longer stated. */
  setChoices: (patch: Partial<ImportChoices>) => void;
  /**
   * Add tokens the file names by contract to the catalogue (the user gave each its decimal), one by
   * one, each answering its token or why it was refused; then read the file again once (the first
   * rows on the mapping step, the whole preview on the Preview step).
   */
  addTokens: (tokens: HandlerInput<'catalogue-token-add'>[]) => Promise<TokenAddResult[]>;
  /** Ignore a token's contract (spam): its rows are then skipped and counted; the file is read again. */
  ignoreToken: (token: HandlerInput<'catalogue-token-ignore'>) => Promise<void>;
  /** Add the chain the file's coin is of (the user confirmed it), then read the file again: its chain is then the one added. */
  addChain: (chain: HandlerInput<'catalogue-chain-add'>) => Promise<Chain>;
  back: (to: WizardStep) => void;
  /** keepAdded: the preview is made again for tokens just added, which it then says it read with. */
  runPreview: (opts?: { keepAdded?: boolean }) => Promise<void>;
  runImport: () => Promise<void>;
}

const START: Wizard = {
  step: 'choose',
  detectedPreset: null,
  preset: 'custom',
  mapping: {},
  walletId: '',
  walletName: null,
  walletAddress: '',
  choices: {},
  chainOptions: [],
  checking: false,
  addedTokens: [],
  previewStale: false,
  addedChains: [],
  // Named so that starting again clears them (set() merges).
  file: undefined,
  source: undefined,
  detect: undefined,
  detectError: undefined,
  busy: undefined,
  progress: undefined,
  error: undefined,
  preview: undefined,
  report: undefined,
};

/** Changes in quick succession (an offset typed, columns mapped one after another) read the file once, after the last. */
const DETECT_DELAY_MS = 350;

/** The import in progress lives outside the screen, so leaving the Ledger mid-import loses nothing. */
export const useImportWizard = create<Wizard & WizardActions>((set, get) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Each reading is numbered; an answer for choices that have changed since is dropped.
  let generation = 0;
  // Likewise each preview: one made again while another runs answers instead of it.
  let previewGeneration = 0;

  const request = () => {
    const s = get();
    const choices = Object.fromEntries(Object.entries(s.choices).filter(([, v]) => v !== undefined)) as ImportChoices;
    return {
      source: s.source!,
      ...(s.preset === 'custom' ? { mapping: s.mapping } : { preset: s.preset }),
      ...(s.walletId ? { wallet_id: s.walletId } : s.walletName?.trim() ? { wallet_name: s.walletName.trim() } : {}),
      ...(s.walletAddress.trim() ? { wallet_address: s.walletAddress.trim() } : {}),
      ...choices,
    };
  };

  const remember = (detect: LedgerDetectResult, preset = get().preset): Partial<Wizard> => {
    const chain = detect.needs.find((n) => n.field === 'chain_id');
    return {
      detect,
      ...(chain && chain.options.length ? { chainOptions: chain.options } : {}),
      // A preset's mapping as this file's header fits it (with what was read or chosen), shown in the mapping table.
      ...(preset !== 'custom' ? { mapping: detect.mapping } : {}),
    };
  };

  const detectNow = async () => {
    clearTimeout(timer);
    const mine = ++generation;
    if (!get().source) return;
    set({ checking: true });
    try {
      const detect = await call('ledger-detect', request());
      if (mine !== generation) return;
      set({ ...remember(detect), checking: false, detectError: undefined });
    } catch (err) {
      if (mine !== generation) return;
      set({ checking: false, detectError: errorText(err) });
    }
  };

  /**
   * Something the reading depends on changed: what was shown for the old choices is stale from now on,
   * and so are the failures that were about them (a new reading reports its own).
   */
  const changed = (patch: Partial<Wizard>) => {
    generation++;
    set({ ...patch, checking: true, error: undefined, detectError: undefined, preview: undefined });
    clearTimeout(timer);
    timer = setTimeout(() => void detectNow(), DETECT_DELAY_MS);
  };

  const edit = (mapping: MappingInputJson) => changed({ mapping, preset: 'custom' });

  return {
    ...START,
    reset: () => {
      clearTimeout(timer);
      generation++;
      previewGeneration++;
      set({ ...START, presets: get().presets });
    },
    chooseFile: async (file) => {
      clearTimeout(timer);
      const mine = ++generation;
      set({ ...START, presets: get().presets, file: { name: file.name, size: file.size }, busy: 'detect' });
      try {
        const source = await fileSource(file);
        const [detect, presets] = await Promise.all([call('ledger-detect', { source }), get().presets ?? call('ledger-presets-list', {})]);
        if (mine !== generation) return;
        const preset = detect.preset ?? 'custom';
        set({
          source,
          presets,
          detectedPreset: detect.preset,
          preset,
          mapping: detect.mapping,
          step: 'map',
          busy: undefined,
          ...remember(detect, preset),
        });
      } catch (err) {
        if (mine !== generation) return;
        set({ busy: undefined, error: errorText(err) });
      }
    },
    usePreset: (name) => {
      // The mapping shown until the file is read with the preset, which fits it to this header.
      const mapping = get().presets?.find((p) => p.name === name)?.mapping ?? get().mapping;
      changed(name === 'custom' ? { preset: name } : { preset: name, mapping });
    },
    setColumn: (field, header) => {
      const columns = { ...(get().mapping.columns ?? {}) };
      if (header) columns[field] = header;
      else delete columns[field];
      edit({ ...get().mapping, columns });
    },
    setConstant: (field, value) => {
      const constants = { ...(get().mapping.constants ?? {}) };
      if (value) constants[field] = value;
      else delete constants[field];
      edit({ ...get().mapping, constants });
    },
    patchMapping: (patch) => edit({ ...get().mapping, ...patch }),
    setWallet: (patch) => changed(patch),
    setChoices: (patch) => changed({ choices: { ...get().choices, ...patch } }),
    addTokens: async (tokens) => {
      const results: TokenAddResult[] = [];
      for (const token of tokens) {
        try {
          results.push({ token: await call('catalogue-token-add', token) });
        } catch (err) {
          results.push({ error: errorText(err) });
        }
      }
      const added = results.flatMap((r) => (r.token ? [r.token] : []));
      if (added.length === 0) return results;
      // The catalogue the last preview or import was refused with has changed: its failure no longer stands.
      set({ addedTokens: [...get().addedTokens, ...added], error: undefined });
      const step = get().step;
      if (step === 'map') await detectNow();
      // The preview's counts no longer hold: it is made again at once, and Import waits for it.
      else if (step === 'preview') {
        set({ previewStale: true });
        void get().runPreview({ keepAdded: true });
      }
      return results;
    },
    ignoreToken: async (token) => {
      await call('catalogue-token-ignore', token);
      set({ error: undefined });
      const step = get().step;
      if (step === 'map') await detectNow();
      else if (step === 'preview') {
        set({ previewStale: true });
        void get().runPreview({ keepAdded: true });
      }
    },
    addChain: async (chain) => {
      const added = await call('catalogue-chain-add', chain);
      set({ addedChains: [...get().addedChains, added], error: undefined });
      // Its name on every chain list, and in the "Read as" line.
      useReference.getState().loadChains(true);
      await detectNow();
      return added;
    },
    back: (to) => {
      previewGeneration++;
      set({ step: to, error: undefined, busy: undefined, previewStale: false });
      // Tokens may have been added since the file was last read.
      if (to === 'map') void detectNow();
    },
    runPreview: async (opts = {}) => {
      const mine = ++previewGeneration;
      set({ busy: 'preview', error: undefined, progress: undefined });
      try {
        const preview = await call('ledger-preview', request(), {
          onProgress: (progress) => mine === previewGeneration && set({ progress }),
        });
        if (mine !== previewGeneration) return;
        set({ preview, step: 'preview', busy: undefined, previewStale: false, ...(opts.keepAdded ? {} : { addedTokens: [] }) });
      } catch (err) {
        if (mine !== previewGeneration) return;
        set({ busy: undefined, error: errorText(err) });
      }
    },
    runImport: async () => {
      set({ busy: 'import', error: undefined, progress: undefined });
      try {
        const report = await call('ledger-import', request(), { onProgress: (progress) => set({ progress }) });
        set({ report, step: 'done', busy: undefined, addedTokens: [], previewStale: false });
        // The wallets the import created (and named) are shown by name from here on.
        useReference.getState().loadWallets(true);
      } catch (err) {
        set({ busy: undefined, error: errorText(err) });
      }
    },
  };
});
