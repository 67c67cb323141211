import type { ServiceContext } from '../context';
import { consumeNonce } from './repository';

/*
 * Accepting a signed request's nonce is a write (docs/api.md: a (key, nonce) pair passes once, and a
 * restart does not forget it). While an import holds the store's write lock the pair is checked
 * against the store and the pairs accepted meanwhile, and kept as a deferred write
 * (engine/deferred.ts): signed requests never wait for an import.
 *
 * A used pair is kept until it can no longer pass the widest window any service has used on the
 * store, not only this one's: a service started with a wider --nonce-window than the last would
 * otherwise accept again a request whose nonce the narrower one had already forgotten. The store
 * records that widest window; a service that widens it keeps the pairs already recorded as much
 * longer, and refuses nonces older than its start less the previous widest (some of those may have
 * been forgotten): `recordsFromMs`.
 */

/** The window services used before this record was kept (the default): what an older store's pairs were kept for. */
const EARLIER_DEFAULT_WINDOW_MS = 60_000;

const DEFERRED_NONCE = 'nonce';

interface DeferredNonce {
  api_key: string;
  nonce: string;
  expires_at: number;
  at: number;
}

/** How a nonce deferred during an import is recorded when it ends (idempotent: a pair is recorded once). */
export function applyDeferredNonces(ctx: ServiceContext): void {
  ctx.engine.onDeferred(DEFERRED_NONCE, (body) => {
    const n = body as DeferredNonce;
    consumeNonce(ctx.db, n.api_key, n.nonce, n.expires_at, n.at);
  });
}

/**
 * The service's nonce book: `accept` answers false for a pair accepted before (a replay);
 * `recordsFromMs`: nonces older than this cannot be told from a replay and are refused. The window
 * is read and widened, and pairs accepted, through the service's nonce store (`ctx.nonces`,
 * keys/nonce-repository.ts).
 */
export async function nonceBook(ctx: ServiceContext, windowMs: number) {
  const { engine, nonces: store } = ctx;
  const record = await store.windowRecord();
  const previous = record.widestMs ?? EARLIER_DEFAULT_WINDOW_MS;
  let recordsFromMs = record.recordsFromMs;
  const keepMs = Math.max(windowMs, previous);
  if (record.widestMs === undefined || windowMs > previous) {
    if (windowMs > previous) recordsFromMs = Math.max(recordsFromMs, ctx.now() - previous);
    try {
      await store.widenWindow(previous, keepMs, recordsFromMs, ctx.now());
    } catch {
      // A store that cannot be written (read-only) accepts no nonce either; its refusal is the store's own.
    }
  }
  /** Pairs accepted while the store could not be written, until they no longer pass the window. */
  const deferred = new Map<string, number>();
  let lastPrune = -Infinity;

  const accept = async (apiKey: string, nonceMs: number, nonce: string, now: number): Promise<boolean> => {
    const expiresAt = nonceMs + keepMs;
    const prune = now - lastPrune >= windowMs;
    if (prune) {
      for (const [pair, expires] of deferred) if (expires < now) deferred.delete(pair);
      lastPrune = now;
    }
    const pair = `${apiKey}|${nonce}`;
    if (deferred.has(pair)) return false;
    if (!engine.importing || !store.waitsForImports) {
      // The store decides, in one commit: nothing of this book's is read between the check above and it.
      const accepted = await store.consume(apiKey, nonce, expiresAt, now);
      if (prune) await store.prune(now);
      return accepted;
    }
    // Claimed before any wait, so a second request with the pair meanwhile is refused.
    deferred.set(pair, expiresAt);
    try {
      if (await store.used(apiKey, nonce)) {
        deferred.delete(pair);
        return false;
      }
      await engine.defer(DEFERRED_NONCE, { api_key: apiKey, nonce, expires_at: expiresAt, at: now } satisfies DeferredNonce);
    } catch (err) {
      // Not kept: the pair is not used up either.
      deferred.delete(pair);
      throw err;
    }
    return true;
  };
  return Object.assign(accept, { recordsFromMs });
}
