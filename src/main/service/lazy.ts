import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A package loaded when first used, not with the service's code: viem, tronweb and exceljs are
 * large, loading them was most of every command's start, and most commands use none of them (the
 * catalogue, keys, the ledger's lists, a call to the running service). docs/benchmarks.md has the
 * CLI's start.
 */
export function lazy<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(name) as T);
}
