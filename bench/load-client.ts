import { readFileSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { sign } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { apiKeyOfSecret, privateKeyFromSeed, signedHeaders, signingDigest, type SignedParts } from '../src/main/service/keys/sign';

/*
 * One process of load clients for bench/load.ts (started by it with `node --import tsx`, over an
 * IPC channel; never run by hand). It is sent a LoadJob, builds its clients' requests, answers
 * 'ready', waits for 'go' (a wall-clock start shared by every client process), then runs its
 * clients, each on its own kept-alive connection sending requests back to back until the job's
 * end time or its request bound, and sends back what every answer was and how long it took.
 */

export interface LoadJob {
  /** http://127.0.0.1:PORT; anything else is refused before a byte is sent. */
  baseUrl: string;
  /** Path and query, e.g. /nps/chains or /nps/bill/verify/txs. */
  path: string;
  verify: boolean;
  clients: number;
  /** Index of this process's first client among all (where its clients start in the claims). */
  firstClient: number;
  durationMs: number;
  maxRequestsPerClient: number;
  /** A refused client waits the Retry-After its 4003 names (within the job's end) before sending again. */
  honourRetryAfter: boolean;
  timeoutMs: number;
  /** Verify only: claims per request, the claims file ([transaction_id, amount] pairs). */
  items: number;
  claimsFile: string;
  seed: number;
  /** Verify only: the API secrets of this process's keys (no other process uses them); its clients take them in turn. */
  secrets: string[];
  /** Every nonce sent is at least this: above any an earlier run of the same keys sent. */
  minNonce: number;
}

export interface LoadResult {
  /** Answers by kind: done (status 0), refused (4003, HTTP 503, Retry-After: 1), anything else by "status S, HTTP H" or the error. */
  done: number;
  refused: number;
  other: Record<string, number>;
  /** A few messages of other answers, to show. */
  otherSamples: string[];
  /** The service's sentence in the first refusal (it names the bound). */
  refusalMsg: string | null;
  /** Milliseconds from sending a request to the last byte of its answer. */
  doneMs: Float64Array;
  refusedMs: Float64Array;
  /** The same for each client's first answer (done or refused), which opened its connection: counted in the two above too. */
  firstMs: Float64Array;
  /** Each client's first request: ms from sending it to its connection being made (the kernel's handshake, before the service accepts it). */
  connectMs: Float64Array;
  /** How late this process's own event loop ran over the run (ms): a late loop inflates every time measured here. */
  loopDelayMax: number;
  loopDelayP99: number;
  /** Verify only: claims answered in done answers, and how many of them matched. */
  claimsAnswered: number;
  claimsMatched: number;
  /** Wall clock (Date.now) of the first send and of the last answer. */
  firstSendAt: number;
  lastAnswerAt: number;
  /** This process's CPU time (user + system) over the run, ms. */
  cpuMs: number;
  /** Verify: the largest nonce sent, and how far ahead of the clock a nonce ever was (ms): the service takes 60 s. */
  maxNonce: number;
  maxNonceLeadMs: number;
}

type Headers = Record<string, string>;

/**
 * A key's signer: the very headers signedHeaders makes (checked against it here), with the
 * private key decoded once. signedHeaders decodes it twice a request (the key, then the signature),
 * and that decoding, not the service, set the pace of the verify load: a load generator must cost
 * less than what it measures.
 */
function signerOf(secret: string): (parts: Omit<SignedParts, 'nonce'>, nowMs: number) => Headers {
  const privateKey = privateKeyFromSeed(secret);
  const apiKey = apiKeyOfSecret(secret);
  const headersOf = (parts: Omit<SignedParts, 'nonce'>, nowMs: number): Headers => {
    const nonce = String(nowMs);
    return {
      'BIZ-API-KEY': apiKey,
      'Biz-Api-Nonce': nonce,
      'Biz-Api-Signature': sign(null, signingDigest({ ...parts, nonce }), privateKey).toString('hex'),
    };
  };
  const probe = { method: 'POST', path: '/nps/bill/verify/txs', query: 'shape=A', body: '{"txs":[{"transaction_id":"x","amount":"1"}]}' };
  if (!isDeepStrictEqual(headersOf(probe, 1_700_000_000_000), signedHeaders(secret, probe, 1_700_000_000_000)))
    throw new Error('load client: its signed headers differ from signedHeaders');
  return headersOf;
}

type Message = { type: 'job'; job: LoadJob } | { type: 'go'; startAt: number };

/** Send to the parent; `then` once the message is on its way (disconnecting before would lose it). */
const send = (m: unknown, then: () => void) => process.send!(m, undefined, {}, then);

interface Reply {
  /** ms from sending to the socket's connect event, when this request opened the connection. */
  connectMs: number | null;
  http: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function get(
  agent: Agent,
  url: URL,
  path: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
) {
  return new Promise<Reply>((resolve, reject) => {
    const t0 = performance.now();
    let connectMs: number | null = null;
    const req = request({ host: url.hostname, port: url.port, path, method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ connectMs, http: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.once('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => (connectMs = performance.now() - t0));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The envelope's status: read from the front of the answer (the serializer writes it first), else by parsing it. */
function envelopeStatus(body: string): { status: number | null; msg: string } {
  const m = /^\{"status":(-?\d+),/.exec(body);
  if (m && m[1] === '0') return { status: 0, msg: '' };
  try {
    const json = JSON.parse(body) as { status?: unknown; msg?: unknown };
    return { status: typeof json.status === 'number' ? json.status : null, msg: typeof json.msg === 'string' ? json.msg : '' };
  } catch {
    return { status: null, msg: body.slice(0, 200) };
  }
}

function count(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

interface Prepared {
  url: URL;
  method: string;
  pathOnly: string;
  query: string;
  /** Verify: a pool of bodies for this process (each client walks it from its own place), and a signer per key. */
  bodies: string[];
  signers: ((parts: Omit<SignedParts, 'nonce'>, nowMs: number) => Headers)[];
}

function prepare(job: LoadJob): Prepared {
  const url = new URL(job.baseUrl);
  if (url.hostname !== '127.0.0.1' || url.protocol !== 'http:')
    throw new Error(`load clients send to http://127.0.0.1 only, not ${job.baseUrl}`);
  const q = job.path.indexOf('?');
  const prepared: Prepared = {
    url,
    method: job.verify ? 'POST' : 'GET',
    pathOnly: q < 0 ? job.path : job.path.slice(0, q),
    query: q < 0 ? '' : job.path.slice(q + 1),
    bodies: [],
    signers: [],
  };
  if (job.verify) {
    const claims = JSON.parse(readFileSync(job.claimsFile, 'utf8')) as [string, string][];
    if (job.secrets.length === 0) throw new Error('load client: no API key for verify');
    prepared.signers = job.secrets.map(signerOf);
    // Claims spread over the whole ledger, differently in each process (the file's rows are in no particular order).
    const stride = 7919;
    let at = (job.seed * 104729 + job.firstClient * 1009) % claims.length;
    prepared.bodies = Array.from({ length: 256 }, () => {
      const items: string[] = [];
      for (let i = 0; i < job.items; i++) {
        at = (at + stride) % claims.length;
        const [transaction_id, amount] = claims[at]!;
        items.push(JSON.stringify({ transaction_id, amount }));
      }
      return `{"txs":[${items.join(',')}]}`;
    });
  }
  return prepared;
}

async function run(job: LoadJob, { url, method, pathOnly, query, bodies, signers }: Prepared, startAt: number): Promise<LoadResult> {
  const result: LoadResult = {
    done: 0,
    refused: 0,
    other: {},
    otherSamples: [],
    refusalMsg: null,
    doneMs: new Float64Array(0),
    refusedMs: new Float64Array(0),
    firstMs: new Float64Array(0),
    connectMs: new Float64Array(0),
    loopDelayMax: 0,
    loopDelayP99: 0,
    claimsAnswered: 0,
    claimsMatched: 0,
    firstSendAt: Infinity,
    lastAnswerAt: 0,
    cpuMs: 0,
    maxNonce: 0,
    maxNonceLeadMs: 0,
  };
  // Nonces: the signing time in ms, kept increasing per key (the clients sharing a key are in this process).
  const lastNonce = signers.map(() => job.minNonce - 1);
  const doneMs: number[] = [];
  const refusedMs: number[] = [];
  const firstMs: number[] = [];
  const connectMs: number[] = [];
  const other = (key: string, detail: string) => {
    result.other[key] = (result.other[key] ?? 0) + 1;
    if (result.otherSamples.length < 5) result.otherSamples.push(`${key}: ${detail}`);
  };

  const endAt = startAt + job.durationMs;
  const client = async (c: number) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let next = Math.floor((c * bodies.length) / Math.max(1, job.clients));
    try {
      // Bounded twice: by the end time and by a number of requests.
      for (let sent = 0; sent < job.maxRequestsPerClient && Date.now() < endAt; sent++) {
        let headers: Record<string, string> = {};
        let body: string | undefined;
        if (job.verify) {
          body = bodies[next++ % bodies.length]!;
          const k = c % signers.length;
          const now = Date.now();
          const nonce = (lastNonce[k] = Math.max(now, lastNonce[k]! + 1));
          result.maxNonceLeadMs = Math.max(result.maxNonceLeadMs, nonce - now);
          headers = {
            ...signers[k]!({ method, path: pathOnly, query, body }, nonce),
            'Content-Type': 'application/json',
            'Content-Length': String(Buffer.byteLength(body)),
          };
        }
        if (sent === 0) result.firstSendAt = Math.min(result.firstSendAt, Date.now());
        const t0 = performance.now();
        let reply: Reply;
        try {
          reply = await get(agent, url, job.path, method, headers, body, job.timeoutMs);
        } catch (err) {
          const e = err as NodeJS.ErrnoException;
          other(`error ${e.code ?? e.message}`, e.message);
          result.lastAnswerAt = Math.max(result.lastAnswerAt, Date.now());
          continue;
        }
        const ms = performance.now() - t0;
        if (sent === 0) {
          firstMs.push(ms);
          if (reply.connectMs !== null) connectMs.push(reply.connectMs);
        }
        result.lastAnswerAt = Math.max(result.lastAnswerAt, Date.now());
        const { status, msg } = envelopeStatus(reply.body);
        if (status === 0 && reply.http === 200) {
          if (job.verify) {
            const answered = count(reply.body, '"result":');
            if (answered !== job.items) {
              other('status 0 with a wrong number of results', `${answered} results for ${job.items} claims`);
              continue;
            }
            result.claimsAnswered += answered;
            result.claimsMatched += count(reply.body, '"result":true');
          }
          result.done++;
          doneMs.push(ms);
        } else if (job.verify && status === 4003 && reply.http === 503 && reply.headers['retry-after'] === '1') {
          result.refused++;
          result.refusalMsg ??= msg;
          refusedMs.push(ms);
          if (job.honourRetryAfter)
            await new Promise((resolve) =>
              setTimeout(resolve, Math.min(Number(reply.headers['retry-after']) * 1000, Math.max(0, endAt - Date.now()))),
            );
        } else {
          other(
            `status ${status ?? '?'}, HTTP ${reply.http}${status === 4003 ? `, Retry-After ${reply.headers['retry-after'] ?? 'none'}` : ''}`,
            msg,
          );
        }
      }
    } finally {
      agent.destroy();
    }
  };

  const cpu0 = process.cpuUsage();
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  await Promise.all(Array.from({ length: job.clients }, (_, c) => client(c)));
  delay.disable();
  result.loopDelayMax = delay.max / 1e6;
  result.loopDelayP99 = delay.percentile(99) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  result.cpuMs = (cpu.user + cpu.system) / 1000;
  result.maxNonce = Math.max(0, ...lastNonce);
  result.doneMs = Float64Array.from(doneMs);
  result.refusedMs = Float64Array.from(refusedMs);
  result.firstMs = Float64Array.from(firstMs);
  result.connectMs = Float64Array.from(connectMs);
  return result;
}

let ready: { job: LoadJob; prepared: Prepared } | undefined;
const fail = (err: Error) => send({ type: 'failed', message: err.stack ?? err.message }, () => process.disconnect());
process.on('message', (m: Message) => {
  if (m.type === 'job') {
    try {
      ready = { job: m.job, prepared: prepare(m.job) };
    } catch (err) {
      return fail(err as Error);
    }
    send({ type: 'ready' }, () => {});
  } else if (m.type === 'go' && ready) {
    const { job, prepared } = ready;
    setTimeout(
      () => run(job, prepared, m.startAt).then((result) => send({ type: 'result', result }, () => process.disconnect()), fail),
      Math.max(0, m.startAt - Date.now()),
    );
  }
});
