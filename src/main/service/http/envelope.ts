import type { FastifyReply } from 'fastify';
import { httpStatusOf, type ErrorCode } from '../../../shared/errors';
import { sayFor } from '../said';

interface Envelope<T> {
  status: number;
  data: T | null;
  msg: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Above this many characters an answer is sent as bytes (sendOk says why). */
const AS_BYTES_CHARS = 16 * 1024;

/**
 * A success envelope already written (http/serialize.ts). A large one (a verification's, some
 * 700 KB) goes out as its bytes: encoded once, then written beside the headers. As text it was
 * measured, then joined to the headers into a copy, then encoded.
 */
export function sendOk(reply: FastifyReply, body: string | Buffer): FastifyReply {
  return reply.code(200).header('content-type', JSON_TYPE).send(asSent(body));
}

/** An answer as sendOk sends it: a long text as its bytes. A kept answer is kept so, and encoded once. */
export function asSent(body: string | Buffer): string | Buffer {
  return typeof body === 'string' && body.length > AS_BYTES_CHARS ? Buffer.from(body) : body;
}

export function sendError(reply: FastifyReply, code: ErrorCode, msg: string, httpStatus = httpStatusOf[code]): FastifyReply {
  const body: Envelope<never> = { status: code, data: null, msg: sayFor(msg, 'cli') };
  return reply.code(httpStatus).header('content-type', JSON_TYPE).send(JSON.stringify(body));
}
