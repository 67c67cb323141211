// Kept apart from limits.ts (which loads the rate-limit plugin) so the CLI's --help can quote them cheaply.

/** Requests a minute; 0 turns that bucket off. */
export interface RateLimits {
  /** Per API key, for signed calls. */
  signed: number;
  /** Per client, for unsigned calls. */
  reads: number;
  /** Per client, for signed calls that fail authentication. */
  failedAuth: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { signed: 1200, reads: 12_000, failedAuth: 120 };
