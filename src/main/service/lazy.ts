import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A package loaded when first used, not with the service's code: viem and tronweb (about a second
 * together) and exceljs (0.4 s) were most of every command's start, and most commands use none of
 * them (the catalogue, keys, the ledger's lists, a call to the running service).
 */
export function lazy<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(name) as T);
}
