import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isIP } from 'node:net';
import { ErrorCodes } from '../../../shared/errors';
import { ServiceError } from '../errors';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './limit-defaults';

/*
 * Rate limits protect the service without punishing its users (docs/api.md, "Rate
 * limit"): three buckets, each counted by @fastify/rate-limit over a minute.
 * - signed calls: per API key, charged only once the signature shows the request is the key's;
 * - unsigned reads (catalogue, address check, anything unsigned under /nps): per client, with a
 *   limit high enough for a busy local tool;
 * - failed authentication: per client, in a bucket of its own, so a flood of bad signatures never
 *   uses up what good signed requests from the same address need.
 */

const WINDOW_MS = 60_000;

/**
 * The client a request counts against. Every loopback address is one client: a tool calling from
 * 127.0.0.2 is the same machine as one calling from 127.0.0.1 and gets no bucket of its own.
 */
export function clientOf(ip: string): string {
  const v4 = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  if (v4 === '::1' || v4.startsWith('127.')) return 'loopback';
  return v4;
}

/** Charge a request to a bucket: resolves when it may go on, throws 4002 (with Retry-After set) when the bucket is spent. */
type Charge = (req: FastifyRequest, reply: FastifyReply, key: string) => Promise<void>;

export interface Limiters {
  signed?: Charge;
  reads?: Charge;
  failedAuth?: Charge;
}

/** The plugin, registered without any route hook of its own: the service charges requests where it knows who made them. */
export function registerRateLimit(app: FastifyInstance): void {
  void app.register(rateLimit, { global: false });
}

/** The three buckets (for a scope registered after registerRateLimit); undefined where a limit is 0 or limiting is off. */
export function createLimiters(app: FastifyInstance, limits: Partial<RateLimits> | false): Limiters {
  if (limits === false) return {};
  const all = { ...DEFAULT_RATE_LIMITS, ...limits };
  const keys = new WeakMap<FastifyRequest, string>();
  const make = (max: number, what: string): Charge | undefined => {
    if (!(max > 0)) return undefined;
    const check = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator: (req) => keys.get(req) ?? '' });
    return async (req, reply, key) => {
      keys.set(req, key);
      const state = await check(req);
      if (state.isAllowed || !state.isExceeded) return;
      const seconds = Math.max(1, state.ttlInSeconds);
      reply.header('retry-after', String(seconds));
      throw new ServiceError(ErrorCodes.RATE_LIMITED, `rate limited: more than ${max} ${what} a minute; retry in ${seconds} s`);
    };
  };
  return {
    signed: make(all.signed, 'signed requests with this API key'),
    reads: make(all.reads, 'unsigned requests from this client'),
    failedAuth: make(all.failedAuth, 'requests failing authentication from this client'),
  };
}
