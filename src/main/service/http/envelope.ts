import type { FastifyReply } from 'fastify';
import { httpStatusOf, type ErrorCode } from '../../../shared/errors';
import { sayFor } from '../said';

interface Envelope<T> {
  status: number;
  data: T | null;
  msg: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A success envelope already written (http/serialize.ts). */
export function sendOk(reply: FastifyReply, body: string): FastifyReply {
  return reply.code(200).header('content-type', JSON_TYPE).send(body);
}

export function sendError(reply: FastifyReply, code: ErrorCode, msg: string, httpStatus = httpStatusOf[code]): FastifyReply {
  const body: Envelope<never> = { status: code, data: null, msg: sayFor(msg, 'cli') };
  return reply.code(httpStatus).header('content-type', JSON_TYPE).send(JSON.stringify(body));
}
