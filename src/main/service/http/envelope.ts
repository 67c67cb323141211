import type { FastifyReply } from 'fastify';
import { ErrorCodes, httpStatusOf, type ErrorCode } from '../../../shared/errors';
import { JsonText } from '../context';

export interface Envelope<T> {
  status: number;
  data: T | null;
  msg: string;
}

export function sendOk<T>(reply: FastifyReply, data: T | JsonText): FastifyReply {
  if (data instanceof JsonText) {
    // The same envelope as below, its data already written (keys in the same order).
    return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(`{"status":${ErrorCodes.OK},"data":${data.text},"msg":""}`);
  }
  return send(reply, 200, { status: ErrorCodes.OK, data, msg: '' });
}

export function sendError(reply: FastifyReply, code: ErrorCode, msg: string, httpStatus = httpStatusOf[code]): FastifyReply {
  return send(reply, httpStatus, { status: code, data: null, msg });
}

function send(reply: FastifyReply, httpStatus: number, body: Envelope<unknown>): FastifyReply {
  return reply.code(httpStatus).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}
