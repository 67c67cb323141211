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

/** The browser-mode door: the built renderer at /, and the handler map at POST /app/rpc/<handler>. */
export interface UiOptions {
  /** The built renderer (out/renderer): index.html and assets/. */
  dir: string;
  /** Per-run secret the served page carries; every /app/rpc call must present it. */
  token: string;
}

const TOKEN_HEADER = 'x-nps-token';
const TOKEN_META = 'nps-token';
/** Ask for progress lines before the answer: newline-delimited JSON, the envelope last. */
export const PROGRESS_MEDIA_TYPE = 'application/x-ndjson';

export const newUiToken = (): string => randomBytes(32).toString('base64url');

/**
 * The page's policy: scripts and styles only from this origin (no inline script, so the token in a
 * meta tag cannot be read by injected markup that runs), no framing, no forms, no plugins.
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

/** Equal-time comparison of the presented token with the run's: hashing first makes the lengths equal. */
export function tokenMatches(presented: string | string[] | undefined, expected: string): boolean {
  if (typeof presented !== 'string' || presented.length === 0) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** index.html with the run's token in a meta tag, right after the charset. */
export function injectToken(html: string, token: string): string {
  const tag = `<meta name="${TOKEN_META}" content="${token}" />`;
  const at = html.search(/<meta charset[^>]*>/i);
  if (at < 0) return html.replace(/<head>/i, `<head>\n    ${tag}`);
  const end = html.indexOf('>', at) + 1;
  return `${html.slice(0, end)}\n    ${tag}${html.slice(end)}`;
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

  // Checked before the body is read: a caller without the token never gets its body parsed.
  const requireToken = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!tokenMatches(req.headers[TOKEN_HEADER], ui.token)) {
      return sendError(reply, ErrorCodes.AUTH_MISSING, `${TOKEN_HEADER}: missing or wrong; reload the page the service served`, 401);
    }
  };

  app.post<{ Params: { name: string } }>('/app/rpc/:name', { onRequest: requireToken }, async (req, reply) => {
    if (!isJsonContentType(req.headers['content-type'])) {
      return sendError(reply, ErrorCodes.UNSUPPORTED_MEDIA_TYPE, 'Content-Type: must be application/json');
    }
    const input: unknown = req.body ?? {};
    const { name } = req.params;

    if (!(req.headers.accept ?? '').includes(PROGRESS_MEDIA_TYPE)) {
      const envelope = await callForWindow(service.handlers, name, input, { actor: 'ui' }, log);
      return reply
        .code(httpStatusOf[envelope.status as ErrorCode] ?? 500)
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify(envelope));
    }
    const out = new PassThrough();
    const meta: CallMeta = { actor: 'ui', onProgress: throttleProgress((progress) => out.write(JSON.stringify({ progress }) + '\n')) };
    void callForWindow(service.handlers, name, input, meta, log).then((envelope) => out.end(JSON.stringify(envelope) + '\n'));
    return reply.code(200).header('content-type', `${PROGRESS_MEDIA_TYPE}; charset=utf-8`).header('cache-control', 'no-store').send(out);
  });

  const serveIndex = async (_req: FastifyRequest, reply: FastifyReply) => {
    const html = readFileSync(join(ui.dir, 'index.html'), 'utf8');
    return pageHeaders(reply, 'text/html; charset=utf-8').header('cache-control', 'no-store').send(injectToken(html, ui.token));
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
