/*
 * PostgreSQL's advisory locks the team store takes, by purpose: one list, so no two purposes share
 * a key. Each is a 64-bit key in the store's database; a lock taken for a session is let go when
 * its connection ends, however the service ended.
 */
export const ADVISORY_LOCKS = {
  /** Held while a service migrates the store (db/postgres.ts). */
  migration: 0x6e70_7330,
  /** Held while a service widens the nonce window (keys/nonce-repository.ts). */
  nonceWindow: 0x6e70_7331,
  /** Held by the one service importing into the store (engine/store-lock.ts). */
  import: 0x6e70_7332,
  /**
   * Held for a transaction that writes the catalogue after checking it (an add, an ignore) or
   * seeds it (catalogue/store-repository.ts): services starting at once seed a changed catalogue
   * file once, and two adds of one token cannot both pass their check.
   */
  catalogue: 0x6e70_7333,
  /**
   * With a transaction's hash (the two-key form), held by a verification's batch until it commits
   * while it reads and writes that transaction's Pending ticket (reconcile/run-repository.ts).
   */
  pendingTicket: 0x6e70_7334,
} as const;
