import { parse } from 'lossless-json';
import { isExactNumber } from '../../../shared/primitives';
import { SOURCE_TEXT, type WithSource } from './exact';

/* A claim as the service keeps it (verification runs, tickets): the JSON text it was sent in, and back. */

/**
 * The claim as sent, as JSON text: the text the body parser kept when it came over HTTP, else
 * written out with every number keeping its source digits (the parsers keep them as exact
 * numbers). Written out by hand: JSON.stringify with a replacer costs several times more.
 */
export function claimedJson(v: unknown): string {
  const sent = typeof v === 'object' && v !== null ? (v as WithSource)[SOURCE_TEXT] : undefined;
  if (sent !== undefined) return sent;
  return writeClaimed(v);
}

function writeClaimed(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'object': {
      if (isExactNumber(v)) return v.value;
      if (Array.isArray(v)) return `[${v.map(writeClaimed).join(',')}]`;
      const o = v as Record<string, unknown>;
      let out = '';
      for (const k in o) {
        if (o[k] === undefined) continue;
        out += `${out === '' ? '' : ','}${JSON.stringify(k)}:${writeClaimed(o[k])}`;
      }
      return `{${out}}`;
    }
    default:
      return 'null';
  }
}

/** A stored claim back as an object: numbers that a double keeps exactly stay numbers, others keep their text. */
export function parseClaimed(text: string): Record<string, unknown> {
  return parse(text, null, (n) => (String(Number(n)) === n ? Number(n) : n)) as Record<string, unknown>;
}
