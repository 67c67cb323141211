import type { FastifyInstance } from 'fastify';
import { ErrorCodes } from '../../../shared/errors';
import { ServiceError } from '../errors';
import { parseExactJson } from '../json/exact';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received: what a signature is checked against. */
    rawBody?: Buffer;
  }
}

/**
 * JSON is the only body this service reads. Numbers keep their source text, so "0.1" is 0.1 and an
 * 18-decimal amount keeps every digit; the raw bytes are kept for signatures.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // The limit is each route's own (routes.ts).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const raw = body as Buffer;
    req.rawBody = raw;
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
      done(null, text.trim() === '' ? undefined : parseExactJson(text));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      done(new ServiceError(ErrorCodes.INVALID_JSON, `body is not valid JSON: ${reason}`), undefined);
    }
  });
}

export const isJsonContentType = (value: string | undefined): boolean =>
  value !== undefined && /^application\/json\s*(;|$)/i.test(value.trim());
