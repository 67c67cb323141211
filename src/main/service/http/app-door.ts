import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { PassThrough } from 'node:stream';
import { ErrorCodes, httpStatusOf, type ErrorCode } from '../../../shared/errors';
import { callForWindow, throttleProgress } from '../app/call';
import { followChanges } from '../changes';
import type { CallMeta } from '../context';
import { ServiceError } from '../errors';
import type { Service } from '../index';
import { sendError } from './envelope';
import { isJsonContentType } from './json-body';
import { DEFAULT_SESSION_IDLE_MINUTES, SESSION_HEADER, WindowSessions } from './sessions';

/*
 * The browser-mode door: the built renderer at /, and the handler map at POST /app/rpc/<handler>.
 *
 * The page itself holds no secret: any local program can fetch it. `serve --ui` prints a link with
 * a one-time code in its fragment (never sent to a server, kept out of logs and Referer), and
 * `npm run nps -- open` asks the running service for another. The page trades the code, once, at
 * POST /app/session for a session (sessions.ts): an HttpOnly, SameSite=Strict cookie and a token
 * the page keeps and sends with every call. Every /app/rpc call needs both and, from a browser, this
 * server's own Origin: a cookie alone, which browsers also send to other local servers, is useless.
 */

export interface UiOptions {
  /** The built renderer (out/renderer): index.html and assets/. */
  dir: string;
  /** This run's first one-time code (newUiCode), printed in the link `serve --ui` gives. */
  code: string;
  /** Where the service's log is ("the log in <folder>", or the terminal without one): an internal error's sentence names it. */
  logPlace?: string;
  /** Minutes a window's session lasts without a call from it (default 30). */
  idleMinutes?: number;
  /** How often an open event stream says it is still there and checks its window's session (default 15 s; tests take less). */
  eventsHeartbeatMs?: number;
}

/** Ask for progress lines before the answer: newline-delimited JSON, the envelope last. */
export const PROGRESS_MEDIA_TYPE = 'application/x-ndjson';

/**
 * Run a call of the handler map for a door and answer it in the envelope: at once, or, when the
 * caller asked for progress, as newline-delimited JSON with the envelope last.
 */
export function answerCall(
  service: Service,
  call: { name: string; input: unknown; actor: CallMeta['actor']; progress: boolean; window?: string },
  reply: FastifyReply,
  log: (line: string) => void,
  logPlace?: string,
): FastifyReply | Promise<FastifyReply> {
  if (!call.progress) {
    const meta: CallMeta = { actor: call.actor, ...(call.window ? { window: call.window } : {}) };
    return callForWindow(service.handlers, call.name, call.input, meta, log, logPlace).then((envelope) =>
      reply
        .code(httpStatusOf[envelope.status as ErrorCode] ?? 500)
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify(envelope)),
    );
  }
  const out = new PassThrough();
  const meta: CallMeta = {
    actor: call.actor,
    ...(call.window ? { window: call.window } : {}),
    onProgress: throttleProgress((progress) => out.write(JSON.stringify({ progress }) + '\n')),
  };
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

/** An open event stream says it is still there this often (and ends once its window's session has). */
const EVENTS_HEARTBEAT_MS = 15_000;
/** How soon a browser's own EventSource would come back; the page's reader keeps its own pace. */
const EVENTS_RETRY_MS = 2_000;

/** Files travel as text inside the call in browser mode, so the door takes far more than /nps's 5 MiB (only from a window with a session). */
const DOOR_BODY_LIMIT = 512 * 1024 * 1024;
/** The session trade's body: a one-time code of 43 characters, in JSON. */
const SESSION_BODY_LIMIT = 512;

/** Register the door; answers the window sessions, whose newCode() makes the code of a fresh link. */
export function registerAppDoor(app: FastifyInstance, service: Service, ui: UiOptions, log: (line: string) => void): WindowSessions {
  const sessions = new WindowSessions(service.ctx.now, (ui.idleMinutes ?? DEFAULT_SESSION_IDLE_MINUTES) * 60_000, ui.code);
  void app.register(async (door) => doorRoutes(door, service, ui, sessions, log));
  return sessions;
}

function doorRoutes(app: FastifyInstance, service: Service, ui: UiOptions, sessions: WindowSessions, log: (line: string) => void): void {
  // Plain JSON.parse on purpose: the handlers then see exactly what IPC's structured clone gives them
  // (the /nps parser keeps numbers' text and the raw bytes for signatures; neither applies here).
  app.removeAllContentTypeParsers();
  // Each route names its limit: checked from Content-Length, and while the body arrives, before it is parsed.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
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

  const tokenOf = (req: FastifyRequest): string | undefined => {
    const v = req.headers[SESSION_HEADER];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const cookieOf = (req: FastifyRequest): string | undefined => {
    const v = cookieValue(req.headers.cookie, sessionCookie(req.headers.host));
    return v === '' ? undefined : v;
  };

  app.post('/app/session', { bodyLimit: SESSION_BODY_LIMIT }, async (req, reply) => {
    if (foreignOrigin(req)) return sendError(reply, ErrorCodes.AUTH_MISSING, 'Origin: not this service’s own page', 403);
    const traded = sessions.trade((req.body as { code?: unknown } | null)?.code, cookieOf(req));
    if ('refused' in traded) return sendError(reply, ErrorCodes.AUTH_MISSING, traded.refused, 401);
    if (traded.cookie !== undefined)
      reply.header('set-cookie', `${sessionCookie(req.headers.host)}=${traded.cookie}; HttpOnly; SameSite=Strict; Path=/app`);
    return reply
      .header('cache-control', 'no-store')
      .send({ status: 0, data: { token: traded.token, idle_minutes: traded.idleMinutes }, msg: '' });
  });

  // The window is closing or reloading (the page says so as it goes): see sessions.ts.
  app.post('/app/session/leave', { bodyLimit: SESSION_BODY_LIMIT }, async (req, reply) => {
    if (foreignOrigin(req)) return sendError(reply, ErrorCodes.AUTH_MISSING, 'Origin: not this service’s own page', 403);
    sessions.leave(tokenOf(req), cookieOf(req));
    return reply.header('cache-control', 'no-store').send({ status: 0, data: {}, msg: '' });
  });

  // Checked before the body is read: a caller without a session never gets its body parsed or kept
  // (what arrives of it is dropped as it comes).
  const requireSession = async (req: FastifyRequest, reply: FastifyReply) => {
    if (foreignOrigin(req)) return sendError(reply, ErrorCodes.AUTH_MISSING, 'Origin: not this service’s own page', 403);
    const refused = sessions.check(tokenOf(req), cookieOf(req));
    if (refused !== undefined) return sendError(reply, ErrorCodes.AUTH_MISSING, refused, 401);
  };

  app.post<{ Params: { name: string } }>(
    '/app/rpc/:name',
    { onRequest: requireSession, bodyLimit: DOOR_BODY_LIMIT },
    async (req, reply) => {
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
        {
          name,
          input,
          actor: 'ui',
          progress: (req.headers.accept ?? '').includes(PROGRESS_MEDIA_TYPE),
          window: sessions.windowOf(tokenOf(req)!),
        },
        reply,
        log,
        ui.logPlace,
      );
    },
  );

  // The window's event stream (changes.ts): others' changes as Server-Sent Events, read by the page
  // with fetch (an EventSource cannot send the session's header). Open while the session is; ended
  // when the service stops, so that a stream never holds it up.
  const streams = new Map<PassThrough, () => void>();
  app.addHook('preClose', (done) => {
    for (const end of streams.values()) end();
    done();
  });
  app.get('/app/events', { onRequest: requireSession }, async (req, reply) => {
    const token = tokenOf(req)!;
    const cookie = cookieOf(req);
    const out = new PassThrough();
    // A write answers false once the stream holds more than its buffer: the follower then holds
    // changes, a bounded few, and past them tells the window to reload everything instead.
    const follower = followChanges(service.ctx.changes, {
      instance: service.ctx.instance,
      window: sessions.windowOf(token),
      // Nothing is written to a stream that is ending (a write after its end would be an error).
      send: (change) => !out.writableEnded && out.write(`event: change\ndata: ${JSON.stringify(change)}\n\n`),
    });
    out.on('drain', () => follower.resume());
    const beat = setInterval(() => {
      if (!sessions.isOpen(token, cookie)) end();
      else if (!out.writableNeedDrain) out.write(': still here\n\n');
    }, ui.eventsHeartbeatMs ?? EVENTS_HEARTBEAT_MS);
    const stop = () => {
      clearInterval(beat);
      follower.close();
      streams.delete(out);
    };
    const end = () => {
      stop();
      out.end();
    };
    out.on('close', stop);
    reply.raw.on('close', () => {
      stop();
      out.destroy();
    });
    streams.set(out, end);
    out.write(`retry: ${EVENTS_RETRY_MS}\n: open\n\n`);
    return reply
      .code(200)
      .header('content-type', 'text/event-stream; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .send(out);
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
