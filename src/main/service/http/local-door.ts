import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { ErrorCodes } from '../../../shared/errors';
import { ServiceError } from '../errors';
import type { Service } from '../index';
import { Admission, defaultImportBound, IMPORT_RETRY_AFTER_S } from './admission';
import { answerCall, PROGRESS_MEDIA_TYPE, tokenMatches } from './app-door';
import { LOCAL_TOKEN_FILE, LOCAL_TOKEN_HEADER } from '../data-folder';
import { sendError } from './envelope';
import { isJsonContentType } from './json-body';

/*
 * The command line's door to a running service: one data folder has one writer, so while a
 * service runs on it, `npm run nps -- import|keys|chains|tokens …` call the service's handler map
 * here instead of opening the store a second time. The caller proves it is the local user by a
 * token the service writes into the data folder (LOCAL_TOKEN_FILE, readable by that user only):
 * whoever can read the store's folder can read the store itself anyway. Browsers never get in: a
 * request carrying an Origin is refused.
 */

export { PROGRESS_MEDIA_TYPE };

export const newLocalToken = (): string => randomBytes(32).toString('base64url');

/** Calls name files on this machine (the CLI's own arguments), so they stay small. */
const LOCAL_BODY_LIMIT = 1024 * 1024;

/** Calls that are import jobs: each holds the store's write lock while it runs. */
const IMPORT_JOBS = new Set(['ledger-import', 'ledger-preview', 'import-undo']);

export function registerLocalDoor(
  app: FastifyInstance,
  service: Service,
  { token, newLink }: { token: string; newLink?: (origin: string) => string },
  log: (line: string) => void,
  importBound: number = defaultImportBound(),
): void {
  const imports = new Admission(importBound, 'import jobs', IMPORT_RETRY_AFTER_S);
  void app.register(async (door) => {
    door.removeAllContentTypeParsers();
    door.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      try {
        const text = body as string;
        done(null, text.trim() === '' ? {} : JSON.parse(text));
      } catch (err) {
        done(new ServiceError(ErrorCodes.INVALID_JSON, `body is not valid JSON: ${(err as Error).message}`), undefined);
      }
    });

    // Checked before the body is read.
    const requireLocalUser = async (req: FastifyRequest, reply: FastifyReply) => {
      // Refused before the body is read: none of it is parsed or kept.
      if (req.headers.origin !== undefined) return sendError(reply, ErrorCodes.AUTH_MISSING, 'Origin: browsers may not use this door', 403);
      if (!tokenMatches(req.headers[LOCAL_TOKEN_HEADER], token)) {
        return sendError(
          reply,
          ErrorCodes.AUTH_MISSING,
          `${LOCAL_TOKEN_HEADER}: missing or wrong; read it from ${LOCAL_TOKEN_FILE} in the data folder`,
          401,
        );
      }
    };

    // Who answers at this address: the service of the folder whose local.token the caller read
    // (data-folder.ts, findService: a file left by a crash names an address nothing, or something
    // else, answers at).
    door.get('/local/hello', { onRequest: requireLocalUser }, async (_req, reply) =>
      reply
        .header('cache-control', 'no-store')
        .send({ status: 0, data: { pid: process.pid, data_dir: service.ctx.dataDir, ui: newLink !== undefined }, msg: '' }),
    );

    // `npm run nps -- open`: a fresh link to the browser window, with a one-time code of its own.
    door.post('/local/session-link', { onRequest: requireLocalUser, bodyLimit: LOCAL_BODY_LIMIT }, async (req, reply) => {
      if (!newLink)
        return sendError(
          reply,
          ErrorCodes.INVALID_PARAM,
          'this service serves no browser window (it runs without --ui, or it is the desktop app)',
        );
      return reply.header('cache-control', 'no-store').send({ status: 0, data: { link: newLink(`http://${req.headers.host}`) }, msg: '' });
    });

    door.post<{ Params: { name: string } }>(
      '/local/rpc/:name',
      { onRequest: requireLocalUser, bodyLimit: LOCAL_BODY_LIMIT },
      async (req, reply) => {
        if (!isJsonContentType(req.headers['content-type'])) {
          return sendError(reply, ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json');
        }
        const progress = (req.headers.accept ?? '').includes(PROGRESS_MEDIA_TYPE);
        if (IMPORT_JOBS.has(req.params.name)) {
          // Admission control: beyond the bound, 4003 at once rather than another job queued for the lock.
          const leave = imports.tryEnter();
          if (leave === undefined) {
            const refusal = imports.refusal();
            return sendError(reply.header('retry-after', String(imports.retryAfterS)), refusal.code, refusal.message);
          }
          // Counted until its answer has been sent (a progress stream ends with it) or the caller left.
          reply.raw.once('close', leave);
        }
        return answerCall(service, { name: req.params.name, input: req.body ?? {}, actor: 'cli', progress }, reply, log);
      },
    );
  });
}
