import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { PassThrough } from 'node:stream';
import { ErrorCodes, httpStatusOf, type ErrorCode } from '../../../shared/errors';
import { callForWindow, throttleProgress } from '../app/call';
import type { CallMeta } from '../context';
import { ServiceError } from '../errors';
import type { Service } from '../index';
import { sendError } from './envelope';
import { isJsonContentType } from './json-body';

/*
 * The browser-mode door: the built renderer at /, and the handler map at POST /app/rpc/<handler>.
 *
 * The page itself holds no secret: any local program can fetch it. `serve --ui` prints a link with
 * a one-time code in its fragment (never sent to a server, kept out of logs and Referer); the page
 * trades the code, once, at POST /app/session for an HttpOnly, SameSite=Strict session cookie, and
 * every /app/rpc call must carry that cookie and, from a browser, this server's own Origin. A code
 * already traded is refused, so a program that reads the link too late gets nothing.
 */

export interface UiOptions {
  /** The built renderer (out/renderer): index.html and assets/. */
  dir: string;
  /** This run's one-time code (newUiCode), printed in the link `serve --ui` gives. */
  code: string;
  /** Where the service's log is ("the log in <folder>", or the terminal without one): an internal error's sentence names it. */
  logPlace?: string;
}

/** Ask for progress lines before the answer: newline-delimited JSON, the envelope last. */
export const PROGRESS_MEDIA_TYPE = 'application/x-ndjson';

/**
 * Run a call of the handler map for a door and answer it in the envelope: at once, or, when the
 * caller asked for progress, as newline-delimited JSON with the envelope last.
 */
export function answerCall(
  service: Service,
  call: { name: string; input: unknown; actor: CallMeta['actor']; progress: boolean },
  reply: FastifyReply,
  log: (line: string) => void,
  logPlace?: string,
): FastifyReply | Promise<FastifyReply> {
  if (!call.progress) {
    return callForWindow(service.handlers, call.name, call.input, { actor: call.actor }, log, logPlace).then((envelope) =>
      reply
        .code(httpStatusOf[envelope.status as ErrorCode] ?? 500)
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify(envelope)),
    );
  }
  const out = new PassThrough();
  const meta: CallMeta = { actor: call.actor, onProgress: throttleProgress((progress) => out.write(JSON.stringify({ progress }) + '\n')) };
  void callForWindow(service.handlers, call.name, call.input, meta, log, logPlace).then((envelope) =>
    out.end(JSON.stringify(envelope) + '\n'),
  );
  return reply.code(200).header('content-type', `${PROGRESS_MEDIA_TYPE}; charset=utf-8`).header('cache-control', 'no-store').send(out);
}

/** 256 random bits, URL-safe. */
export const newUiCode = (): string => randomBytes(32).toString('base64url');

/** The link that opens the window of a run: the page, with the one-time code in the fragment. */
export const uiLink = (baseUrl: string, code: string): string => `${baseUrl}/#code=${code}`;

/**
 * The session cookie's name: one per port, since browsers share a host's cookies across its ports
 * (two services on one machine must not take each other's session).
 */
const sessionCookie = (host: string | undefined): string => `nps_session_${/:(\d+)$/.exec(host ?? '')?.[1] ?? '80'}`;

/**
 * The page's policy: scripts and styles only from this origin (no inline script), no framing, no
 * forms, no plugins.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** Equal-time comparison of a presented secret with the expected one: hashing first makes the lengths equal. */
export function tokenMatches(presented: unknown, expected: string): boolean {
  if (typeof presented !== 'string' || presented.length === 0) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The value of one cookie of a Cookie header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A browser's request from another page (its Origin is not this server's own): refused whatever it carries. */
function foreignOrigin(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  return origin !== undefined && origin !== `http://${req.headers.host ?? ''}`;
}

/** A call that would make the service read a file by its path: only the desktop window (a path from its file dialog) may. */
function readsPath(input: unknown): boolean {
  const source = (input as { source?: unknown } | null)?.source;
  return typeof source === 'object' && source !== null && 'path' in source;
}

function pageHeaders(reply: FastifyReply, contentType: string): FastifyReply {
  return reply
    .header('content-type', contentType)
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY');
}

/** The file under dir that a URL path names, or undefined (outside dir, missing, not a file). */
function staticFile(dir: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const root = resolve(dir);
  const file = resolve(join(root, decoded));
  if (!file.startsWith(root + sep)) return undefined;
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** Files travel as text inside the call in browser mode, so the door takes far more than /nps's 5 MiB. */
const DOOR_BODY_LIMIT = 512 * 1024 * 1024;

export function registerAppDoor(app: FastifyInstance, service: Service, ui: UiOptions, log: (line: string) => void): void {
  void app.register(async (door) => doorRoutes(door, service, ui, log));
}

function doorRoutes(app: FastifyInstance, service: Service, ui: UiOptions, log: (line: string) => void): void {
  // Plain JSON.parse on purpose: the handlers then see exactly what IPC's structured clone gives them
  // (the /nps parser keeps numbers' text and the raw bytes for signatures; neither applies here).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: DOOR_BODY_LIMIT }, (_req, body, done) => {
    try {
      const text = body as string;
      done(null, text.trim() === '' ? {} : JSON.parse(text));
    } catch (err) {
      done(
        new ServiceError(ErrorCodes.INVALID_JSON, `body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`),
        undefined,
      );
    }
  });

  let codeUsed = false;
  /** Hashes of the session ids handed out (never the ids themselves). */
  const sessions = new Set<string>();
  const digest = (id: string) => createHash('sha256').update(id).digest('base64url');

  app.post('/app/session', async (req, reply) => {
    if (foreignOrigin(req)) return sendError(reply, ErrorCodes.AUTH_MISSING, 'Origin: not this service’s own page', 403);
    const code = (req.body as { code?: unknown } | null)?.code;
    if (codeUsed || !tokenMatches(code, ui.code)) {
      return sendError(
        reply,
        ErrorCodes.AUTH_MISSING,
        'code: already used or wrong; open the link the service printed when it started (start it again for a new link)',
        401,
      );
    }
    codeUsed = true;
    const id = randomBytes(32).toString('base64url');
    sessions.add(digest(id));
    return reply
      .header('set-cookie', `${sessionCookie(req.headers.host)}=${id}; HttpOnly; SameSite=Strict; Path=/app`)
      .header('cache-control', 'no-store')
      .send({ status: 0, data: {}, msg: '' });
  });

  // Checked before the body is read: a caller without a session never gets its body parsed.
  const requireSession = async (req: FastifyRequest, reply: FastifyReply) => {
    if (foreignOrigin(req)) return sendError(reply, ErrorCodes.AUTH_MISSING, 'Origin: not this service’s own page', 403);
    const id = cookieValue(req.headers.cookie, sessionCookie(req.headers.host));
    if (id === undefined || !sessions.has(digest(id))) {
      return sendError(
        reply,
        ErrorCodes.AUTH_MISSING,
        'session: this window has none; open the link the service printed when it started',
        401,
      );
    }
  };

  app.post<{ Params: { name: string } }>('/app/rpc/:name', { onRequest: requireSession }, async (req, reply) => {
    if (!isJsonContentType(req.headers['content-type'])) {
      return sendError(reply, ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json');
    }
    const input: unknown = req.body ?? {};
    const { name } = req.params;
    if (readsPath(input)) {
      return sendError(
        reply,
        ErrorCodes.INVALID_PARAM,
        "source.path: the browser window sends a file's contents ({name, text}), never a path for the service to read",
      );
    }

    return answerCall(
      service,
      { name, input, actor: 'ui', progress: (req.headers.accept ?? '').includes(PROGRESS_MEDIA_TYPE) },
      reply,
      log,
      ui.logPlace,
    );
  });

  const serveIndex = async (_req: FastifyRequest, reply: FastifyReply) => {
    const html = readFileSync(join(ui.dir, 'index.html'), 'utf8');
    return pageHeaders(reply, 'text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  };
  app.get('/', serveIndex);
  app.get('/index.html', serveIndex);
  app.get('/*', async (req, reply) => {
    const path = (req.raw.url ?? '/').split('?')[0]!;
    const file = path.startsWith('/nps/') || path.startsWith('/app/') ? undefined : staticFile(ui.dir, path);
    if (!file) return reply.callNotFound();
    const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
    const immutable = path.startsWith('/assets/');
    return pageHeaders(reply, type)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(readFileSync(file));
  });
}
