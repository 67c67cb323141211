import type { FastifyRequest } from 'fastify';
import { ErrorCodes } from '../../../shared/errors';
import type { CallMeta } from '../context';
import { ServiceError } from '../errors';
import type { Service } from '../index';
import { nonceBook } from '../keys/nonces';
import type { ApiKey } from '../../../shared/keys';
import { HEADER_KEY, HEADER_NONCE, HEADER_SIGNATURE, isKeyHex, verifyRequest } from '../keys/sign';

/** How far a nonce (the request time, Unix ms) may be from the service clock, either way. */
const DEFAULT_NONCE_WINDOW_MS = 60_000;

export interface AuthOptions {
  nonceWindowMs?: number;
}

const HEADER_LABEL: Record<string, string> = {
  [HEADER_KEY]: 'BIZ-API-KEY',
  [HEADER_NONCE]: 'Biz-Api-Nonce',
  [HEADER_SIGNATURE]: 'Biz-Api-Signature',
};

/**
 * The check of a signed request (docs/api.md, "Signing a request" and "Order of checks"), in this order, the first failure
 * answering:
 *   2001 a credential header is missing or empty (names are case-insensitive: Node lower-cases them);
 *   2002 the key is not a registered, unrevoked Ed25519 public key;
 *   2003 the nonce is not Unix milliseconds within the window of the service clock;
 *        (these three from the headers alone, before the body is read: `early`)
 *   2005 the signature does not verify over METHOD|PATH|NONCE|QUERY|BODY as received;
 *   2004 the (key, nonce) pair was accepted before: checked last, so only a correctly signed
 *        request can use up a nonce, and recorded in the store, so a restart does not forget it
 *        (during an import, as a deferred write: keys/nonces.ts).
 * The wallet check (2006) belongs to the handlers, which know the wallet a call names.
 * No secret is ever compared here: the service holds public keys only, and the signature is
 * checked by Ed25519 verification, not by comparing it with one computed here.
 */
export async function createAuthenticator(service: Service, opts: AuthOptions = {}) {
  const windowMs = opts.nonceWindowMs ?? DEFAULT_NONCE_WINDOW_MS;
  const { keys, now } = service.ctx;
  const acceptNonce = await nonceBook(service.ctx, windowMs);

  /**
   * The checks the headers alone allow (2001, 2002, 2003), made before the body is read: a request
   * without a registered key, or with a stale nonce, is refused without the service reading (or
   * holding) its body.
   */
  const early = async (req: FastifyRequest): Promise<{ apiKey: string; key: ApiKey; nonce: string; nonceMs: number; t: number }> => {
    const values: Record<string, string> = {};
    const missing: string[] = [];
    for (const name of [HEADER_KEY, HEADER_NONCE, HEADER_SIGNATURE]) {
      const v = req.headers[name];
      if (typeof v === 'string' && v.trim() !== '') values[name] = v.trim();
      else missing.push(HEADER_LABEL[name]!);
    }
    if (missing.length) throw new ServiceError(ErrorCodes.AUTH_MISSING, `credential headers missing: ${missing.join(', ')}`);

    const apiKey = values[HEADER_KEY]!.toLowerCase();
    // Read from the store at every request, with no copy kept: a key revoked through any service
    // on the store is refused at its next request.
    const key = isKeyHex(apiKey) ? await keys.get(apiKey) : undefined;
    if (!key || key.revoked_at !== null) {
      throw new ServiceError(ErrorCodes.AUTH_UNKNOWN_KEY, `BIZ-API-KEY: ${key ? 'this API key was revoked' : 'unknown API key'}`);
    }

    const t = now();
    const nonce = values[HEADER_NONCE]!;
    const nonceMs = /^\d{1,16}$/.test(nonce) ? Number(nonce) : NaN;
    if (!(Math.abs(t - nonceMs) <= windowMs)) {
      throw new ServiceError(
        ErrorCodes.AUTH_BAD_NONCE,
        `Biz-Api-Nonce: must be the request time in Unix milliseconds, within ${windowMs / 1000} s of the service clock (now ${t})`,
      );
    }
    if (nonceMs < acceptNonce.recordsFromMs) {
      throw new ServiceError(
        ErrorCodes.AUTH_BAD_NONCE,
        `Biz-Api-Nonce: older than ${acceptNonce.recordsFromMs}, when this service widened the nonce window: an earlier, narrower window may have forgotten it, so it cannot be told from a replay; sign with the current time`,
      );
    }
    return { apiKey, key, nonce, nonceMs, t };
  };

  const authenticate = async (req: FastifyRequest): Promise<Pick<CallMeta, 'apiKey' | 'walletScope'> & { keyLabel: string }> => {
    // Again, with the body: the key may have been revoked, or the clock moved, while it arrived.
    const { apiKey, key, nonce, nonceMs, t } = await early(req);
    const url = req.raw.url ?? '/';
    const q = url.indexOf('?');
    const parts = {
      method: req.method,
      path: q < 0 ? url : url.slice(0, q),
      nonce,
      query: q < 0 ? '' : url.slice(q + 1),
      body: req.rawBody ?? '',
    };
    if (!verifyRequest(apiKey, (req.headers[HEADER_SIGNATURE] as string).trim(), parts)) {
      throw new ServiceError(
        ErrorCodes.AUTH_BAD_SIGNATURE,
        'Biz-Api-Signature: does not verify for METHOD|PATH|NONCE|QUERY|BODY of this request',
      );
    }

    // Using the nonce is a write; while an import holds the write lock it is deferred (keys/nonces.ts).
    if (!(await acceptNonce(apiKey, nonceMs, nonce, t))) {
      throw new ServiceError(ErrorCodes.AUTH_REPLAY, 'Biz-Api-Nonce: already used with this key; sign each request with a new nonce');
    }
    return { apiKey, walletScope: key.wallets ?? undefined, keyLabel: key.label };
  };
  return Object.assign(authenticate, { early });
}
