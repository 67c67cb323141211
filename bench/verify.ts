import { spawn } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { TransactionRecord } from '../src/shared/ledger';
import { RECORD_COLUMNS, recordOfRow } from '../src/main/service/db/record-sql';
import { DB_FILE, openService } from '../src/main/service/index';
import { signedHeaders } from '../src/main/service/keys/sign';
import { generateLedger, prng } from './generate-ledger';

/*
 * npm run bench:verify [-- --rows 1000000 --requests 100 --items 1000 --concurrency 1 --warmup 5 --seed 1 --keep --profile]
 * Generates a native-format ledger, imports it through the ledger import handler, starts the
 * service as `npm run nps -- serve --port 0` does (its own process, as in use), then sends signed
 * POST /nps/bill/verify/txs requests over HTTP to 127.0.0.1 (`concurrency` in flight; 1: one after
 * another), each of `items`
 * claims: matches, mismatches and claims the ledger does not hold, looked up by transaction_id,
 * hash and request_id. Prints items/s and p50/p99 request time (from sending a request to the last
 * byte of its answer; the client signs its next request and reads each answer while a request is in
 * flight, and counts the results against what it sent). Before the timed requests, the
 * generated file and the store are flushed to the disk (so the disk is not still writing them
 * meanwhile) and `warmup` requests of other claims are sent and shown apart: the first requests to
 * a fresh process run while V8 compiles the code, several times slower than the rest.
 * --profile makes the server write a CPU profile (node --cpu-prof) into the kept data directory.
 */

const TARGET_ITEMS_PER_S = 50_000;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '100' },
    items: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
const requests = Number(values.requests);
const perRequest = Number(values.items);
const concurrency = Number(values.concurrency);
const warmup = Number(values.warmup);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

type Kind = 'match' | 'mismatch' | 'missing';

/** One claim as request JSON text: amounts as bare JSON numbers or as strings, both kinds exercised. */
function claimJson(r: TransactionRecord, kind: Kind, rand: () => number): string {
  const item: Record<string, unknown> = {};
  const by = rand();
  if (kind === 'missing') {
    item.transaction_id = `ffffffff-${Math.floor(rand() * 1e4)
      .toString()
      .padStart(4, '0')}-4000-8000-${Math.floor(rand() * 1e12)
      .toString()
      .padStart(12, '0')}`;
  } else if (by < 0.4 || (r.hash === '' && r.request_id === '')) item.transaction_id = r.transaction_id;
  else if (by < 0.75 && r.hash !== '') {
    item.hash = r.hash;
    item.chain_id = r.chain_id;
  } else if (r.request_id !== '' && r.type === 'Withdrawal') item.request_id = r.request_id;
  else item.transaction_id = r.transaction_id;
  item.token_id = r.token_id;
  item.type = rand() < 0.5 ? r.type : r.type.toUpperCase();
  item.status = r.status;
  if (r.to !== '') item.to = r.to.startsWith('0x') && rand() < 0.5 ? r.to.toLowerCase() : r.to;
  let amount = r.amount;
  if (kind === 'mismatch') amount = (Number(r.amount) + 1).toFixed(6);
  item.amount = amount;
  if (r.fee !== '') item.fee = r.fee;
  if (r.created_at !== null)
    item.time = Math.floor(r.created_at / 1000) + (kind === 'mismatch' && rand() < 0.5 ? 3600 : Math.floor(rand() * 11) - 5);
  const text = JSON.stringify(item);
  return rand() < 0.5 ? text.replace(/"amount":"([0-9.]+)"/, '"amount":$1') : text;
}

/** CPU time (user + system) a process has used, in ms, where /proc tells it (Linux); else null. */
function cpuMs(pid: number | undefined): number | null {
  const file = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(file)) return null;
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const dir = mkdtempSync(join(tmpdir(), 'nps-bench-verify-'));
try {
  let t = performance.now();
  const csv = join(dir, 'ledger.csv');
  const gen = await generateLedger(csv, rows, { seed: Number(values.seed), wallets: 20 });
  console.log(
    `generated ${fmt(rows)} ledger rows (${(gen.bytes / 1024 / 1024).toFixed(1)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const service = openService({ dataDir: join(dir, 'data') });
  t = performance.now();
  const report = await service.invoke('ledger-import', { source: { path: csv } }, { actor: 'cli' });
  if (report.added !== rows) throw new Error(`import added ${report.added} of ${rows} rows`);
  console.log(`imported through ledger-import in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  // Sample the claims' records straight from the store: a benchmark harness, not service code.
  const rand = prng(Number(values.seed) + 1);
  const total = requests * perRequest;
  const sampleRecords = (n: number) =>
    service.ctx.db.$client
      .prepare(`SELECT ${RECORD_COLUMNS} FROM transactions t WHERE t.rowid IN (SELECT value FROM json_each(?))`)
      .raw(true)
      .all(JSON.stringify(Array.from({ length: n }, () => 1 + Math.floor(rand() * rows))))
      .map((row) => recordOfRow(row as unknown[]));
  const kinds: Record<Kind, number> = { match: 0, mismatch: 0, missing: 0 };
  const makeBodies = (count: number, sample: TransactionRecord[], tally: boolean) =>
    Array.from({ length: count }, (_, q) => {
      const items: string[] = [];
      for (let i = 0; i < perRequest; i++) {
        const r = sample[(q * perRequest + i) % sample.length]!;
        const x = rand();
        const kind: Kind = x < 0.7 ? 'match' : x < 0.9 ? 'mismatch' : 'missing';
        if (tally) kinds[kind]++;
        items.push(claimJson(r, kind, rand));
      }
      return `{"txs":[${items.join(',')}]}`;
    });
  const bodies = makeBodies(requests, sampleRecords(total), true);
  // Warm-up claims come after, from records of their own: the timed claims are the same with or without them.
  const warmupBodies = warmup > 0 ? makeBodies(warmup, sampleRecords(warmup * perRequest), false) : [];
  console.log(
    `claims: ${fmt(kinds.match)} to match, ${fmt(kinds.mismatch)} mismatching, ${fmt(kinds.missing)} not in the ledger; body ~${(bodies[0]!.length / 1024).toFixed(0)} KB`,
  );

  const key = await service.invoke('keys-create', { label: 'bench', wallets: null }, { actor: 'cli' });
  // The import leaves a large write-ahead log; fold it into the database, as an idle service
  // would, so the first requests do not pay for the import.
  service.ctx.db.$client.pragma('wal_checkpoint(TRUNCATE)');
  service.close();
  // The generated file and the import are still being written out by the system: finish that
  // before the timed requests, whose commits would otherwise queue behind it on the disk.
  for (const file of [csv, join(dir, 'data', DB_FILE)]) {
    const fd = openSync(file, 'r+');
    fsyncSync(fd);
    closeSync(fd);
  }

  const server = spawn(
    process.execPath,
    [
      ...(values.profile ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []),
      fileURLToPath(new URL('../scripts/nps.mjs', import.meta.url)),
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data'),
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
      ...signedHeaders(key.api_secret, { method: 'POST', path, query: '', body }, lastNonce),
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

  if (warmupBodies.length > 0) {
    const warm: string[] = [];
    for (const body of warmupBodies) {
      const t0 = performance.now();
      read((await send(prepare(body))).chunks);
      warm.push(`${(performance.now() - t0).toFixed(1)} ms`);
    }
    console.log(`warm-up (not counted): ${warmupBodies.length} requests of other claims: ${warm.join(', ')}`);
  }

  const times: number[] = [];
  let matched = 0;
  let notFound = 0;
  const cpuBefore = cpuMs(server.pid);
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
  const take = () => (next < bodies.length ? prepare(bodies[next++]!) : undefined);
  const client = async () => {
    let previous: Buffer[] | undefined;
    let ready = take();
    while (ready) {
      const t0 = performance.now();
      const answer = send(ready);
      // The request goes out on a later tick: let it, then prepare the next and read the last answer.
      await new Promise((resolve) => setImmediate(resolve));
      ready = take();
      if (previous) count(previous);
      const { chunks, end } = await answer;
      times.push(end - t0);
      previous = chunks;
    }
    if (previous) count(previous);
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const elapsed = performance.now() - start;
  agent.destroy();
  const cpuAfter = cpuMs(server.pid);
  await new Promise((resolve) => {
    server.on('exit', resolve);
    server.kill('SIGTERM');
  });

  if (cpuBefore !== null && cpuAfter !== null) {
    const cpu = cpuAfter - cpuBefore;
    console.log(
      `service CPU time: ${(cpu / requests).toFixed(1)} ms a request = ${fmt((total / cpu) * 1000)} items per CPU-second (the rate one free core would give)`,
    );
  }
  const sorted = [...times].sort((a, b) => a - b);
  const rate = (total / elapsed) * 1000;
  console.log(`answers: ${fmt(matched)} matched, ${fmt(total - matched - notFound)} mismatched, ${fmt(notFound)} not found`);
  console.log(
    `verify: ${fmt(total)} items in ${requests} signed requests over HTTP (${concurrency} in flight) in ${(elapsed / 1000).toFixed(2)} s = ${fmt(rate)} items/s ` +
      `(target ${fmt(TARGET_ITEMS_PER_S)}: ${rate >= TARGET_ITEMS_PER_S ? 'met' : 'MISSED'}); ` +
      `request time p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on this machine`,
  );
} finally {
  if (values.keep || values.profile) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
