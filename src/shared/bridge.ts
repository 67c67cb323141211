/**
 * What crosses between the window and the service, whichever the transport: the preload's
 * window.nps in Electron, or the /app/rpc door in browser mode. Types only; the contract's
 * schemas validate the payloads on both sides.
 */

/** The /nps envelope: status 0 with data, or an error code with a sentence naming the field. */
export interface Envelope {
  status: number;
  data: unknown;
  msg: string;
}

/** How far a long job (an import, a reconciliation run) has got. */
export interface Progress {
  done: number;
  total?: number;
  bytes?: number;
  totalBytes?: number;
}

export interface ExplorerTarget {
  chain_id: string;
  kind: 'tx' | 'address';
  value: string;
}

/** window.nps, exposed by the preload in Electron only. */
export interface NpsBridge {
  /** Call a handler of the map by name; the answer is always an envelope, never a thrown error. */
  call(name: string, args: unknown, onProgress?: (progress: Progress) => void): Promise<Envelope>;
  /** Open a transaction or address in the chain's explorer (https only), in the system browser. */
  openExplorer(target: ExplorerTarget): Promise<Envelope>;
  /**
   * Where a File picked or dropped in the window lives on disk ('' when it has no path), so the
   * service reads large files itself instead of receiving their text.
   */
  pathForFile(file: unknown): string;
  /**
   * Hear the changes others make (shared/changes.ts: a ticket changed, an import landed, a run
   * finished), pushed by the service; answers the way to stop hearing them.
   */
  onChange(listener: (change: unknown) => void): () => void;
}
