import type { ServiceContext } from '../context';
import { consumeNonce, nonceUsed, pruneNonces } from './repository';

/*
 * Accepting a signed request's nonce is a write (docs/api.md: a (key, nonce) pair passes once, and a
 * restart does not forget it). While an import holds the store's write lock the pair is checked
 * against the store and the pairs accepted meanwhile, and kept as a deferred write
 * (engine/deferred.ts): signed requests never wait for an import.
 */

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

/** The service's nonce book: `accept` answers false for a pair accepted before (a replay). */
export function nonceBook(ctx: ServiceContext, windowMs: number) {
  const { db, engine } = ctx;
  /** Pairs accepted while the store could not be written, until they no longer pass the window. */
  const deferred = new Map<string, number>();
  let lastPrune = -Infinity;

  return async (apiKey: string, nonce: string, expiresAt: number, now: number): Promise<boolean> => {
    if (now - lastPrune >= windowMs) {
      for (const [pair, expires] of deferred) if (expires < now) deferred.delete(pair);
      if (!engine.importing) pruneNonces(db, now);
      lastPrune = now;
    }
    const pair = `${apiKey}|${nonce}`;
    if (deferred.has(pair)) return false;
    if (!engine.importing) return consumeNonce(db, apiKey, nonce, expiresAt, now);
    if (nonceUsed(db, apiKey, nonce)) return false;
    deferred.set(pair, expiresAt);
    try {
      await engine.defer(DEFERRED_NONCE, { api_key: apiKey, nonce, expires_at: expiresAt, at: now } satisfies DeferredNonce);
    } catch (err) {
      // Not kept: the pair is not used up either.
      deferred.delete(pair);
      throw err;
    }
    return true;
  };
}
