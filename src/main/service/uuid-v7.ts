import { randomFillSync } from 'node:crypto';

/*
 * UUID version 7 (RFC 9562) as the uuid package makes them, the same fields and the same order:
 * the time in milliseconds, then a 31-bit sequence drawn at random at each new millisecond and
 * counted up within one, so ids made in one millisecond sort in the order they were made (the
 * queue lists tickets of one moment by id); the rest random. Only the random bytes come from a pool
 * filled 256 ids at a time: a verification opens a ticket a mismatch, two hundred a request, and
 * asking the system for 16 bytes each time was a visible part of its time.
 */

const POOL_BYTES = 16 * 256;
const pool = new Uint8Array(POOL_BYTES);
let next = POOL_BYTES;
let lastMs = -Infinity;
let seq = 0;
const HEX = Array.from({ length: 256 }, (_, i) => (i + 0x100).toString(16).slice(1));

export function uuidv7(): string {
  if (next === POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  const r = next;
  next += 16;
  const now = Date.now();
  if (now > lastMs) {
    seq = ((pool[r + 6]! & 0x7f) << 24) | (pool[r + 7]! << 16) | (pool[r + 8]! << 8) | pool[r + 9]!;
    lastMs = now;
  } else {
    seq = (seq + 1) | 0;
    // The sequence ran out within one millisecond: go on in the next.
    if (seq === 0) lastMs++;
  }
  const ms = lastMs;
  return (
    HEX[(ms / 0x10000000000) & 0xff]! +
    HEX[(ms / 0x100000000) & 0xff]! +
    HEX[(ms / 0x1000000) & 0xff]! +
    HEX[(ms / 0x10000) & 0xff]! +
    '-' +
    HEX[(ms / 0x100) & 0xff]! +
    HEX[ms & 0xff]! +
    '-' +
    HEX[0x70 | ((seq >>> 28) & 0x0f)]! +
    HEX[(seq >>> 20) & 0xff]! +
    '-' +
    HEX[0x80 | ((seq >>> 14) & 0x3f)]! +
    HEX[(seq >>> 6) & 0xff]! +
    '-' +
    HEX[((seq << 2) & 0xff) | (pool[r + 10]! & 0x03)]! +
    HEX[pool[r + 11]!]! +
    HEX[pool[r + 12]!]! +
    HEX[pool[r + 13]!]! +
    HEX[pool[r + 14]!]! +
    HEX[pool[r + 15]!]!
  );
}
