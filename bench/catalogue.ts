import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openService } from '../src/main/service/index';
import { startServer } from '../src/main/service/http/server';
import { LOG_LEVELS, openLog, type LogLevel } from '../src/main/service/log';

/*
 * npm run bench:catalogue [-- --rounds 5 --duration 5 --connections 10 --warmup 1 --json --keep]
 *
 * How fast the service answers the catalogue's read routes, against the ceiling for the same
 * answer on this machine:
 *
 *  - the service: opened on a fresh data directory under os.tmpdir() (the seeded catalogue only)
 *    and started with startServer on 127.0.0.1, a free port, rate limiting OFF (at its default of
 *    1200 a minute per address the load would measure the limiter's 429s, not the routes);
 *  - the ceiling: a bare node:http server on another free 127.0.0.1 port that answers each path
 *    with the service's own answer, fetched once beforehand: the same bytes and Content-Type, a
 *    Buffer computed before the load, so no work per request beyond node:http itself. The
 *    service's answer is only ever handled as bytes, never parsed: the bench does not depend on
 *    the answer's fields.
 *
 * Method:
 *  - The load comes from autocannon run as a CHILD PROCESS (its CLI, with --json), not through its
 *    API in this process: in one process the client and the server would share one event loop
 *    and one core, and the client's own cost would be counted against the server. Both servers
 *    run here, in this process, which does nothing else while a round runs (it waits for the
 *    child); only one of them is under load at a time.
 *  - Service and bare are ALTERNATED, round after round, for each path (and the order flips each
 *    round: service-bare, bare-service, ...): whatever drifts over a run (CPU clock and heat,
 *    other processes, the state of the heap) falls on both alike, and neither is always first.
 *    The ratio service/bare is taken per round, from two measurements made seconds apart.
 *  - The MEDIAN of the rounds is reported (req/s, p99 and the per-round ratios): one round
 *    disturbed by something else on the machine moves a mean, not a median.
 *  - Before the timed rounds of each path, a short warm-up (--warmup seconds, default 1) against
 *    both, not counted: V8 compiles the hot paths and the first connections are made then.
 *  - Every answer of the service in the run (the first fetch, the warm-ups, the rounds) must be
 *    HTTP 200, with no connection errors or timeouts: otherwise the run stops with an error, as
 *    requests/s of error answers would mean nothing. The bare server is held to the same.
 *  - req/s is autocannon's requests.average (the mean of its one-second samples); p99 is its
 *    latency p99, in ms at autocannon's resolution of 1 ms.
 * Load goes to 127.0.0.1 only (checked before each autocannon run).
 */

const PATHS = ['/nps/chains', '/nps/tokens?page_size=100', '/nps/tokens?chain_id=ETH'] as const;
const HOST = '127.0.0.1';
const PIPELINING = 1;

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    // The service's log at this level, as `serve` keeps it (info: a line per request); silent: none.
    'log-level': { type: 'string', default: 'info' },
  },
});
if (!(LOG_LEVELS as readonly string[]).includes(values['log-level']))
  throw new Error(`--log-level: must be one of ${LOG_LEVELS.join(', ')}, got ${values['log-level']}`);

/** A whole number in [min, max], or an error naming the option: every loop below is bounded by these. */
function intArg(name: string, text: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new Error(`--${name}: must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return n;
}
const rounds = intArg('rounds', values.rounds, 1, 100);
const duration = intArg('duration', values.duration, 1, 600);
const connections = intArg('connections', values.connections, 1, 1000);
const warmup = intArg('warmup', values.warmup, 0, 60);

const command = ['npm run bench:catalogue', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
// With --json, stdout carries the summary only; the progress goes to stderr.
const say = values.json ? (line: string) => process.stderr.write(line + '\n') : (line: string) => console.log(line);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The autocannon CLI (its package's main is the CLI script). */
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon');

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
  headerNames: string[];
}

/** One GET over a fresh connection, the answer's bytes as sent (no decoding). */
function get(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks),
          headerNames: res.rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase()),
        }),
      );
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${url}: no answer in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

interface Cannon {
  req_s: number;
  p99_ms: number;
  requests: number;
  status_codes: Record<string, number>;
}

/** The fields of autocannon's --json result read here. */
interface CannonJson {
  requests: { average: number; total: number };
  latency: { p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}

/**
 * Loads `url` for `seconds` from an autocannon child process and returns its numbers. Throws
 * (loudly, with the counts) on any answer other than 200, any connection error or timeout, or no
 * answer at all.
 */
function cannon(url: string, seconds: number, who: string): Promise<Cannon> {
  if (new URL(url).hostname !== HOST) throw new Error(`refusing to load ${url}: only ${HOST} is a target`);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [AUTOCANNON, '--json', '-n', '-c', String(connections), '-p', String(PIPELINING), '-d', String(seconds), url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    // Bounded: autocannon stops itself after `seconds`; a child that does not is killed.
    const limitMs = (seconds + 30) * 1000;
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0)
        return reject(
          new Error(
            `autocannon against ${who} ${url} ended with ${signal ?? `code ${code}`}${signal === 'SIGKILL' ? ` (not done after ${limitMs / 1000} s)` : ''}:\n${err}`,
          ),
        );
      const line = out
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .pop();
      if (!line) return reject(new Error(`autocannon against ${who} ${url} printed no JSON result:\n${out}\n${err}`));
      const r = JSON.parse(line) as CannonJson;
      const statusCodes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
      const answered = Object.values(statusCodes).reduce((a, b) => a + b, 0);
      const other = Object.entries(statusCodes).filter(([k]) => k !== '200');
      if (r.non2xx > 0 || other.length > 0 || r.errors > 0 || r.timeouts > 0 || answered === 0) {
        return reject(
          new Error(
            `${who} ${url}: not every answer was HTTP 200 — status counts ${JSON.stringify(statusCodes)}, non2xx ${r.non2xx}, connection errors ${r.errors}, timeouts ${r.timeouts}`,
          ),
        );
      }
      resolve({ req_s: r.requests.average, p99_ms: r.latency.p99, requests: answered, status_codes: statusCodes });
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The ceiling: answers each path with its precomputed bytes; nothing is computed per request. */
function startBare(answers: Map<string, { body: Buffer; contentType: string }>): Promise<{ server: Server; port: number }> {
  const prepared = new Map(
    [...answers].map(([path, a]) => [
      path,
      { body: a.body, headers: { 'content-type': a.contentType, 'content-length': String(a.body.length) } },
    ]),
  );
  const notFound = Buffer.from('not found\n');
  const server = createServer((req, res) => {
    const a = prepared.get(req.url ?? '');
    if (!a) {
      res.writeHead(404, { 'content-type': 'text/plain', 'content-length': String(notFound.length) }).end(notFound);
      return;
    }
    res.writeHead(200, a.headers).end(a.body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      if (typeof address !== 'object' || !address) return reject(new Error('bare server: no port'));
      resolve({ server, port: address.port });
    });
  });
}

interface Round {
  service: Cannon;
  bare: Cannon;
  ratio: number;
}
interface PathResult {
  path: string;
  status: number;
  content_type: string;
  body_bytes: number;
  service_headers: string[];
  rounds: Round[];
  median: { service_req_s: number; bare_req_s: number; ratio: number; service_p99_ms: number; bare_p99_ms: number };
}

const date = new Date().toISOString();
const machine = { cpu: cpus()[0]?.model ?? '?', cores: cpus().length };
say(`machine: ${machine.cores} CPUs (${machine.cpu}), load average ${loadavg()[0]!.toFixed(2)}; node ${process.version}; ${date}`);
say(`command: ${command}`);
say(
  `settings: ${rounds} rounds x ${duration} s per server per path, ${connections} connections, pipelining ${PIPELINING}, warm-up ${warmup} s; autocannon in a child process; ` +
    `service rate limiting OFF (rateLimit: false); service log ${values['log-level']}; all load on ${HOST}`,
);

const dir = mkdtempSync(join(tmpdir(), 'nps-bench-catalogue-'));
const logger = await openLog(join(dir, 'data'), values['log-level'] as LogLevel);
const service = openService({ dataDir: join(dir, 'data'), logger });
let running: Awaited<ReturnType<typeof startServer>> | undefined;
let bare: Server | undefined;
const serviceAnswered: Record<string, number> = {};
const count = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
};
try {
  running = await startServer(service, { host: HOST, port: 0, rateLimit: false, logger });
  const serviceBase = `http://${HOST}:${running.port}`;

  // 1. The service's answer to each path, once: the bytes the ceiling will send.
  const answers = new Map<string, Answer>();
  for (const path of PATHS) {
    const a = await get(serviceBase + path);
    count(serviceAnswered, { [String(a.status)]: 1 });
    if (a.status !== 200) throw new Error(`service ${path}: HTTP ${a.status} (expected 200): ${a.body.subarray(0, 300).toString()}`);
    if (a.headerNames.includes('content-encoding'))
      throw new Error(`service ${path}: the answer is encoded; the ceiling would not send the same bytes`);
    answers.set(path, a);
    say(`service ${path}: HTTP ${a.status}, ${a.contentType}, ${fmt(a.body.length)} bytes (headers: ${a.headerNames.join(', ')})`);
  }

  // 2. The ceiling, checked to answer the very same bytes.
  const started = await startBare(answers);
  bare = started.server;
  const bareBase = `http://${HOST}:${started.port}`;
  for (const path of PATHS) {
    const a = await get(bareBase + path);
    const want = answers.get(path)!;
    if (a.status !== 200 || a.contentType !== want.contentType || !a.body.equals(want.body))
      throw new Error(`bare ${path}: does not answer the service's bytes`);
  }
  say(`bare node:http ceiling on ${bareBase}, service on ${serviceBase}`);

  // 3. Per path: warm-up of both, then the rounds, alternating service and bare.
  const results: PathResult[] = [];
  for (const path of PATHS) {
    const a = answers.get(path)!;
    if (warmup > 0) {
      count(serviceAnswered, (await cannon(serviceBase + path, warmup, 'service')).status_codes);
      await cannon(bareBase + path, warmup, 'bare');
    }
    const done: Round[] = [];
    for (let r = 0; r < rounds; r++) {
      // Flip the order each round so neither server is always the first of the pair.
      const order = r % 2 === 0 ? (['service', 'bare'] as const) : (['bare', 'service'] as const);
      const got: Partial<Record<'service' | 'bare', Cannon>> = {};
      for (const who of order) {
        got[who] = await cannon((who === 'service' ? serviceBase : bareBase) + path, duration, who);
        if (who === 'service') count(serviceAnswered, got[who].status_codes);
      }
      const round = { service: got.service!, bare: got.bare!, ratio: got.service!.req_s / got.bare!.req_s };
      done.push(round);
      say(
        `  ${path} round ${r + 1}/${rounds}: service ${fmt(round.service.req_s)} req/s (p99 ${round.service.p99_ms} ms), ` +
          `bare ${fmt(round.bare.req_s)} req/s (p99 ${round.bare.p99_ms} ms), ratio ${round.ratio.toFixed(3)}`,
      );
    }
    results.push({
      path,
      status: a.status,
      content_type: a.contentType,
      body_bytes: a.body.length,
      service_headers: a.headerNames,
      rounds: done,
      median: {
        service_req_s: median(done.map((d) => d.service.req_s)),
        bare_req_s: median(done.map((d) => d.bare.req_s)),
        ratio: median(done.map((d) => d.ratio)),
        service_p99_ms: median(done.map((d) => d.service.p99_ms)),
        bare_p99_ms: median(done.map((d) => d.bare.p99_ms)),
      },
    });
  }

  // Every answer the service gave in the run (each cannon() run already refused any other).
  const non200 = Object.entries(serviceAnswered).filter(([k]) => k !== '200');
  if (non200.length > 0) throw new Error(`the service answered other than HTTP 200: ${JSON.stringify(serviceAnswered)}`);
  const serviceTotal = serviceAnswered['200'] ?? 0;

  if (values.json) {
    console.log(
      JSON.stringify(
        {
          command,
          date,
          machine: { ...machine, load_average_1m_after: loadavg()[0] },
          node: process.version,
          settings: {
            rounds,
            duration_s: duration,
            connections,
            pipelining: PIPELINING,
            warmup_s: warmup,
            host: HOST,
            rate_limit: false,
            client: 'autocannon 9 CLI in a child process',
          },
          service_answers: serviceAnswered,
          paths: results,
        },
        null,
        2,
      ),
    );
  } else {
    const head = ['path', 'bytes', 'service req/s', 'bare req/s', 'service/bare', 'p99 service', 'p99 bare'];
    const rows = results.map((p) => [
      p.path,
      fmt(p.body_bytes),
      fmt(p.median.service_req_s),
      fmt(p.median.bare_req_s),
      p.median.ratio.toFixed(3),
      `${p.median.service_p99_ms} ms`,
      `${p.median.bare_p99_ms} ms`,
    ]);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    console.log('');
    console.log(
      `medians of ${rounds} rounds of ${duration} s, ${connections} connections, pipelining ${PIPELINING}; service/bare is the median of the per-round ratios`,
    );
    console.log(line(head));
    for (const r of rows) console.log(line(r));
    console.log(`all ${fmt(serviceTotal)} answers of the service in the run were HTTP 200; rate limiting was off`);
    console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`);
  }
} finally {
  if (bare) await new Promise((resolve) => bare!.close(resolve));
  if (running) await running.close();
  service.close();
  if (values.keep) say(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
