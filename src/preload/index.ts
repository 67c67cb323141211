import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import type { Envelope, ExplorerTarget, NpsBridge, Progress } from '../shared/bridge';

let nextCallId = 1;

/** The renderer's one way out: a handler of the map by name, plus opening explorer links. Nothing else of Electron is exposed. */
const bridge: NpsBridge = {
  call: async (name: string, args: unknown, onProgress?: (progress: Progress) => void): Promise<Envelope> => {
    if (typeof name !== 'string') throw new TypeError('name must be a string');
    if (!onProgress) return (await ipcRenderer.invoke('nps:call', name, args, null)) as Envelope;
    const callId = `c${nextCallId++}`;
    const listener = (_event: IpcRendererEvent, id: unknown, progress: Progress) => {
      if (id === callId) onProgress(progress);
    };
    ipcRenderer.on('nps:progress', listener);
    try {
      return (await ipcRenderer.invoke('nps:call', name, args, callId)) as Envelope;
    } finally {
      ipcRenderer.removeListener('nps:progress', listener);
    }
  },
  openExplorer: async (target: ExplorerTarget): Promise<Envelope> => (await ipcRenderer.invoke('nps:open-explorer', target)) as Envelope,
  pathForFile: (file: unknown): string => {
    try {
      return webUtils.getPathForFile(file as Parameters<typeof webUtils.getPathForFile>[0]);
    } catch {
      return '';
    }
  },
  onChange: (listener: (change: unknown) => void): (() => void) => {
    const heard = (_event: IpcRendererEvent, change: unknown) => listener(change);
    ipcRenderer.on('nps:change', heard);
    return () => void ipcRenderer.removeListener('nps:change', heard);
  },
};

contextBridge.exposeInMainWorld('nps', bridge);
