import { create } from 'zustand';
import type {
  ImportReport,
  LedgerDetectResult,
  LedgerPreset,
  LedgerSource,
  MappingConstant,
  MappingInput,
  MappingInputJson,
} from '../../../../shared/ledger';
import { call, errorText, fileSource, type Progress } from '../../api';

export type WizardStep = 'choose' | 'map' | 'preview' | 'done';

interface Wizard {
  step: WizardStep;
  file?: { name: string; size: number };
  source?: LedgerSource;
  detect?: LedgerDetectResult;
  presets?: LedgerPreset[];
  /** The preset in use; 'custom' once the mapping has been changed by hand. */
  preset: string;
  mapping: MappingInputJson;
  walletId: string;
  walletAddress: string;
  busy?: 'detect' | 'preview' | 'import';
  progress?: Progress;
  error?: string;
  preview?: ImportReport;
  report?: ImportReport;
}

interface WizardActions {
  reset: () => void;
  chooseFile: (file: File) => Promise<void>;
  usePreset: (name: string) => void;
  setColumn: (field: MappingInput, header: string) => void;
  setConstant: (field: MappingConstant, value: string) => void;
  patchMapping: (patch: Partial<MappingInputJson>) => void;
  setWallet: (patch: { walletId?: string; walletAddress?: string }) => void;
  back: (to: WizardStep) => void;
  runPreview: () => Promise<void>;
  runImport: () => Promise<void>;
}

const START: Wizard = { step: 'choose', preset: 'custom', mapping: {}, walletId: '', walletAddress: '' };

/** The import in progress lives outside the screen, so leaving the Ledger mid-import loses nothing. */
export const useImportWizard = create<Wizard & WizardActions>((set, get) => {
  const request = () => {
    const s = get();
    return {
      source: s.source!,
      ...(s.preset === 'custom' ? { mapping: s.mapping } : { preset: s.preset }),
      ...(s.walletId ? { wallet_id: s.walletId } : {}),
      ...(s.walletAddress.trim() ? { wallet_address: s.walletAddress.trim() } : {}),
    };
  };
  const edit = (mapping: MappingInputJson) => set({ mapping, preset: 'custom', preview: undefined });
  return {
    ...START,
    reset: () => set({ ...START }),
    chooseFile: async (file) => {
      set({ ...START, file: { name: file.name, size: file.size }, busy: 'detect' });
      try {
        const source = await fileSource(file);
        const [detect, presets] = await Promise.all([call('ledger-detect', { source }), get().presets ?? call('ledger-presets-list', {})]);
        set({ source, detect, presets, preset: detect.preset ?? 'custom', mapping: detect.mapping, step: 'map', busy: undefined });
      } catch (err) {
        set({ busy: undefined, error: errorText(err) });
      }
    },
    usePreset: (name) => {
      const s = get();
      if (name === 'custom') return set({ preset: 'custom' });
      // The detected preset's mapping was fitted to this file's header; another preset's is its generic one.
      const mapping = name === s.detect?.preset ? s.detect.mapping : (s.presets?.find((p) => p.name === name)?.mapping ?? s.mapping);
      set({ preset: name, mapping, preview: undefined });
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
    setWallet: (patch) => set({ ...patch, preview: undefined }),
    back: (to) => set({ step: to, error: undefined }),
    runPreview: async () => {
      set({ busy: 'preview', error: undefined, progress: undefined });
      try {
        const preview = await call('ledger-preview', request(), { onProgress: (progress) => set({ progress }) });
        set({ preview, step: 'preview', busy: undefined });
      } catch (err) {
        set({ busy: undefined, error: errorText(err) });
      }
    },
    runImport: async () => {
      set({ busy: 'import', error: undefined, progress: undefined });
      try {
        const report = await call('ledger-import', request(), { onProgress: (progress) => set({ progress }) });
        set({ report, step: 'done', busy: undefined });
      } catch (err) {
        set({ busy: undefined, error: errorText(err) });
      }
    },
  };
});
