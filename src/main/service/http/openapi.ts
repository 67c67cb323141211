import { z } from 'zod';
import { ErrorCodes, httpStatusOf, type ErrorCode } from '../../../shared/errors';
import { AUTH_ERRORS, COMMON_ERRORS, type NpsRoute } from './routes';
import { outputJsonSchema } from './serialize';

const ERROR_TEXT: Record<ErrorCode, string> = {
  0: 'success',
  1001: 'body is not valid JSON',
  1002: 'a parameter is missing, of the wrong type, or out of range (also a Host header that is not loopback)',
  1003: 'body larger than the path takes (a verification 5 MiB, an address check 16 KiB); the connection is closed',
  1004: 'content type is not JSON',
  1005: 'no such path (404), or wrong method on a known path (405)',
  2001: 'credential headers missing',
  2002: 'unknown or revoked API key',
  2003: 'nonce is not a timestamp within the allowed window',
  2004: 'nonce already used (replay)',
  2005: 'signature does not verify',
  2006: 'the key may not act on this wallet',
  3001: 'unknown chain',
  3002: 'unknown token',
  3003: 'ticket not found (also when it belongs to another wallet)',
  3004: 'unknown wallet',
  3005: 'chain not supported for address verification (not EVM, not TRON)',
  3006: 'the ticket changed since the caller saw it (desktop window and command line; no /nps path answers it)',
  4001: 'batch larger than 1000 items',
  4002: 'rate limited (with Retry-After)',
  4003: 'busy: too much work in flight, try again (with Retry-After)',
  5000: 'internal error',
  5001: 'store unavailable (locked by another writer, read-only, full, damaged, or of a newer version); msg says which and what to do',
};

// zod leaves defaults out of input schemas; a caller reading the document wants them.
const toSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema }) => {
      const def = (zodSchema as unknown as z.ZodType)._zod.def;
      if (def.type === 'default') jsonSchema.default = (def as unknown as { defaultValue: unknown }).defaultValue;
    },
  }) as Record<string, unknown>;

function strip(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function queryParameters(query: z.ZodType | undefined) {
  if (!query) return [];
  const json = strip(toSchema(query)) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    schema,
  }));
}

const envelope = (data: Record<string, unknown>) => ({
  type: 'object',
  required: ['status', 'data', 'msg'],
  properties: { status: { type: 'integer', const: 0 }, data, msg: { type: 'string', const: '' } },
});

/**
 * OpenAPI 3.1 of /nps, derived from the route table, the very schemas the routes validate with and
 * the schemas their answers are written with. `baseUrl`: where this server listens.
 */
export function buildOpenApi(routes: NpsRoute[], baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const codes = [...new Set([...(route.signed ? AUTH_ERRORS : []), ...route.errors, ...COMMON_ERRORS])].sort();
    const byHttp = new Map<number, ErrorCode[]>();
    for (const code of codes) byHttp.set(httpStatusOf[code], [...(byHttp.get(httpStatusOf[code]) ?? []), code]);
    const responses: Record<string, unknown> = {
      '200': { description: 'Success', content: { 'application/json': { schema: envelope(outputJsonSchema(route.response)) } } },
    };
    for (const [http, list] of [...byHttp].sort(([a], [b]) => a - b)) {
      responses[String(http)] = {
        description: list.map((c) => `${c}: ${ERROR_TEXT[c]}`).join('; '),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
      };
    }
    paths[route.url] = {
      ...paths[route.url],
      [route.method.toLowerCase()]: {
        summary: route.summary,
        description: route.description,
        operationId: route.handler,
        parameters: queryParameters(route.query),
        ...(route.body
          ? {
              requestBody: {
                required: true,
                ...(route.bodyLimit ? { description: `JSON, at most ${route.bodyLimit / 1024} KiB (larger: 1003, HTTP 413)` } : {}),
                content: { 'application/json': { schema: strip(toSchema(route.body)) } },
              },
            }
          : {}),
        ...(route.signed ? { security: [{ apiKey: [], nonce: [], signature: [] }] } : {}),
        responses,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'NPS Reconcile local API',
      version: '1.0.0',
      description:
        'Served on 127.0.0.1 only. Every response is {status, data, msg}; status 0 is success. Field names and types are those of the source description; fields it does not have follow its own, are marked x-addition: true, and their descriptions begin "Addition". Signed endpoints take BIZ-API-KEY (Ed25519 public key, hex), Biz-Api-Nonce (Unix ms) and Biz-Api-Signature (hex Ed25519 signature over SHA-256(SHA-256("METHOD|PATH|NONCE|QUERY|BODY"))).',
    },
    servers: [{ url: baseUrl }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'BIZ-API-KEY' },
        nonce: { type: 'apiKey', in: 'header', name: 'Biz-Api-Nonce' },
        signature: { type: 'apiKey', in: 'header', name: 'Biz-Api-Signature' },
      },
      schemas: {
        ErrorEnvelope: {
          type: 'object',
          required: ['status', 'data', 'msg'],
          properties: {
            status: { type: 'integer', enum: Object.values(ErrorCodes).filter((c) => c !== 0) },
            data: { type: 'null' },
            msg: { type: 'string', description: 'A sentence naming the field or rule at fault' },
          },
        },
      },
    },
  };
}
