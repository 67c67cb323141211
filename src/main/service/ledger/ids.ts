import { createHash } from 'node:crypto';

/** Namespace of this product's derived transaction ids (UUID v5, RFC 9562). */
const NAMESPACE = Buffer.from('6f1c8e52d9a34b7e8c0f2a41b5d3e967', 'hex');

/**
 * A stable UUID (version 5) for a record of an export that has no transaction_id of its own: the
 * same parts give the same id on every import, so importing the export again changes nothing.
 */
export function deriveTransactionId(parts: readonly string[]): string {
  const digest = createHash('sha1').update(NAMESPACE).update(parts.join('\n')).digest();
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const HEX = new Int8Array(128).fill(0);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** 32 bits from two runs of hex digits of a UUID (the dashes skipped). */
function hex32(s: string, a: number, an: number, b: number, bn: number): number {
  let v = 0;
  for (let i = a; i < a + an; i++) v = (v << 4) | HEX[s.charCodeAt(i)]!;
  for (let i = b; i < b + bn; i++) v = (v << 4) | HEX[s.charCodeAt(i)]!;
  return v >>> 0;
}

/**
 * The transaction ids seen so far in one file, each with the row that gave it. Kept in typed
 * arrays (20 bytes a slot) rather than a Set of strings, so a file of millions of rows stays small.
 */
export class UuidRows {
  private words: Uint32Array;
  private rows: Uint32Array;
  private mask: number;
  private count = 0;

  constructor(initialCapacity = 1 << 14) {
    let cap = 16;
    while (cap < initialCapacity * 2) cap *= 2;
    this.words = new Uint32Array(cap * 4);
    this.rows = new Uint32Array(cap);
    this.mask = cap - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Record uuid as seen on row (1-based); answers the earlier row when it was seen before, else 0. */
  addOrGet(uuid: string, row: number): number {
    const w0 = hex32(uuid, 0, 8, 0, 0);
    const w1 = hex32(uuid, 9, 4, 14, 4);
    const w2 = hex32(uuid, 19, 4, 24, 4);
    const w3 = hex32(uuid, 28, 8, 0, 0);
    let slot = this.hash(w0, w1, w2, w3) & this.mask;
    for (;;) {
      const seen = this.rows[slot]!;
      if (seen === 0) break;
      const i = slot * 4;
      if (this.words[i] === w0 && this.words[i + 1] === w1 && this.words[i + 2] === w2 && this.words[i + 3] === w3) return seen;
      slot = (slot + 1) & this.mask;
    }
    this.put(slot, w0, w1, w2, w3, row);
    if (++this.count * 2 > this.mask) this.grow();
    return 0;
  }

  private hash(w0: number, w1: number, w2: number, w3: number): number {
    let h = Math.imul(w0 ^ 0x9e3779b9, 0x85ebca6b);
    h = Math.imul(h ^ w1 ^ (h >>> 13), 0xc2b2ae35);
    h = Math.imul(h ^ w2 ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ w3 ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  }

  private put(slot: number, w0: number, w1: number, w2: number, w3: number, row: number): void {
    const i = slot * 4;
    this.words[i] = w0;
    this.words[i + 1] = w1;
    this.words[i + 2] = w2;
    this.words[i + 3] = w3;
    this.rows[slot] = row;
  }

  private grow(): void {
    const { words, rows } = this;
    const cap = rows.length * 2;
    this.words = new Uint32Array(cap * 4);
    this.rows = new Uint32Array(cap);
    this.mask = cap - 1;
    for (let s = 0; s < rows.length; s++) {
      const row = rows[s]!;
      if (row === 0) continue;
      const i = s * 4;
      const w0 = words[i]!;
      const w1 = words[i + 1]!;
      const w2 = words[i + 2]!;
      const w3 = words[i + 3]!;
      let slot = this.hash(w0, w1, w2, w3) & this.mask;
      while (this.rows[slot] !== 0) slot = (slot + 1) & this.mask;
      this.put(slot, w0, w1, w2, w3, row);
    }
  }
}
