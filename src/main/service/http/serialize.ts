import build from 'fast-json-stringify';
import { z } from 'zod';

/*
 * Every /nps answer is written by a serializer compiled from the contract schema of its `data`
 * (fast-json-stringify, the compiler behind Fastify's response schemas). The schema decides the
 * bytes: each field is written under the schema's name, in the schema's order, and a field the
 * schema requires but the value lacks fails the answer (5000) instead of going out misnamed: a
 * renamed field cannot slip past the tests.
 */

type JsonSchema = Record<string, unknown>;

/**
 * A nullable value of one type (zod writes `anyOf: [T, {type: null}]`) as `type: [T, "null"]`:
 * the same meaning, which fast-json-stringify compiles to a type test rather than validating each
 * value against the branches at run time.
 */
function simplify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplify);
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) out[k] = simplify(v);
  const anyOf = out.anyOf as JsonSchema[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nullAt = anyOf.findIndex((s) => s.type === 'null' && Object.keys(s).length === 1);
    const other = anyOf[1 - nullAt];
    if (nullAt >= 0 && other && typeof other.type === 'string' && other.anyOf === undefined) {
      const { anyOf: _dropped, ...rest } = out;
      return { ...other, ...rest, type: [other.type, 'null'] };
    }
  }
  return out;
}

/** The JSON Schema of what a contract schema answers (its output), as the serializer and openapi.json take it. */
export function outputJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
  return simplify(json) as JsonSchema;
}

export type Serializer = (data: unknown) => string;

interface Compiled {
  text: Serializer;
  /** The same bytes, as sent: a long list as one buffer made in pieces (see listBytes). */
  bytes: (data: unknown) => string | Buffer;
}

const compiled = new WeakMap<z.ZodType, Compiled>();

function compile(data: z.ZodType): Compiled {
  let c = compiled.get(data);
  if (!c) {
    const json = outputJsonSchema(data);
    const write = build({
      type: 'object',
      properties: { status: { type: 'integer' }, data: json, msg: { type: 'string' } },
      required: ['status', 'data', 'msg'],
      additionalProperties: false,
    });
    const slow = (value: unknown) => write({ status: 0, data: value, msg: '' });
    const exact = exactShapeTest(json);
    // One JSON.stringify of the whole envelope: one flat string, which sending neither copies nor walks.
    const text: Serializer =
      exact === undefined ? slow : (value: unknown) => (exact(value) ? JSON.stringify({ status: 0, data: value, msg: '' }) : slow(value));
    const bytes =
      exact === undefined
        ? text
        : (value: unknown) => (Array.isArray(value) && value.length > LIST_PIECE && exact(value) ? listBytes(value) : text(value));
    c = { text, bytes };
    compiled.set(data, c);
  }
  return c;
}

/** The success envelope `{"status":0,"data":...,"msg":""}`, `data` written by the serializer of its schema. */
export const envelopeSerializer = (data: z.ZodType): Serializer => compile(data).text;

/** The same envelope as the HTTP door sends it: the same bytes (envelopeSerializer's), a long list's as a buffer. */
export const envelopeBytes = (data: z.ZodType): ((value: unknown) => string | Buffer) => compile(data).bytes;

/** Items of a list written at a time (a verification's results: some 45 KB). */
const LIST_PIECE = 64;
const LIST_HEAD = Buffer.from('{"status":0,"data":[');
const LIST_TAIL = Buffer.from('],"msg":""}');
const COMMA = Buffer.from(',');

/**
 * A list of exactly its schema's shape, written a piece of items at a time into bytes, then joined:
 * the answer to a thousand claims written in one string was a 700 KB string, made in V8's
 * large-object space, which only a full collection frees; a verification's few such strings made
 * the old generation grow by a megabyte a request, and full collections ran every few seconds.
 * Pieces of some 45 KB die young.
 */
function listBytes(list: readonly unknown[]): Buffer {
  const parts: Buffer[] = [LIST_HEAD];
  for (let i = 0; i < list.length; i += LIST_PIECE) {
    if (i > 0) parts.push(COMMA);
    const piece = Buffer.from(JSON.stringify(list.slice(i, i + LIST_PIECE)));
    parts.push(piece.subarray(1, piece.length - 1));
  }
  parts.push(LIST_TAIL);
  return Buffer.concat(parts);
}

/*
 * A value that has exactly its schema's shape (every object plain, with the schema's properties,
 * all of them, in the schema's order and no other; every value of its schema's type: a string, a
 * boolean, a finite number or integer, null where the schema allows it) is written by the
 * serializer above byte for byte as JSON.stringify writes it: the same keys in the same order, the
 * same escapes, the same numbers. So such a value is written by JSON.stringify, which builds the
 * text in one piece: a verification's answer of a thousand results, written piece by piece, was a
 * tree of some forty thousand strings that sending had to walk and flatten, at twice the CPU time.
 * A value of any other shape (a field missing or renamed, a Date, a number in a string field) goes
 * to the compiled serializer, which fails or coerces it as it always has; a schema with any
 * keyword beyond these has no test, and all its values go there.
 */

/** Keywords that do not change what the compiled serializer writes for a value of the exact shape. */
const INERT = new Set(['description', 'enum', 'minimum', 'maximum', 'minItems', 'maxItems', 'x-addition', 'title', 'examples']);
const TYPES = new Set(['object', 'array', 'string', 'boolean', 'integer', 'number', 'null']);

/** A test that a value has exactly the schema's shape, compiled from it; undefined when the schema uses any other keyword. */
export function exactShapeTest(schema: JsonSchema): ((value: unknown) => boolean) | undefined {
  const tests: ((value: unknown) => boolean)[] = [];
  /** A test of its own (an object's, an array's), called as t[n](x) by the code of the others. */
  const add = (code: string): number => {
    tests.push(new Function('t', `return ${code};`)(tests) as (v: unknown) => boolean);
    return tests.length - 1;
  };
  /** The expression testing `x` against `node`, or undefined. */
  const gen = (node: unknown, x: string): string | undefined => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    const n = node as JsonSchema;
    const types = Array.isArray(n.type) ? (n.type as unknown[]) : [n.type];
    if (!types.every((t) => typeof t === 'string' && TYPES.has(t))) return undefined;
    for (const k of Object.keys(n)) {
      if (k === 'type' || INERT.has(k)) continue;
      if ((k === 'properties' || k === 'required') && types.includes('object')) continue;
      if (k === 'additionalProperties' && n.additionalProperties === false) continue;
      if (k === 'items' && types.includes('array')) continue;
      return undefined;
    }
    const parts: string[] = [];
    for (const t of types as string[]) {
      if (t === 'null') parts.push(`${x} === null`);
      else if (t === 'string' || t === 'boolean') parts.push(`typeof ${x} === '${t}'`);
      else if (t === 'integer') parts.push(`Number.isInteger(${x})`);
      else if (t === 'number') parts.push(`Number.isFinite(${x})`);
      else if (t === 'array') {
        const item = gen(n.items, 'v[i]');
        if (item === undefined) return undefined;
        const at = add(
          `(v) => { if (!Array.isArray(v)) return false; for (let i = 0; i < v.length; i++) if (!${item}) return false; return true; }`,
        );
        parts.push(`t[${at}](${x})`);
      } else {
        const props = (n.properties ?? {}) as Record<string, unknown>;
        const names = Object.keys(props);
        const checks: string[] = [];
        for (const name of names) {
          const c = gen(props[name], `v[${JSON.stringify(name)}]`);
          if (c === undefined) return undefined;
          checks.push(` && ${c}`);
        }
        const at = add(
          `((names) => (v) => { if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return false; ` +
            `let i = 0; for (const k in v) if (k !== names[i++]) return false; ` +
            `return i === names.length${checks.join('')}; })(${JSON.stringify(names)})`,
        );
        parts.push(`t[${at}](${x})`);
      }
    }
    return `(${parts.join(' || ')})`;
  };
  const top = gen(schema, 'v');
  return top === undefined ? undefined : tests[add(`(v) => ${top}`)];
}
