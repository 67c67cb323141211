import { v5 } from 'uuid';

/** Namespace of this product's derived transaction ids (UUID v5, RFC 9562). */
const NAMESPACE = '6f1c8e52-d9a3-4b7e-8c0f-2a41b5d3e967';

/**
 * A stable UUID (version 5) for a record of an export that has no transaction_id of its own: the
 * same parts give the same id on every import, so importing the export again changes nothing.
 */
export const deriveTransactionId = (parts: readonly string[]): string => v5(parts.join('\n'), NAMESPACE);
