import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { signedHeaders } from '../src/main/service/keys/sign';
import { mainThreadSchedMs, processCpuTimes } from './proc';
import { openFloor, planFloor, type FloorRequest } from './verify-floor-lib';
import { copyStore, setUpVerify, type VerifySetup } from './verify-setup';

/*
 * npm run bench:verify [-- --rows 1000000 --requests 100 --items 1000 --concurrency 1 --warmup 20 --seed 1
 *                        --rounds 1 --block 10 --cache DIR --keep --profile]
 * Generates a native-format ledger, imports it through the ledger import handler
 * (bench/verify-setup.ts; --cache keeps that store and starts from it next time), starts the
 * service as `npm run nps -- serve --port 0` does (its own process, as in use) on a copy of it,
 * then sends signed POST /nps/bill/verify/txs requests over HTTP to 127.0.0.1 (`concurrency` in
 * flight; 1: one after another), each of `items` claims: matches, mismatches and claims the ledger
 * does not hold, looked up by transaction_id, hash and request_id. Prints items/s and p50/p99
 * request time (from sending a request to the last byte of its answer; the client signs its next
 * request and reads each answer while a request is in flight, and counts the results against what
 * it sent), and the service's CPU time a request (both its threads, from /proc). Before the timed
 * requests, `warmup` requests of other claims (20) are sent and shown apart: the first requests to
 * a fresh process run while V8 compiles the code, several times slower than the rest, and after
 * five V8 was still optimizing during the timed requests (a few percent of their CPU time).
 *
 * In the same run, the verification floor (bench/verify-floor-lib.ts): the same requests' lookups,
 * reads and writes done directly through better-sqlite3 on another copy of the same store, in
 * blocks: after every `block` answers (10), while the service waits for its next request, the
 * floor does those requests. Both are measured under the same load, each in its own steady state
 * (request by request, each side found the caches the other had just filled, which cost the
 * service more than the floor). --rounds N does it all N times, each round on fresh copies. The
 * last line is the ratio of the service's CPU to the floor's over every round:
 * `verify CPU / floor CPU: R`.
 * --profile makes the server write a CPU profile (node --cpu-prof) into the kept folder.
 * Around each request, the service's main thread's time on a core and waiting for one (the
 * kernel's run queue, /proc/PID/task/PID/schedstat): printed for the median and the three slowest
 * requests, and the request times less those waits, to tell the service's own slowness from a
 * host whose other processes held both cores.
 */

const TARGET_ITEMS_PER_S = 50_000;
const TARGET_FLOOR_RATIO = 2;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '100' },
    items: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '1' },
    block: { type: 'string', default: '10' },
    cache: { type: 'string' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
});
const requests = Number(values.requests);
const perRequest = Number(values.items);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const block = Number(values.block);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface RoundResult {
  cpuMs: number;
  floorCpuMs: number;
  elapsedMs: number;
  times: number[];
  /** Each timed request: its time, and the service's main thread's time on a core and waiting for one meanwhile. */
  requests: { ms: number; runMs: number; waitMs: number }[];
}

/**
 * The service on a copy of the store, the warm-up, then the timed requests (see the top of this
 * file); after each answer, while the service waits for the next request, the floor does the same
 * request on a copy of its own: both measured under the same load, request by request.
 */
async function measureRound(
  setup: VerifySetup,
  plans: { warmup: FloorRequest[]; timed: FloorRequest[] },
  dir: string,
): Promise<RoundResult> {
  const dataDir = join(dir, 'data');
  copyStore(setup, dataDir);
  const floor = openFloor(copyStore(setup, join(dir, 'floor')), setup.apiKey);
  const server = spawn(
    process.execPath,
    [
      ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []),
      fileURLToPath(new URL('../scripts/nps.mjs', import.meta.url)),
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\/nps/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.on('exit', (code) => reject(new Error(`the service exited (${code}) before listening: ${out}`)));
  });
  const path = '/nps/bill/verify/txs';
  // node:http with one kept-alive connection per request in flight: what a local tool written for
  // throughput would use (fetch costs the client more a request, which at one request in flight is
  // time the service waits for).
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(`${baseUrl}${path}`);
  type Answer = { status: number; msg: string; data: { result: boolean; tx: unknown }[] };
  // Nonces are the signing time in milliseconds: kept increasing, so two requests signed within one
  // millisecond are not refused as a replay.
  let lastNonce = 0;
  /** A request ready to send: the body and its signed headers. */
  const prepare = (body: string) => {
    lastNonce = Math.max(Date.now(), lastNonce + 1);
    const headers = {
      ...signedHeaders(setup.apiSecret, { method: 'POST', path, query: '', body }, lastNonce),
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
    };
    return { body, headers };
  };
  /** Resolves with the answer's bytes once the last one is in, and that moment (a request's time ends there). */
  const send = ({ body, headers }: ReturnType<typeof prepare>) =>
    new Promise<{ chunks: Buffer[]; end: number }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, method: 'POST', headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ chunks, end: performance.now() }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const read = (chunks: Buffer[]): Answer['data'] => {
    const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Answer;
    if (json.status !== 0) throw new Error(`status ${json.status}: ${json.msg}`);
    return json.data;
  };

  if (setup.warmupBodies.length > 0) {
    const warm: string[] = [];
    for (const body of setup.warmupBodies) {
      const t0 = performance.now();
      read((await send(prepare(body))).chunks);
      warm.push(`${(performance.now() - t0).toFixed(1)} ms`);
    }
    for (const plan of plans.warmup) floor.run(plan);
    console.log(`  warm-up (not counted): ${setup.warmupBodies.length} requests of other claims: ${warm.join(', ')}`);
  }

  const times: number[] = [];
  const sched: RoundResult['requests'] = [];
  let floorCpuMs = 0;
  let floorWallMs = 0;
  let answered = 0;
  let floorDone = 0;
  /** The floor's part of the requests answered so far (the service waits meanwhile: its next request is not sent). */
  const runFloor = (upTo: number) => {
    const f0 = performance.now();
    for (; floorDone < upTo; floorDone++) floorCpuMs += floor.run(plans.timed[floorDone]!);
    floorWallMs += performance.now() - f0;
  };
  const floorRecordsBefore = floor.records;
  const floorUserBefore = floor.userMs;
  let matched = 0;
  let notFound = 0;
  const cpuBefore = processCpuTimes(server.pid);
  const start = performance.now();
  let next = 0;
  const count = (chunks: Buffer[]) => {
    for (const d of read(chunks)) {
      if (d.result) matched++;
      else if (d.tx === null) notFound++;
    }
  };
  // Each client signs its next request and reads the last answer while a request is in flight, as
  // a client written for throughput does: still one request at a time each, but the service does
  // not wait while the client signs the next body and parses the last answer's JSON.
  const take = () => (next < setup.bodies.length ? prepare(setup.bodies[next++]!) : undefined);
  const client = async () => {
    let previous: Buffer[] | undefined;
    let ready = take();
    while (ready) {
      const t0 = performance.now();
      const s0 = mainThreadSchedMs(server.pid);
      const answer = send(ready);
      // The request goes out on a later tick: let it, then prepare the next and read the last answer.
      await new Promise((resolve) => setImmediate(resolve));
      ready = take();
      if (previous) count(previous);
      const { chunks, end } = await answer;
      const s1 = mainThreadSchedMs(server.pid);
      times.push(end - t0);
      if (s0 !== null && s1 !== null) sched.push({ ms: end - t0, runMs: s1.runMs - s0.runMs, waitMs: s1.waitMs - s0.waitMs });
      if (++answered % block === 0) runFloor(answered);
      previous = chunks;
    }
    if (previous) count(previous);
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  runFloor(answered);
  // The floor's turns are not the service's time.
  const elapsedMs = performance.now() - start - floorWallMs;
  agent.destroy();
  const floorRecords = floor.records - floorRecordsBefore;
  const floorUserMs = floor.userMs - floorUserBefore;
  floor.close();
  const cpuAfter = processCpuTimes(server.pid);
  await new Promise((resolve) => {
    server.on('exit', resolve);
    server.kill('SIGTERM');
  });
  const total = requests * perRequest;
  if (matched !== setup.kinds.match || notFound !== setup.kinds.missing)
    throw new Error(`answers: ${matched} matched and ${notFound} not found, against ${setup.kinds.match} and ${setup.kinds.missing} sent`);
  if (cpuBefore === null || cpuAfter === null) throw new Error("the service's CPU time is read from /proc (Linux)");
  const userMs = cpuAfter.user - cpuBefore.user;
  const cpuMs = userMs + cpuAfter.system - cpuBefore.system;
  const sorted = [...times].sort((a, b) => a - b);
  const rate = (total / elapsedMs) * 1000;
  console.log(
    `  service: CPU ${(cpuMs / requests).toFixed(1)} ms a request (user ${(userMs / requests).toFixed(1)}) = ${fmt((total / cpuMs) * 1000)} items per CPU-second; ` +
      `${fmt(total)} items in ${requests} signed requests over HTTP (${concurrency} in flight) in ${(elapsedMs / 1000).toFixed(2)} s = ${fmt(rate)} items/s ` +
      `(target ${fmt(TARGET_ITEMS_PER_S)}: ${rate >= TARGET_ITEMS_PER_S ? 'met' : 'MISSED'}); ` +
      `request time p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms; ` +
      `answers: ${fmt(matched)} matched, ${fmt(total - matched - notFound)} mismatched, ${fmt(notFound)} not found; load average ${load()}`,
  );
  console.log(
    `  floor: CPU ${(floorCpuMs / requests).toFixed(1)} ms a request (user ${(floorUserMs / requests).toFixed(1)}; wall ${(floorWallMs / requests).toFixed(1)} ms), ${fmt(floorRecords)} records read`,
  );
  if (sched.length > 0) {
    // Where the slowest requests' time went: the service's main thread working, or waiting for a
    // core while other processes had both (the kernel's run queue; /proc/PID/schedstat).
    const line = (r: (typeof sched)[number]) =>
      `${r.ms.toFixed(1)} ms (main thread on a core ${r.runMs.toFixed(1)}, waiting for one ${r.waitMs.toFixed(1)}, neither ${(r.ms - r.runMs - r.waitMs).toFixed(1)})`;
    const bySpeed = [...sched].sort((a, b) => a.ms - b.ms);
    console.log(
      `  the median request ${line(bySpeed[Math.floor(bySpeed.length / 2)]!)}; the slowest: ${bySpeed.slice(-3).reverse().map(line).join(', ')}`,
    );
  }
  return { cpuMs, floorCpuMs, elapsedMs, times, requests: sched };
}

const dir = mkdtempSync(join(tmpdir(), 'nps-bench-verify-'));
try {
  console.log(`machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${load()}; node ${process.version}`);
  const setup = await setUpVerify(dir, {
    rows: Number(values.rows),
    requests,
    items: perRequest,
    warmup: Number(values.warmup),
    seed: Number(values.seed),
    cache: values.cache,
  });
  // The floor's work, worked out before anything is timed.
  const plans = planFloor(setup.store, [...setup.warmupBodies, ...setup.bodies], setup.apiKey, Date.now());
  const warmPlans = plans.slice(0, setup.warmupBodies.length);
  const timedPlans = plans.slice(setup.warmupBodies.length);

  const results: RoundResult[] = [];
  for (let round = 1; round <= rounds; round++) {
    console.log(`round ${round} of ${rounds}, load average ${load()}`);
    const roundDir = join(dir, `round-${round}`);
    const r = await measureRound(setup, { warmup: warmPlans, timed: timedPlans }, roundDir);
    results.push(r);
    if (!values.keep && !values.profile) rmSync(roundDir, { recursive: true, force: true });
    console.log(`  round ${round}: service CPU / floor CPU ${(r.cpuMs / r.floorCpuMs).toFixed(2)}`);
  }
  const serviceCpu = results.reduce((n, r) => n + r.cpuMs, 0) / (rounds * requests);
  const floorCpu = results.reduce((n, r) => n + r.floorCpuMs, 0) / (rounds * requests);
  const times = results.flatMap((r) => r.times).sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  const p99 = percentile(times, 99);
  console.log(
    `service CPU ${serviceCpu.toFixed(1)} ms a request, floor CPU ${floorCpu.toFixed(1)} ms a request (${rounds} round${rounds === 1 ? '' : 's'}; target at most ${TARGET_FLOOR_RATIO}x: ${serviceCpu <= TARGET_FLOOR_RATIO * floorCpu ? 'met' : 'MISSED'}); ` +
      `request time p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (p99 under 2x p50: ${p99 < 2 * p50 ? 'met' : 'MISSED'}); load average ${load()}`,
  );
  // The same, each request's time less the service's main thread's wait for a core: what is left
  // when the host's other processes are taken out.
  const own = results
    .flatMap((r) => r.requests)
    .map((r) => r.ms - r.waitMs)
    .sort((a, b) => a - b);
  if (own.length > 0)
    console.log(
      `request time less the service's waits for a core: p50 ${percentile(own, 50).toFixed(1)} ms, p99 ${percentile(own, 99).toFixed(1)} ms (${(percentile(own, 99) / percentile(own, 50)).toFixed(2)}x)`,
    );
  console.log(`p99 / p50: ${(p99 / p50).toFixed(2)}`);
  console.log(`verify CPU / floor CPU: ${(serviceCpu / floorCpu).toFixed(2)}`);
} finally {
  if (values.keep || values.profile) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
