import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DB_FILE, openService } from '../src/main/service/index';
import { signedHeaders } from '../src/main/service/keys/sign';
import { generateLedger } from './generate-ledger';
import { startClients } from './load-clients';
import { processCpuMs } from './proc';

/*
 * npm run bench:load [-- --rows 200000 --items 100 --duration 10 --levels 50,200,500 --procs 2 --keys 50
 *                        --max-verifies N --max-requests 1000000 --seed 1 --targets verify,chains,tokens --keep --profile
 *                        --honour-retry-after]
 * Many clients at once against the service as the user runs it: generates a native-format ledger,
 * imports it through the ledger-import handler, creates `keys` API keys, then starts
 * `node out/main/cli.js serve --port 0 --rate-limit 0 --read-limit 0` in its own process (rate
 * limits off so the load measures the service, not the limiter; admission control in force, at its
 * default bound unless --max-verifies is given). Per level (concurrent clients), signed
 * POST /nps/bill/verify/txs of `items` claims (transaction_id + amount from the generated file),
 * then GET /nps/chains, then GET /nps/tokens?page_size=100: the clients run in `procs` child
 * processes (bench/load-client.ts), each client on its own kept-alive connection sending requests
 * back to back for `duration` seconds (and at most `max-requests`). Reports answers done
 * (status 0), refused (4003, HTTP 503, Retry-After: 1) and anything else, which fails the run; done
 * claims (or reads) a second; p50/p99/max of the time from sending a request to the last byte of
 * its answer, apart for done and refused answers, and for each client's first answer (its
 * connection opens with it; and of that, the time to the connection being made); the service's and
 * the clients' CPU. Where a new connection's wait comes from: how late the service's event loop ran
 * (bench/loop-probe.mjs, preloaded into the service), the listening socket's queue (ss Recv-Q,
 * sampled every 100 ms) and the kernel's listen overflows (nstat), the service thread's time on a
 * CPU, waiting for one, and waiting on the disk (/proc), and how late the clients' own event loops
 * ran (a late client inflates what it measures). Everything goes to 127.0.0.1 only.
 * --targets: only these (e.g. verify). --profile: the service and the client processes write CPU
 * profiles into the kept folder. --honour-retry-after: a refused client waits the Retry-After the
 * 4003 names before it sends again (as docs/api.md asks of clients), instead of sending again at once.
 */

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    items: { type: 'string', default: '100' },
    duration: { type: 'string', default: '10' },
    levels: { type: 'string', default: '50,200,500' },
    targets: { type: 'string', default: 'verify,chains,tokens' },
    procs: { type: 'string', default: '2' },
    keys: { type: 'string', default: '50' },
    'max-verifies': { type: 'string' },
    'max-requests': { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'honour-retry-after': { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const items = Number(values.items);
const durationS = Number(values.duration);
const levels = values.levels.split(',').map(Number);
const procs = Number(values.procs);
const keyCount = Number(values.keys);
const maxRequests = Number(values['max-requests']);
const seed = Number(values.seed);
const maxVerifies = values['max-verifies'];
for (const [name, n] of Object.entries({ rows, items, duration: durationS, procs, keys: keyCount, 'max-requests': maxRequests }))
  if (!(Number.isInteger(n) && n >= 1)) throw new Error(`--${name}: must be a whole number >= 1`);
if (items > 1000) throw new Error('--items: at most 1000 (the service refuses larger batches)');
if (!levels.every((n) => Number.isInteger(n) && n >= procs)) throw new Error(`--levels: whole numbers >= --procs (${procs})`);
if (keyCount < procs) throw new Error(`--keys: at least --procs (${procs}): each client process signs with keys of its own`);
const targetNames = values.targets.split(',');
if (!targetNames.every((n) => ['verify', 'chains', 'tokens'].includes(n))) throw new Error('--targets: a list of verify, chains, tokens');
const HOST = '127.0.0.1';
const dir = mkdtempSync(join(tmpdir(), 'nps-bench-load-'));
/** --profile: the service and every client process write a CPU profile (node --cpu-prof) into the kept folder. */
const profileArgs = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, 'profiles')}`] : [];
const VERIFY_PATH = '/nps/bill/verify/txs';
/** Where the service's event-loop probe writes (bench/loop-probe.mjs, preloaded into the service). */
const loopFile = join(dir, 'loop-delay.jsonl');
const TARGETS = [
  { name: 'verify', path: VERIFY_PATH, verify: true },
  { name: 'chains', path: '/nps/chains', verify: false },
  { name: 'tokens', path: '/nps/tokens?page_size=100', verify: false },
] as const;
/** A request with no answer after this long is given up and counted as a failure. */
const REQUEST_TIMEOUT_MS = 30_000;
/** A client process not done this long after its level's end is killed, and the run fails. */
const CHILD_GRACE_MS = 60_000;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const say = (line: string) => console.log(line);
const command = `npm run bench:load -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, '');

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The kernel's count of listen-queue overflows since boot (nstat), or null where nstat is not there. */
function listenOverflows(): number | null {
  try {
    const out = execFileSync('nstat', ['-az', '--json', 'TcpExtListenOverflows'], { encoding: 'utf8', timeout: 5000 });
    const json = JSON.parse(out) as { kernel?: Record<string, number> };
    return json.kernel?.TcpExtListenOverflows ?? null;
  } catch {
    return null;
  }
}

/** Sample the listening socket's queue (ss -ltn Recv-Q) every 100 ms until stopped: the largest seen, or null without ss. */
function sampleListenQueue(port: number): { stop: () => number | null } {
  let max: number | null = null;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const ss = spawn('ss', ['-ltnH', `sport = :${port}`], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    ss.stdout.on('data', (c: Buffer) => (out += c.toString()));
    ss.on('error', () => (busy = false));
    ss.on('close', () => {
      busy = false;
      const recvQ = Number(out.trim().split(/\s+/)[1]);
      if (Number.isFinite(recvQ)) max = Math.max(max ?? 0, recvQ);
    });
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return max;
    },
  };
}

/** The service's own thread from /proc (Linux): ns on a CPU, ns waiting for one (schedstat); or null. */
function schedOf(pid: number | undefined): { run: number; wait: number } | null {
  const file = `/proc/${pid}/task/${pid}/schedstat`;
  if (pid === undefined || !existsSync(file)) return null;
  const [run, wait] = readFileSync(file, 'utf8').trim().split(' ').map(Number);
  return { run: run!, wait: wait! };
}

/**
 * Sample the state of the service's own thread every 50 ms until stopped: the share of samples
 * in D (waiting on the disk, uninterruptibly), or null where /proc is not there.
 */
function sampleDiskWaits(pid: number | undefined): { stop: () => number | null } {
  const file = `/proc/${pid}/task/${pid}/stat`;
  if (pid === undefined || !existsSync(file)) return { stop: () => null };
  let samples = 0;
  let inD = 0;
  const timer = setInterval(() => {
    try {
      const state = readFileSync(file, 'utf8').split(') ')[1]!.charAt(0);
      samples++;
      if (state === 'D') inD++;
    } catch {
      // The service ended: the run says so elsewhere.
    }
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return samples === 0 ? null : inD / samples;
    },
  };
}

/** The probe's lines (bench/loop-probe.mjs) from `from` to `to` (wall clock): the service loop's worst lateness and the connections it took. */
function serverLoopOver(file: string, from: number, to: number): { max: number; p99: number; accepted: number } | null {
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { at: number; max: number; p99: number; accepted: number });
  const inside = lines.filter((l) => l.at >= from && l.at <= to + 200);
  const before = lines.filter((l) => l.at < from).at(-1);
  if (inside.length === 0) return null;
  return {
    max: Math.max(...inside.map((l) => l.max)),
    p99: Math.max(...inside.map((l) => l.p99)),
    accepted: inside.at(-1)!.accepted - (before?.accepted ?? 0),
  };
}

interface Latency {
  p50: number;
  p99: number;
  max: number;
}
interface Level {
  target: string;
  clients: number;
  elapsedS: number;
  done: number;
  refused: number;
  other: Record<string, number>;
  otherSamples: string[];
  refusalMsg: string | null;
  perS: number;
  claimsPerS: number;
  claimsMatched: number;
  claimsAnswered: number;
  maxNonce: number;
  maxNonceLeadMs: number;
  doneMs: Latency | null;
  refusedMs: Latency | null;
  firstMs: Latency | null;
  connectMs: Latency | null;
  /** The service's event loop over the level (bench/loop-probe.mjs): how late it ran, ms, and the connections it accepted. */
  serverLoop: { max: number; p99: number; accepted: number } | null;
  clientLoopMax: number;
  /** The listening socket's queue (ss Recv-Q: connections made but not yet accepted), its largest sample over the level. */
  listenQueueMax: number | null;
  /** The kernel's count of connections dropped because a listen queue was full, over the level (nstat). */
  listenOverflows: number | null;
  /** The service's own thread over the level: share of the time on a CPU, waiting for one, and of samples waiting on the disk. */
  mainThread: { onCpu: number; runQueue: number; disk: number | null } | null;
  serverCpu: number | null;
  clientCpu: number;
  loadAfter: string;
}

function latency(parts: Float64Array[]): Latency | null {
  const all = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  if (all.length === 0) return null;
  all.sort();
  return { p50: percentile(all, 50), p99: percentile(all, 99), max: all[all.length - 1]! };
}

/** Every nonce of a level is above those of the levels before it (the same keys sign them all). */
let nonceFloor = 0;

/** `n` things split over the client processes as evenly as can be: process p's share and where it starts. */
function split(n: number, p: number): { start: number; count: number } {
  const count = (q: number) => Math.floor(n / procs) + (q < n % procs ? 1 : 0);
  let start = 0;
  for (let q = 0; q < p; q++) start += count(q);
  return { start, count: count(p) };
}

async function runLevel(
  baseUrl: string,
  target: (typeof TARGETS)[number],
  clients: number,
  claimsFile: string,
  secrets: string[],
  serverPid: number | undefined,
): Promise<Level> {
  const port = Number(new URL(baseUrl).port);
  const children = Array.from({ length: procs }, (_, p) => {
    const mine = split(clients, p);
    const keys = split(secrets.length, p);
    return startClients(profileArgs, {
      baseUrl,
      path: target.path,
      verify: target.verify,
      clients: mine.count,
      firstClient: mine.start,
      durationMs: durationS * 1000,
      maxRequestsPerClient: maxRequests,
      honourRetryAfter: values['honour-retry-after'],
      timeoutMs: REQUEST_TIMEOUT_MS,
      items,
      claimsFile,
      seed,
      secrets: target.verify ? secrets.slice(keys.start, keys.start + keys.count) : [],
      minNonce: Math.max(nonceFloor, Date.now()),
    });
  });
  const killer = setTimeout(
    () => {
      for (const c of children) c.child.kill('SIGKILL');
    },
    (durationS + 10) * 1000 + CHILD_GRACE_MS,
  );
  try {
    await Promise.all(children.map((c) => c.ready));
    const startAt = Date.now() + 300;
    const overflows0 = listenOverflows();
    const queue = sampleListenQueue(port);
    const disk = sampleDiskWaits(serverPid);
    const sched0 = schedOf(serverPid);
    const cpu0 = processCpuMs(serverPid);
    for (const c of children) c.child.send({ type: 'go', startAt });
    const results = await Promise.all(children.map((c) => c.result));
    const cpu1 = processCpuMs(serverPid);
    const listenQueueMax = queue.stop();
    const diskShare = disk.stop();
    const sched1 = schedOf(serverPid);
    const overflows1 = listenOverflows();
    const first = Math.min(...results.map((r) => r.firstSendAt));
    const last = Math.max(...results.map((r) => r.lastAnswerAt));
    const elapsedS = (last - first) / 1000;
    const other: Record<string, number> = {};
    for (const r of results) for (const [k, v] of Object.entries(r.other)) other[k] = (other[k] ?? 0) + v;
    const done = results.reduce((n, r) => n + r.done, 0);
    const claimsAnswered = results.reduce((n, r) => n + r.claimsAnswered, 0);
    const maxNonce = Math.max(...results.map((r) => r.maxNonce));
    nonceFloor = Math.max(nonceFloor, maxNonce + 1);
    return {
      target: target.name,
      clients,
      elapsedS,
      done,
      refused: results.reduce((n, r) => n + r.refused, 0),
      other,
      otherSamples: results.flatMap((r) => r.otherSamples),
      refusalMsg: results.find((r) => r.refusalMsg !== null)?.refusalMsg ?? null,
      perS: done / elapsedS,
      claimsPerS: claimsAnswered / elapsedS,
      claimsMatched: results.reduce((n, r) => n + r.claimsMatched, 0),
      claimsAnswered,
      maxNonce,
      maxNonceLeadMs: Math.max(...results.map((r) => r.maxNonceLeadMs)),
      doneMs: latency(results.map((r) => r.doneMs)),
      refusedMs: latency(results.map((r) => r.refusedMs)),
      firstMs: latency(results.map((r) => r.firstMs)),
      connectMs: latency(results.map((r) => r.connectMs)),
      serverLoop: serverLoopOver(loopFile, first, last),
      clientLoopMax: Math.max(...results.map((r) => r.loopDelayMax)),
      listenQueueMax,
      listenOverflows: overflows0 !== null && overflows1 !== null ? overflows1 - overflows0 : null,
      mainThread:
        sched0 && sched1
          ? { onCpu: (sched1.run - sched0.run) / 1e9 / elapsedS, runQueue: (sched1.wait - sched0.wait) / 1e9 / elapsedS, disk: diskShare }
          : null,
      serverCpu: cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / 1000 / elapsedS : null,
      clientCpu: results.reduce((n, r) => n + r.cpuMs, 0) / 1000 / elapsedS,
      loadAfter: load(),
    };
  } finally {
    // Each client process ends by itself once its result is sent; one that does not within 10 s is killed.
    await Promise.race([Promise.all(children.map((c) => c.closed)), new Promise((resolve) => setTimeout(resolve, 10_000))]);
    clearTimeout(killer);
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  }
}

/** One request, for the warm-up: its answer's envelope status and HTTP status. */
function once(agent: Agent, baseUrl: string, path: string, headers: Record<string, string>, body?: string) {
  const url = new URL(baseUrl);
  if (url.hostname !== HOST) throw new Error(`not loopback: ${baseUrl}`);
  return new Promise<{ http: number; body: string }>((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: body ? 'POST' : 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ http: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('warm-up request: no answer')));
    req.on('error', reject);
    req.end(body);
  });
}

const date = new Date().toISOString();
say(
  `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${load()} (1, 5, 15 min) before the run; node ${process.version}; ${date}`,
);
say(`command: ${command}`);

let server: ChildProcess | undefined;
/** How the service ended, if it did before the run was over: that fails the run, and the folder (with its log) is kept. */
let serviceEnded: string | undefined;
let stopping = false;
try {
  let t = performance.now();
  const csv = join(dir, 'ledger.csv');
  const gen = await generateLedger(csv, rows, { seed, wallets: 20 });
  say(
    `generated ${fmt(rows)} ledger rows (${(gen.bytes / 1024 / 1024).toFixed(1)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  // Claims: transaction_id and amount of each row of the generated file, as written there.
  const [header, ...lines] = readFileSync(csv, 'utf8').split('\n');
  const columns = header!.split(',');
  const idAt = columns.indexOf('transaction_id');
  const amountAt = columns.indexOf('amount');
  const claims = lines
    .filter((l) => l !== '')
    .map((l) => {
      const cells = l.split(',');
      return [cells[idAt]!, cells[amountAt]!];
    });
  const claimsFile = join(dir, 'claims.json');
  writeFileSync(claimsFile, JSON.stringify(claims));

  const service = openService({ dataDir: join(dir, 'data') });
  t = performance.now();
  const report = await service.invoke('ledger-import', { source: { path: csv } }, { actor: 'cli' });
  if (report.added !== rows) throw new Error(`import added ${report.added} of ${rows} rows`);
  say(`imported through ledger-import in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  // The clients' keys (each client process signs with keys of its own, its clients taking them in turn), and one for the warm-up.
  const secrets: string[] = [];
  for (let i = 0; i < keyCount; i++)
    secrets.push((await service.invoke('keys-create', { label: `load ${i}`, wallets: null }, { actor: 'cli' })).api_secret);
  const warmSecret = (await service.invoke('keys-create', { label: 'load warm-up', wallets: null }, { actor: 'cli' })).api_secret;
  service.ctx.db.$client.pragma('wal_checkpoint(TRUNCATE)');
  service.close();
  for (const file of [csv, join(dir, 'data', DB_FILE)]) {
    const fd = openSync(file, 'r+');
    fsyncSync(fd);
    closeSync(fd);
  }

  const serveArgs = ['serve', '--port', '0', '--data-dir', join(dir, 'data'), '--rate-limit', '0', '--read-limit', '0'];
  if (maxVerifies !== undefined) serveArgs.push('--max-verifies', maxVerifies);
  const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
  const probe = fileURLToPath(new URL('./loop-probe.mjs', import.meta.url));
  server = spawn(process.execPath, [...profileArgs, '--import', probe, cli, ...serveArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NPS_BENCH_LOOP_FILE: loopFile },
  });
  const started = server;
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    let listening = false;
    started.stdout!.on('data', (chunk: Buffer) => {
      // After its first line, whatever the service says is shown (it says nothing more unless stopped).
      if (listening) return process.stdout.write(`service says: ${chunk.toString()}`);
      out += chunk.toString();
      const m = /listening on (http:\/\/[^/\s]+)\/nps/.exec(out);
      if (m) {
        listening = true;
        resolve(m[1]!);
      }
    });
    started.on('exit', (code, signal) => {
      if (stopping) return;
      serviceEnded = `${signal ? `signal ${signal}` : `code ${code}`} at ${new Date().toISOString()}`;
      reject(new Error(`the service exited (${serviceEnded}) before listening: ${out}`));
    });
  });
  if (new URL(baseUrl).hostname !== HOST) throw new Error(`the service listens on ${baseUrl}, not ${HOST}: nothing sent`);
  say(`service: node out/main/cli.js ${serveArgs.join(' ').replace(dir, '<tmp>')} (its own process, pid ${server.pid}) on ${baseUrl}`);
  say(
    `settings: levels ${levels.join(', ')} concurrent clients, ${durationS} s each, per target; clients in ${procs} child processes${procs > 1 ? ' (in one process, the clients reached a full core on catalogue reads: their own bottleneck)' : ''}, ` +
      `each client its own kept-alive connection (node:http Agent, maxSockets 1), requests back to back; ` +
      `verify: ${items} claims a request (transaction_id + amount of generated rows), ${keyCount} API keys (the clients take them in turn; each request its own nonce); ` +
      `rate limits OFF (--rate-limit 0 --read-limit 0): the load measures the service, not the limiter; ` +
      `admission control ON (${maxVerifies === undefined ? 'default bound, 2 per core' : `--max-verifies ${maxVerifies}`}); all load on ${HOST}`,
  );

  // Warm-up, not counted: the first requests to a fresh process run while V8 compiles.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let nonce = 0;
  for (let i = 0; i < 10; i++) {
    const body = `{"txs":[${claims
      .slice(i * items, (i + 1) * items)
      .map(([transaction_id, amount]) => JSON.stringify({ transaction_id, amount }))
      .join(',')}]}`;
    nonce = Math.max(Date.now(), nonce + 1);
    const headers = {
      ...signedHeaders(warmSecret, { method: 'POST', path: VERIFY_PATH, query: '', body }, nonce),
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
    };
    const a = await once(agent, baseUrl, VERIFY_PATH, headers, body);
    const json = JSON.parse(a.body) as { status: number; msg: string; data: { result: boolean }[] };
    if (a.http !== 200 || json.status !== 0) throw new Error(`warm-up verify: HTTP ${a.http}, status ${json.status}: ${json.msg}`);
    if (json.data.length !== items || !json.data.every((d) => d.result))
      throw new Error(`warm-up verify: ${json.data.filter((d) => d.result).length} of ${items} claims matched; expected all`);
    for (const target of TARGETS.filter((x) => !x.verify)) {
      const r = await once(agent, baseUrl, target.path, {});
      if (r.http !== 200 || !r.body.startsWith('{"status":0,'))
        throw new Error(`warm-up ${target.path}: HTTP ${r.http}: ${r.body.slice(0, 200)}`);
    }
  }
  agent.destroy();
  say(`warm-up (not counted): 10 verify requests of ${items} claims (every claim matched), 10 of each read`);

  const results: Level[] = [];
  for (const target of TARGETS.filter((t) => targetNames.includes(t.name))) {
    for (const clients of levels) {
      if (serviceEnded)
        throw new Error(`the service ended (${serviceEnded}) before ${target.name} x ${clients} clients; its log is in the kept folder`);
      const level = await runLevel(baseUrl, target, clients, claimsFile, secrets, server.pid);
      if (serviceEnded) say(`  THE SERVICE ENDED (${serviceEnded}) during ${target.name} x ${clients} clients`);
      results.push(level);
      const lat = (l: Latency | null) => (l ? `p50 ${l.p50.toFixed(1)} / p99 ${l.p99.toFixed(1)} / max ${l.max.toFixed(1)} ms` : '—');
      const others = Object.values(level.other).reduce((a, b) => a + b, 0);
      say(
        `  ${target.name} ${target.path} x ${clients} clients, ${level.elapsedS.toFixed(2)} s: ` +
          `${fmt(level.done)} done (${lat(level.doneMs)})` +
          (target.verify ? `, ${fmt(level.refused)} refused (${lat(level.refusedMs)})` : '') +
          `, ${fmt(others)} other; ` +
          (target.verify
            ? `${fmt(level.claimsPerS)} claims/s done (${fmt(level.claimsMatched)} of ${fmt(level.claimsAnswered)} matched), ${fmt(level.perS)} requests/s done, ${fmt((level.done + level.refused) / level.elapsedS)} answers/s`
            : `${fmt(level.perS)} reads/s`) +
          `; CPU: service ${level.serverCpu === null ? '?' : `${(level.serverCpu * 100).toFixed(0)}%`}, clients ${(level.clientCpu * 100).toFixed(0)}% (of one core); load average ${level.loadAfter}`,
      );
      if (others > 0) {
        say(`    OTHER ANSWERS: ${JSON.stringify(level.other)}`);
        for (const s of level.otherSamples) say(`      ${s}`);
      }
      say(
        `    each client's first answer (its connection opened with that request): ${lat(level.firstMs)}; of which connected (handshake) ${lat(level.connectMs)}`,
      );
      say(
        `    service event loop: late by at most ${level.serverLoop ? `${level.serverLoop.max.toFixed(0)} ms (p99 of its 200 ms stretches, worst: ${level.serverLoop.p99.toFixed(0)} ms), ${fmt(level.serverLoop.accepted)} connections accepted` : '?'}; ` +
          `listen queue (ss Recv-Q) at most ${level.listenQueueMax ?? '?'}, listen overflows ${level.listenOverflows ?? '?'}; client processes' event loops late by at most ${level.clientLoopMax.toFixed(0)} ms`,
      );
      const mt = level.mainThread;
      say(
        `    service's own thread: ${mt ? `on a CPU ${(mt.onCpu * 100).toFixed(0)}% of the level, waiting for a CPU ${(mt.runQueue * 100).toFixed(0)}%, waiting on the disk in ${mt.disk === null ? '?' : (mt.disk * 100).toFixed(0)}% of samples` : '?'}`,
      );
      if (level.refusalMsg) say(`    first refusal: ${level.refusalMsg}`);
      if (target.verify) say(`    nonces: at most ${fmt(level.maxNonceLeadMs)} ms ahead of the clock (the service takes 60 s either way)`);
      if (target.verify && level.claimsMatched !== level.claimsAnswered)
        say(
          `    UNEXPECTED: ${fmt(level.claimsAnswered - level.claimsMatched)} claims did not match (every claim is a row of the ledger as written)`,
        );
      // Let the closed connections go before the next level.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  const ms = (x: number | undefined) => (x === undefined ? '—' : x < 10 ? x.toFixed(1) : x.toFixed(0));
  const head = [
    'what',
    'clients',
    'done',
    'refused',
    'other',
    'done/s',
    'claims/s',
    'done p50/p99/max ms',
    'refused p50/p99/max ms',
    'first p99/max ms',
    'svc loop max ms',
    'listen queue',
    'CPU svc/cli',
  ];
  const table = results.map((r) => [
    r.target,
    String(r.clients),
    fmt(r.done),
    r.target === 'verify' ? fmt(r.refused) : '—',
    fmt(Object.values(r.other).reduce((a, b) => a + b, 0)),
    fmt(r.perS),
    r.target === 'verify' ? fmt(r.claimsPerS) : '—',
    r.doneMs ? `${ms(r.doneMs.p50)} / ${ms(r.doneMs.p99)} / ${ms(r.doneMs.max)}` : '—',
    r.refusedMs ? `${ms(r.refusedMs.p50)} / ${ms(r.refusedMs.p99)} / ${ms(r.refusedMs.max)}` : '—',
    r.firstMs ? `${ms(r.firstMs.p99)} / ${ms(r.firstMs.max)}` : '—',
    r.serverLoop ? ms(r.serverLoop.max) : '?',
    String(r.listenQueueMax ?? '?'),
    `${r.serverCpu === null ? '?' : (r.serverCpu * 100).toFixed(0)}% / ${(r.clientCpu * 100).toFixed(0)}%`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  say('');
  say(
    `${durationS} s per level; done/s: answers with status 0 a second (verify: requests of ${items} claims); claims/s: claims in done answers a second; ` +
      `times from sending a request to the last byte of its answer (first: each client's first request, which opened its connection; counted in done or refused too); CPU: share of one core over the level (service: both its threads; clients: the ${procs} client processes)`,
  );
  say(line(head));
  for (const r of table) say(line(r));
  const bound = results.map((r) => /takes (\d+) at once/.exec(r.refusalMsg ?? '')?.[1]).find((b) => b !== undefined);
  say(
    `admission bound in force: ${bound ?? '(no request was refused)'}${bound ? ' verification requests at once (from the 4003 message)' : ''}; rate limits were off`,
  );
  say(`load average after: ${load()} (before: see the first line)`);

  const failed = results.filter((r) => Object.keys(r.other).length > 0 || r.claimsMatched !== r.claimsAnswered);
  if (failed.length > 0) {
    for (const r of failed) say(`FAILED: ${r.target} x ${r.clients}: ${JSON.stringify(r.other)}`);
    process.exitCode = 1;
  } else say('every answer was done (status 0) or, for verify, refused (4003 with HTTP 503 and Retry-After: 1)');
} finally {
  if (server && server.exitCode === null && server.signalCode === null) {
    stopping = true;
    const s = server;
    await new Promise((resolve) => {
      const timer = setTimeout(() => s.kill('SIGKILL'), 10_000);
      s.on('exit', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
      s.kill('SIGTERM');
    });
  }
  if (values.keep || values.profile || serviceEnded)
    say(`kept ${dir}${serviceEnded ? ' (the service ended during the run: its log is in data/logs)' : ''}`);
  else rmSync(dir, { recursive: true, force: true });
}
