/** Requests allowed per window, per API key (signed requests) or per client address (the rest). */
export interface RateLimitOptions {
  max: number;
  windowMs: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { max: 1200, windowMs: 60_000 };

const MAX_TRACKED = 10_000;

/**
 * A token bucket per caller: `max` requests at once, refilled evenly over `windowMs`, so a client
 * may burst and then keeps a steady rate. Answers how many ms to wait, or 0 to go ahead.
 */
export function createRateLimiter(opts: RateLimitOptions, now: () => number = Date.now) {
  const perMs = opts.max / opts.windowMs;
  const buckets = new Map<string, { tokens: number; at: number }>();

  return (caller: string): number => {
    const t = now();
    let b = buckets.get(caller);
    if (!b) {
      if (buckets.size >= MAX_TRACKED) {
        for (const [k, v] of buckets) if (v.tokens + (t - v.at) * perMs >= opts.max) buckets.delete(k);
      }
      b = { tokens: opts.max, at: t };
      buckets.set(caller, b);
    }
    b.tokens = Math.min(opts.max, b.tokens + (t - b.at) * perMs);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    // The epsilon keeps floating-point dust from adding a whole millisecond.
    return Math.max(1, Math.ceil((1 - b.tokens) / perMs - 1e-6));
  };
}
