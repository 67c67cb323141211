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

const compiled = new WeakMap<z.ZodType, Serializer>();

/** The success envelope `{"status":0,"data":...,"msg":""}`, `data` written by the serializer of its schema. */
export function envelopeSerializer(data: z.ZodType): Serializer {
  let fn = compiled.get(data);
  if (!fn) {
    const write = build({
      type: 'object',
      properties: { status: { type: 'integer' }, data: outputJsonSchema(data), msg: { type: 'string' } },
      required: ['status', 'data', 'msg'],
      additionalProperties: false,
    });
    fn = (value: unknown) => write({ status: 0, data: value, msg: '' });
    compiled.set(data, fn);
  }
  return fn;
}
