import { contextBridge, ipcRenderer } from 'electron';

/** The renderer's one way out: call a handler of the map by name. */
contextBridge.exposeInMainWorld('nps', {
  call: (name: string, args: unknown) => ipcRenderer.invoke('nps:call', name, args),
});
