import type { NpsBridge } from '../shared/bridge';

declare global {
  interface Window {
    /** Present in the Electron window only; browser mode talks to /app/rpc instead. */
    nps?: NpsBridge;
  }
}

export {};
