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
