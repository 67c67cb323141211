import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { ErrorCodes } from '../../../shared/errors';
import type { CallMeta } from '../context';
import { parseInput, ServiceError, storeBusy } from '../errors';
import type { Service } from '../index';
import { createAuthenticator, type AuthOptions } from './auth';
import { warmAddressLibraries } from '../addresses/libraries';
import { catalogueVersion } from '../catalogue/handlers';
import { asSent, sendError, sendOk } from './envelope';
import { envelopeBytes } from './serialize';
import { isJsonContentType, registerJsonBody } from './json-body';
import { boundConnections, DEFAULT_MAX_CONNECTIONS, wasAnsweredEarly } from './connections';
import { registerAppDoor, uiLink, type UiOptions } from './app-door';
import { buildOpenApi } from './openapi';
import type { RateLimits } from './limit-defaults';
import { Admission, BUSY_RETRY_AFTER_S, defaultAdmissionBound } from './admission';
import type { Logger } from 'pino';
import { failureFields, requestLogger, silentLog } from '../log';
import { clientOf, createLimiters, registerRateLimit } from './limits';
import { newLocalToken, registerLocalDoor } from './local-door';
import { npsRoutes } from './routes';
import { publishService } from '../data-folder';

export const DEFAULT_PORT = 8730;
export const DEFAULT_HOST = '127.0.0.1';
/** Kept catalogue answers at most (a local tool asks a handful of distinct pages; past this, all are dropped and made again). */
const MAX_KEPT_PAGES = 256;

export interface ServerOptions {
  /** The host the server is bound to; a non-loopback name is also accepted in Host headers then. */
  host?: string;
  /** The service's log (log.ts): a line per request, and every failure with its cause. Default: none. */
  logger?: Logger;
  /** Where failures are said when there is no logger (default stderr). */
  log?: (line: string) => void;
  /** Signed routes: the nonce window (default 60 s). */
  auth?: AuthOptions;
  /** Requests a minute per API key (signed), per client (unsigned reads) and per client for failed authentication (limits.ts); false turns all off. */
  rateLimit?: Partial<RateLimits> | false;
  /** Verification requests the API takes at once (admission.ts); beyond, 4003 at once. Default: 2 per core. */
  admissionBound?: number;
  /** Browser mode: serve the built renderer at / and the handler map at /app/rpc, guarded by a session. */
  ui?: UiOptions;
  /** The command line's door (/local/rpc, local-door.ts), open to whoever shows this token. */
  localToken?: string;
  /** Import jobs the command line's door takes at once (admission.ts); beyond, 4003 at once. Default: 1 per core. */
  importBound?: number;
  /** A request's headers and body must have arrived this long after it began, or its connection is closed (408). Default 10 s. */
  requestTimeoutMs?: number;
  /** Open connections at most (connections.ts). Default 1024. */
  maxConnections?: number;
}

/** How long a request may take to arrive whole, by default: a 5 MiB body takes milliseconds on loopback. */
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** An idle kept-alive connection is closed after this long (Node's own default; Fastify's is 72 s). */
const KEEP_ALIVE_MS = 5_000;
/** A body on a path that takes none (an unknown one, or a GET): what Fastify reads of it at most. */
const NO_BODY_LIMIT = 16 * 1024;
/** The methods any route answers; any other is 405 (or 404 on an unknown path) before anything is read. */
const METHODS = new Set(['GET', 'HEAD', 'POST']);

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The label of the key a signed request authenticated with, for its log line. */
const keyLabels = new WeakMap<FastifyRequest, string>();

/** Host header without its port: "localhost:8730" -> "localhost", "[::1]:80" -> "[::1]". */
function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(header.trim());
  return m?.[1]?.toLowerCase();
}

/** Node's own marker that a response has begun on a socket: nothing more may be written before it. */
const answering = (socket: Socket): boolean =>
  (socket as unknown as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;

/**
 * A request Node's HTTP parser refuses before any route sees it (headers over Node's 16 KiB, a
 * request line that is not HTTP), or one whose headers and body did not arrive within the request
 * deadline, still gets the envelope: 431 for headers too large, 408 for too slow, else 400.
 */
function refuseMalformed(err: NodeJS.ErrnoException & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable || answering(socket) || wasAnsweredEarly(socket)) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const tooSlow = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const body = JSON.stringify({
    status: ErrorCodes.INVALID_PARAM,
    data: null,
    msg: tooLarge
      ? 'headers: larger than the 16 KiB the service reads; send smaller headers'
      : tooSlow
        ? 'request: its headers and body did not arrive in time; send the whole request at once'
        : 'request: not a valid HTTP/1.1 request',
  });
  const status = tooLarge ? '431 Request Header Fields Too Large' : tooSlow ? '408 Request Timeout' : '400 Bad Request';
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.destroySoon();
}

/** The body limit of the route a request is for, as a sentence's words. */
function limitText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : bytes >= 1024 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * The client closed the connection while its request was being read (Node: "aborted", ECONNRESET):
 * only while the request is not complete, so that a failure after it had arrived whole is never
 * taken for one (a request is destroyed once read).
 */
function clientLeft(req: FastifyRequest, err: FastifyError): boolean {
  return !req.raw.complete && (err.code === 'ECONNRESET' || err.message === 'aborted' || req.raw.socket?.destroyed === true);
}

/** The /nps service over HTTP: thin routes over the handler map, the envelope on every answer. */
export function buildServer(service: Service, opts: ServerOptions = {}): FastifyInstance {
  const logger = opts.logger ?? silentLog;
  const log = opts.log ?? (opts.logger ? (line: string) => logger.error(line) : (line: string) => process.stderr.write(line + '\n'));
  const requestTimeout = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    logger: false,
    // Each route names its own limit (routes.ts, the doors); this is for a body nothing takes.
    bodyLimit: NO_BODY_LIMIT,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler: refuseMalformed,
    // A request's headers and body arrive within the deadline, or its connection is closed: a body
    // that never ends held a verification's place (and its memory) for as long as the client liked.
    requestTimeout,
    keepAliveTimeout: KEEP_ALIVE_MS,
    http: {
      headersTimeout: Math.min(requestTimeout, DEFAULT_REQUEST_TIMEOUT_MS),
      // Node looks for requests past their deadline this often (its default, 30 s, would let one run 40 s).
      connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(requestTimeout / 4))),
      // A request without Host is answered by the Host guard below, in the envelope (Node's own answer is a bare 400).
      requireHostHeader: false,
    },
    // A path Fastify cannot decode (a bad %-escape) is the client's mistake, answered in the envelope.
    frameworkErrors: (err, _req, reply) => {
      if (err.code === 'FST_ERR_BAD_URL')
        return sendError(
          reply,
          ErrorCodes.INVALID_PARAM,
          'path: not a valid URL (a % not followed by two hex digits, or bytes that are not UTF-8)',
        );
      return sendError(reply, ErrorCodes.INVALID_PARAM, `request: ${err.message}`);
    },
  });
  boundConnections(app, opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS, (closed, open) =>
    logger.warn({ event: 'connections-closed', closed, open }, `${closed} idle or unfinished connections closed to make room for new ones`),
  );
  const allowedHosts = new Set(LOOPBACK_NAMES);
  if (opts.host && opts.host !== '0.0.0.0' && opts.host !== '::')
    allowedHosts.add(opts.host.includes(':') ? `[${opts.host}]` : opts.host.toLowerCase());

  registerJsonBody(app);

  // DNS-rebinding guard: a page on another origin that resolves its name to 127.0.0.1 still sends its own Host.
  // A callback hook, not an async one: every request passes here, and a promise a request is measurable on the catalogue's path.
  app.addHook('onRequest', (req, reply, done) => {
    const name = hostName(req.headers.host);
    if (!name || !allowedHosts.has(name)) {
      // Answering from the hook: the request goes no further (done is not called).
      sendError(
        reply,
        ErrorCodes.INVALID_PARAM,
        `Host: ${JSON.stringify(req.headers.host ?? '')} is not accepted; use 127.0.0.1, localhost or [::1]`,
        400,
      );
      return;
    }
    // A method no route answers (QUERY, PUT, OPTIONS…): 405 naming the ones the path takes, before anything is read.
    if (!METHODS.has(req.method)) {
      notFound(req, reply);
      return;
    }
    done();
  });

  // One line per request: what was asked, how it was answered, how long it took, and whose key it
  // was; never the body, the query's values or a signature.
  const logRequest = requestLogger(logger);
  if (logRequest) {
    app.addHook('onResponse', (req, reply, done) => {
      const url = req.raw.url ?? '/';
      const q = url.indexOf('?');
      logRequest({
        method: req.method,
        path: q < 0 ? url : url.slice(0, q),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        key: keyLabels.get(req),
      });
      done();
    });
  }

  registerRateLimit(app);
  const knownPaths = new Map<string, string[]>();
  void app.register(async (api) => npsRoutesOf(api, service, opts, knownPaths));

  const sessions = opts.ui ? registerAppDoor(app, service, opts.ui, log) : undefined;
  if (opts.localToken)
    registerLocalDoor(
      app,
      service,
      { token: opts.localToken, newLink: sessions && ((origin: string) => uiLink(origin, sessions.newCode())) },
      log,
      opts.importBound,
    );

  /** 404, or 405 with Allow when the path is known for other methods. */
  const notFound = (req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = (req.raw.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';
    const methods = knownPaths.get(path);
    if (methods) {
      reply.header('allow', methods.join(', '));
      return sendError(reply, ErrorCodes.NOT_FOUND, `method ${req.method} is not allowed on ${path}; use ${methods.join(' or ')}`, 405);
    }
    return sendError(reply, ErrorCodes.NOT_FOUND, `no such path: ${req.method} ${path}`);
  };
  app.setNotFoundHandler(async (req, reply) => notFound(req, reply));

  app.setErrorHandler(async (err: FastifyError | ServiceError, req, reply) => {
    if (err instanceof ServiceError) return sendError(reply, err.code, err.message);
    const busy = storeBusy(err);
    if (busy) return sendError(reply, busy.code, busy.message);
    if (clientLeft(req, err)) {
      // The client went away before its body had arrived: its doing, no failure of the service.
      logger.info({ event: 'client-left', method: req.method, path: req.url.split('?')[0], reason: err.message });
      return reply.code(400).send();
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        // What is left of the body is dropped as it arrives (Node reads it into nothing), within the
        // request deadline. Fastify would close the connection at once, and the client, still
        // sending, could get a reset instead of this answer.
        reply.removeHeader('connection');
        return sendError(
          reply,
          ErrorCodes.BODY_TOO_LARGE,
          `body: larger than the ${limitText(req.routeOptions.bodyLimit)} this path takes`,
        );
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json');
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendError(reply, ErrorCodes.INVALID_JSON, 'body: its length does not match Content-Length');
      default:
        if (err.statusCode === 413) {
          reply.removeHeader('connection');
          return sendError(
            reply,
            ErrorCodes.BODY_TOO_LARGE,
            `body: larger than the ${limitText(req.routeOptions.bodyLimit)} this path takes`,
          );
        }
        // Any other refusal Fastify makes of what the client sent (4xx) is the client's, in the envelope.
        if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500)
          return sendError(reply, ErrorCodes.INVALID_PARAM, `request: ${err.message}`);
        if (opts.logger) logger.error({ method: req.method, path: req.url.split('?')[0], ...failureFields(err) }, 'internal error');
        else log(`internal error on ${req.method} ${req.url}: ${err.stack ?? err.message}`);
        return sendError(reply, ErrorCodes.INTERNAL, 'internal error; the service log has the details');
    }
  });

  return app;
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Listen, then say where in the data folder (api.json) and give the command line its key to the
 * service (local.token, readable by this user only): data-folder.ts. Closing removes both, if they
 * are still the ones written here.
 */
export async function startServer(service: Service, opts: ServerOptions & { port?: number } = {}): Promise<RunningServer> {
  const host = opts.host ?? DEFAULT_HOST;
  const localToken = newLocalToken();
  const app = buildServer(service, { ...opts, host, localToken });
  // Before the first request can come: an address check must not wait a second for its libraries.
  warmAddressLibraries();
  try {
    await app.listen({ host, port: opts.port ?? DEFAULT_PORT });
  } catch (err) {
    // A taken port: the caller may try another, so this instance lets go of what it started.
    await app.close().catch(() => undefined);
    throw err;
  }
  // Verifications read the ledger on two threads; the second starts now, not with the first call.
  void service.ctx.engine.warm();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (opts.port ?? DEFAULT_PORT);
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const url = `http://${urlHost}:${port}`;
  const published = publishService(service.ctx.dataDir, { baseUrl: `${url}/nps`, host, port }, localToken);
  return {
    app,
    url,
    port,
    close: async () => {
      await app.close();
      published.remove();
    },
  };
}

/**
 * The /nps routes, in a scope of their own (the rate-limit plugin is ready in it): each route of
 * the table runs its handler and writes the answer with the serializer of its schema.
 */
async function npsRoutesOf(api: FastifyInstance, service: Service, opts: ServerOptions, knownPaths: Map<string, string[]>): Promise<void> {
  // Signed routes are charged to their key only once the request is shown to come from it: a
  // bucket keyed on the unchecked header would let any local process drain another key's bucket.
  // Failed authentication has a bucket of its own, and unsigned calls are charged to the client.
  const limit = createLimiters(api, opts.rateLimit ?? {});
  const authenticate = await createAuthenticator(service, opts.auth);
  const admission = new Admission(opts.admissionBound ?? defaultAdmissionBound());
  // Before the body is read: a request without a registered key or with a stale nonce is refused
  // (charged to the client's failed authentications), its body never parsed or kept (what arrives
  // of it is dropped, within the request deadline).
  const earlyCheck = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    try {
      await authenticate.early(req);
    } catch (err) {
      await limit.failedAuth?.(req, reply, clientOf(req.ip));
      throw err;
    }
  };
  /**
   * A verification's place (admission.ts) is taken only once its body has arrived and its signature
   * verified, and held until its answer is sent or the client goes: a client that sends headers
   * and no body, or no valid signature, never holds one.
   */
  const admit = (reply: FastifyReply): void => {
    const leave = admission.tryEnter();
    if (!leave) {
      const refusal = admission.refusal();
      // The refused client's connection is closed after the answer (admission.ts says why).
      reply.header('connection', 'close').header('retry-after', String(BUSY_RETRY_AFTER_S));
      throw refusal;
    }
    reply.raw.once('close', leave);
  };
  /** Written catalogue answers by URL (path and query as sent), with the catalogue version they were made at. */
  const pages = new Map<string, { version: string; body: string | Buffer }>();
  for (const route of npsRoutes) {
    const readLimit = route.signed ? undefined : limit.reads;
    knownPaths.set(route.url, [...(knownPaths.get(route.url) ?? []), route.method]);
    api.route({
      method: route.method,
      url: route.url,
      bodyLimit: route.bodyLimit ?? NO_BODY_LIMIT,
      ...(route.signed
        ? { onRequest: earlyCheck }
        : readLimit
          ? { onRequest: (req, reply) => readLimit(req, reply, clientOf(req.ip)) }
          : {}),
      handler: async (req, reply) => {
        const cacheKey = route.catalogueCache ? req.url : undefined;
        // Read before the answer is made: an answer kept under this version was made after it.
        const version = cacheKey !== undefined ? catalogueVersion(service.ctx) : '';
        if (cacheKey !== undefined) {
          const kept = pages.get(cacheKey);
          if (kept?.version === version) return sendOk(reply, kept.body);
        }
        const meta: CallMeta = { actor: 'api' };
        if (route.signed) {
          let caller: Awaited<ReturnType<typeof authenticate>>;
          try {
            caller = await authenticate(req);
          } catch (err) {
            await limit.failedAuth?.(req, reply, clientOf(req.ip));
            throw err;
          }
          if (route.admitted) admit(reply);
          await limit.signed?.(req, reply, caller.apiKey!);
          keyLabels.set(req, caller.keyLabel);
          Object.assign(meta, { apiKey: caller.apiKey, walletScope: caller.walletScope, keyLabel: caller.keyLabel });
        }
        if (route.body && !isJsonContentType(req.headers['content-type'])) {
          throw new ServiceError(ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json');
        }
        const query = route.query ? parseInput(route.query, req.query) : undefined;
        const body = route.body ? parseInput(route.body, req.body ?? null) : undefined;
        const input = route.toInput ? route.toInput(query, body) : (body ?? query ?? {});
        const fn = service.handlers[route.handler] as (input: unknown, meta: CallMeta) => unknown;
        const schema = route.responseFor?.(input) ?? route.response;
        const data = await fn(input, meta);
        // Written as it goes out (a long list as bytes made in pieces); a catalogue page is kept as it was sent.
        const answer = asSent(envelopeBytes(schema)(data));
        if (cacheKey !== undefined) {
          if (pages.size >= MAX_KEPT_PAGES) pages.clear();
          pages.set(cacheKey, { version, body: answer });
        }
        return sendOk(reply, answer);
      },
    });
  }

  // Made on first request, when the port the server listens on is known (servers names it).
  let openApi: string | undefined;
  knownPaths.set('/nps/openapi.json', ['GET']);
  api.get('/nps/openapi.json', async (_req, reply) => {
    if (openApi === undefined) {
      const address = api.server.address();
      const port = typeof address === 'object' && address ? address.port : DEFAULT_PORT;
      const host = !opts.host || opts.host === '0.0.0.0' ? DEFAULT_HOST : opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      openApi = JSON.stringify(buildOpenApi(npsRoutes, `http://${host}:${port}`));
    }
    return reply.header('content-type', 'application/json; charset=utf-8').send(openApi);
  });
}
