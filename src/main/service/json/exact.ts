import { LosslessNumber } from 'lossless-json';

/*
 * JSON with every number's digits kept. Here, not in http/, because both sides use it: the door
 * reads bodies with it (http/json-body.ts) and the domains keep a claim's text as sent (claimed.ts).
 */

/**
 * On each object that is an element of an array in a body: its text exactly as sent (a claim of a
 * batch is stored as sent without writing it out again). A symbol key: invisible to
 * Object.keys, for..in and JSON.stringify.
 */
export const SOURCE_TEXT: unique symbol = Symbol('source text');

/** An object of a parsed body, with its text as sent when it was an array element. */
export type WithSource = Record<string, unknown> & { [SOURCE_TEXT]?: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof LosslessNumber && b instanceof LosslessNumber) return a.value === b.value;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return false;
}

/**
 * Strict JSON (RFC 8259) with every number kept as its source text (a LosslessNumber, as
 * lossless-json gives), and each object inside an array carrying its source text under
 * SOURCE_TEXT. A repeated key is refused unless both values are equal (as lossless-json does).
 * Written for the verify batches: strings without escapes are slices of the text, not built a
 * character at a time, which makes a 200 KB batch several times cheaper to read.
 */
/** Object keys parsed before, by a slot of their length and their first and last characters. */
const KEPT_KEYS = 1024;
const KEPT_KEY_MAX = 64;
const keptKeys: (string | undefined)[] = new Array<string | undefined>(KEPT_KEYS).fill(undefined);

export function parseExactJson(text: string): unknown {
  let i = 0;
  const n = text.length;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${i}`);
  };
  const skipWs = () => {
    let c = text.charCodeAt(i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++i);
  };
  const parseString = (): string => {
    const start = ++i;
    let escaped = false;
    for (;;) {
      if (i >= n) fail("End of string '\"' expected");
      const c = text.charCodeAt(i);
      if (c === QUOTE) break;
      if (c < 0x20) fail('Invalid character in a string');
      if (c === BACKSLASH) {
        escaped = true;
        i++;
      }
      i++;
    }
    i++;
    if (!escaped) return text.slice(start, i - 1);
    try {
      return JSON.parse(text.slice(start - 1, i)) as string;
    } catch {
      return fail('Invalid escape in a string');
    }
  };
  /**
   * An object key: the same string as parseString gives, but a key met before (the same few names
   * on each of a batch's thousand claims) is the very string kept from then, compared in place:
   * no copy, and no lookup of the copy among the property names V8 knows.
   */
  const parseKey = (): string => {
    const start = i + 1;
    let j = start;
    let c = text.charCodeAt(j);
    while (c !== QUOTE && c !== BACKSLASH && c >= 0x20) c = text.charCodeAt(++j);
    const length = j - start;
    // An escape, a character a string may not hold, or the end of the text: parseString says so.
    if (c !== QUOTE || length > KEPT_KEY_MAX) return parseString();
    const slot = (length * 31 + text.charCodeAt(start) * 7 + text.charCodeAt(j - 1)) & (KEPT_KEYS - 1);
    const kept = keptKeys[slot];
    i = j + 1;
    if (kept !== undefined && kept.length === length && text.startsWith(kept, start)) return kept;
    const key = text.slice(start, j);
    keptKeys[slot] = key;
    return key;
  };
  const digits = () => {
    const from = i;
    let c = text.charCodeAt(i);
    while (c >= 0x30 && c <= 0x39) c = text.charCodeAt(++i);
    if (i === from) fail('Invalid number, expecting a digit');
  };
  const parseNumber = (): LosslessNumber => {
    const start = i;
    if (text.charCodeAt(i) === 0x2d) i++;
    if (text.charCodeAt(i) === 0x30) i++;
    else digits();
    if (text.charCodeAt(i) === 0x2e) {
      i++;
      digits();
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      const s = text.charCodeAt(++i);
      if (s === 0x2b || s === 0x2d) i++;
      digits();
    }
    return new LosslessNumber(text.slice(start, i));
  };
  const keyword = <T>(word: string, value: T): T => {
    if (!text.startsWith(word, i)) fail('JSON value expected');
    i += word.length;
    return value;
  };
  const parseValue = (inArray: boolean): unknown => {
    skipWs();
    const c = text.charCodeAt(i);
    if (c === QUOTE) return parseString();
    if (c === 0x7b) return parseObject(inArray);
    if (c === 0x5b) return parseArray();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return parseNumber();
    if (c === 0x74) return keyword('true', true);
    if (c === 0x66) return keyword('false', false);
    if (c === 0x6e) return keyword('null', null);
    return fail(i >= n ? 'Unexpected end of input' : 'JSON value expected');
  };
  const parseObject = (inArray: boolean): WithSource => {
    const start = i++;
    const o: WithSource = {};
    skipWs();
    if (text.charCodeAt(i) === 0x7d) i++;
    else {
      for (;;) {
        skipWs();
        if (text.charCodeAt(i) !== QUOTE) fail('Quoted object key expected');
        const keyAt = i;
        const key = parseKey();
        skipWs();
        if (text.charCodeAt(i) !== 0x3a) fail("Colon ':' expected after property name");
        i++;
        const value = parseValue(false);
        skipWs();
        if (Object.hasOwn(o, key)) {
          if (!deepEqual(o[key], value)) {
            i = keyAt;
            fail(`Duplicate key '${key}' encountered`);
          }
        } else if (key === '__proto__') {
          // Assignment would set the prototype; JSON.parse makes an own property too.
          Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
        } else o[key] = value;
        const c = text.charCodeAt(i++);
        if (c === 0x7d) break;
        if (c !== 0x2c) {
          i--;
          fail("Comma ',' or '}' expected");
        }
      }
    }
    if (inArray) o[SOURCE_TEXT] = text.slice(start, i);
    return o;
  };
  const parseArray = (): unknown[] => {
    i++;
    const list: unknown[] = [];
    skipWs();
    if (text.charCodeAt(i) === 0x5d) {
      i++;
      return list;
    }
    for (;;) {
      list.push(parseValue(true));
      skipWs();
      const c = text.charCodeAt(i++);
      if (c === 0x5d) return list;
      if (c !== 0x2c) {
        i--;
        fail("Comma ',' or ']' expected");
      }
    }
  };
  const value = parseValue(false);
  skipWs();
  if (i < n) fail('Expected end of input');
  return value;
}
