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
import { startServe, type ServingProcess } from '../src/main/cli/serve.test-support';
import { processCpuMs } from './proc';

/*
 * npm run bench:catalogue [-- --rounds 5 --duration 5 --connections 10 --warmup 1 --log-level info --json --keep]
 * npm run bench:catalogue -- --log-level silent,info     # what the log costs: two services, interleaved
 * npm run bench:catalogue -- --serve --log-level silent,info --rounds 15 --duration 2   # each service as `serve`, a process of its own
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
    // Several levels (silent,info): one service each, in the same rounds as the ceiling, their order
    // turning each round, and the ratio of each to the first level taken per round.
    'log-level': { type: 'string', default: 'info' },
    // Each service as `serve` in a process of its own (the compiled CLI, as a user runs it), its
    // CPU read from /proc: services that share nothing, not even V8's compiled code.
    serve: { type: 'boolean', default: false },
  },
});
const logLevels = values['log-level'].split(',') as LogLevel[];
for (const level of logLevels)
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new Error(`--log-level: each must be one of ${LOG_LEVELS.join(', ')}, got ${level}`);
if (new Set(logLevels).size !== logLevels.length) throw new Error('--log-level: each level once');

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
  /** CPU time (user + system) the server's process spent over the run per answer, µs: the server under load is the only thing it runs then. */
  cpu_us: number;
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
function cannon(url: string, seconds: number, who: string, pid?: number): Promise<Cannon> {
  if (new URL(url).hostname !== HOST) throw new Error(`refusing to load ${url}: only ${HOST} is a target`);
  const cpu0 = cpuUs(pid);
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
      resolve({
        req_s: r.requests.average,
        p99_ms: r.latency.p99,
        cpu_us: (cpuUs(pid) - cpu0) / answered,
        requests: answered,
        status_codes: statusCodes,
      });
    });
  });
}

/** CPU time (user + system, every thread) of this process, or of process `pid` from /proc, µs. */
function cpuUs(pid?: number): number {
  if (pid === undefined) {
    const c = process.cpuUsage();
    return c.user + c.system;
  }
  const ms = processCpuMs(pid);
  if (ms === null) throw new Error(`--serve: no /proc/${pid}/stat to read the service's CPU from (Linux only)`);
  return ms * 1000;
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

/** One round of a path: the ceiling and each service (by log level), measured one after the other. */
interface Round {
  bare: Cannon;
  services: Record<string, Cannon>;
  /** Per level: its req/s over the ceiling's in this round. */
  ratio: Record<string, number>;
  /** Per level: its req/s over the first level's in this round (1 for the first). */
  vsFirst: Record<string, number>;
  /** Per level: its CPU time per answer over the first level's in this round. */
  cpuVsFirst: Record<string, number>;
}
interface LevelMedian {
  service_req_s: number;
  ratio: number;
  vs_first: number;
  service_p99_ms: number;
  cpu_us: number;
  cpu_vs_first: number;
}
interface PathResult {
  path: string;
  status: number;
  content_type: string;
  body_bytes: number;
  service_headers: string[];
  rounds: Round[];
  bare: { req_s: number; p99_ms: number; cpu_us: number };
  /** Medians over the rounds, per log level. */
  by_level: Record<string, LevelMedian>;
}

const date = new Date().toISOString();
const machine = { cpu: cpus()[0]?.model ?? '?', cores: cpus().length };
say(`machine: ${machine.cores} CPUs (${machine.cpu}), load average ${loadavg()[0]!.toFixed(2)}; node ${process.version}; ${date}`);
say(`command: ${command}`);
say(
  `settings: ${rounds} rounds x ${duration} s per server per path, ${connections} connections, pipelining ${PIPELINING}, warm-up ${warmup} s; autocannon in a child process; ` +
    `service rate limiting OFF (rateLimit: false); service log ${logLevels.join(', ')}${logLevels.length > 1 ? ' (one service each, interleaved with the ceiling, the order turning each round)' : ''}; all load on ${HOST}`,
);

const dir = mkdtempSync(join(tmpdir(), 'nps-bench-catalogue-'));
interface Served {
  level: LogLevel;
  service?: ReturnType<typeof openService>;
  running?: Awaited<ReturnType<typeof startServer>>;
  /** With --serve: the service's process. */
  serving?: ServingProcess;
  base: string;
}
const served: Served[] = [];
let bare: Server | undefined;
const serviceAnswered: Record<string, number> = {};
const count = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
};
try {
  for (const level of logLevels) {
    const dataDir = join(dir, `data-${level}`);
    if (values.serve) {
      const serving = await startServe(dataDir, ['--host', HOST, '--rate-limit', '0', '--read-limit', '0', '--log-level', level]);
      served.push({ level, serving, base: serving.url });
      continue;
    }
    const logger = await openLog(dataDir, level);
    const service = openService({ dataDir, logger });
    const s: Served = { level, service, base: '' };
    served.push(s);
    s.running = await startServer(service, { host: HOST, port: 0, rateLimit: false, logger });
    s.base = `http://${HOST}:${s.running.port}`;
  }
  const first = served[0]!;

  // 1. The service's answer to each path, once: the bytes the ceiling will send (every service answers the same).
  const answers = new Map<string, Answer>();
  for (const path of PATHS) {
    for (const s of served) {
      const a = await get(s.base + path);
      count(serviceAnswered, { [String(a.status)]: 1 });
      if (a.status !== 200) throw new Error(`service ${path}: HTTP ${a.status} (expected 200): ${a.body.subarray(0, 300).toString()}`);
      if (a.headerNames.includes('content-encoding'))
        throw new Error(`service ${path}: the answer is encoded; the ceiling would not send the same bytes`);
      if (s === first) answers.set(path, a);
      else if (!a.body.equals(answers.get(path)!.body))
        throw new Error(`service (log ${s.level}) ${path}: another answer than log ${first.level}'s`);
    }
    const a = answers.get(path)!;
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
  say(
    `bare node:http ceiling on ${bareBase}, service${served.length > 1 ? 's' : ''} on ${served.map((s) => `${s.base} (log ${s.level})`).join(', ')}`,
  );

  // 3. Per path: warm-up of each, then the rounds, the servers one after the other, the order turning each round.
  const who = ['bare', ...logLevels] as const;
  const results: PathResult[] = [];
  for (const path of PATHS) {
    const a = answers.get(path)!;
    if (warmup > 0) {
      for (const s of served)
        count(serviceAnswered, (await cannon(s.base + path, warmup, `service (log ${s.level})`, s.serving?.child.pid)).status_codes);
      await cannon(bareBase + path, warmup, 'bare');
    }
    const done: Round[] = [];
    for (let r = 0; r < rounds; r++) {
      // Turn the order each round so no server is always first or always after the same one.
      const order = who.map((_, i) => who[(i + r) % who.length]!);
      const got: Record<string, Cannon> = {};
      for (const w of order) {
        const s = served.find((x) => x.level === w);
        got[w] = await cannon((s ? s.base : bareBase) + path, duration, s ? `service (log ${s.level})` : 'bare', s?.serving?.child.pid);
        if (s) count(serviceAnswered, got[w].status_codes);
      }
      const services = Object.fromEntries(logLevels.map((l) => [l, got[l]!]));
      const round: Round = {
        bare: got.bare!,
        services,
        ratio: Object.fromEntries(logLevels.map((l) => [l, got[l]!.req_s / got.bare!.req_s])),
        vsFirst: Object.fromEntries(logLevels.map((l) => [l, got[l]!.req_s / got[first.level]!.req_s])),
        cpuVsFirst: Object.fromEntries(logLevels.map((l) => [l, got[l]!.cpu_us / got[first.level]!.cpu_us])),
      };
      done.push(round);
      say(
        `  ${path} round ${r + 1}/${rounds} (order ${order.join(', ')}): ` +
          logLevels
            .map(
              (l) =>
                `service log ${l} ${fmt(got[l]!.req_s)} req/s (p99 ${got[l]!.p99_ms} ms, ${round.ratio[l]!.toFixed(3)}× bare, ${got[l]!.cpu_us.toFixed(1)} µs CPU/answer)`,
            )
            .join(', ') +
          `, bare ${fmt(round.bare.req_s)} req/s (p99 ${round.bare.p99_ms} ms, ${round.bare.cpu_us.toFixed(1)} µs CPU/answer)` +
          logLevels
            .slice(1)
            .map((l) => `; ${l}/${first.level} ${round.vsFirst[l]!.toFixed(3)} req/s, ${round.cpuVsFirst[l]!.toFixed(3)} CPU per answer`)
            .join(''),
      );
    }
    results.push({
      path,
      status: a.status,
      content_type: a.contentType,
      body_bytes: a.body.length,
      service_headers: a.headerNames,
      rounds: done,
      bare: {
        req_s: median(done.map((d) => d.bare.req_s)),
        p99_ms: median(done.map((d) => d.bare.p99_ms)),
        cpu_us: median(done.map((d) => d.bare.cpu_us)),
      },
      by_level: Object.fromEntries(
        logLevels.map((l) => [
          l,
          {
            service_req_s: median(done.map((d) => d.services[l]!.req_s)),
            ratio: median(done.map((d) => d.ratio[l]!)),
            vs_first: median(done.map((d) => d.vsFirst[l]!)),
            service_p99_ms: median(done.map((d) => d.services[l]!.p99_ms)),
            cpu_us: median(done.map((d) => d.services[l]!.cpu_us)),
            cpu_vs_first: median(done.map((d) => d.cpuVsFirst[l]!)),
          },
        ]),
      ),
    });
  }

  // Every answer the services gave in the run (each cannon() run already refused any other).
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
            log_levels: logLevels,
            client: 'autocannon 9 CLI in a child process',
            services: values.serve ? '`serve`, a process each' : 'in this process',
          },
          service_answers: serviceAnswered,
          paths: results,
        },
        null,
        2,
      ),
    );
  } else {
    const head = ['path', 'bytes', 'bare req/s', 'p99 bare', 'bare CPU µs'];
    for (const l of logLevels) {
      head.push(`log ${l} req/s`, `${l}/bare`, `p99 ${l}`, `${l} CPU µs`);
      if (l !== first.level) head.push(`${l}/${first.level} req/s`, `${l}/${first.level} CPU`);
    }
    const rows = results.map((p) => {
      const cells = [p.path, fmt(p.body_bytes), fmt(p.bare.req_s), `${p.bare.p99_ms} ms`, p.bare.cpu_us.toFixed(1)];
      for (const l of logLevels) {
        const m = p.by_level[l]!;
        cells.push(fmt(m.service_req_s), m.ratio.toFixed(3), `${m.service_p99_ms} ms`, m.cpu_us.toFixed(1));
        if (l !== first.level) cells.push(m.vs_first.toFixed(3), m.cpu_vs_first.toFixed(3));
      }
      return cells;
    });
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    console.log('');
    console.log(
      `medians of ${rounds} rounds of ${duration} s, ${connections} connections, pipelining ${PIPELINING}; each ratio is the median of the per-round ratios; ` +
        `CPU µs: the server's process's CPU time (every thread) over a run, per answer: the server under load is all it runs then` +
        (values.serve ? '; each service is `serve` in a process of its own, its CPU from /proc' : ''),
    );
    console.log(line(head));
    for (const r of rows) console.log(line(r));
    console.log(
      `all ${fmt(serviceTotal)} answers of the service${served.length > 1 ? 's' : ''} in the run were HTTP 200; rate limiting was off`,
    );
    console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`);
  }
} finally {
  if (bare) await new Promise((resolve) => bare!.close(resolve));
  for (const s of served) {
    if (s.running) await s.running.close();
    s.service?.close();
    await s.serving?.stop();
  }
  if (values.keep) say(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
