import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { generateLedger } from '../../../../bench/generate-ledger';
import type { LoadResult } from '../../../../bench/load-client';
import { startClients } from '../../../../bench/load-clients';
import { startServe, type ServingProcess } from '../../cli/serve.test-support';
import { tempService } from '../test-support';

/*
 * 200 verify clients at once against `serve` as the user runs it, its admission bound taken from
 * the cores: every answer is done (0) or refused (4003, HTTP 503, Retry-After: 1), none takes more
 * than 2 s, and the verifications go on (at least one batch for every two clients). The clients are
 * bench/load's (two processes of 100, each client on its own kept-alive connection, a batch of 100
 * claims a request), and they wait the Retry-After their refusal names before sending again, as
 * docs/api.md asks of a client. What keeps the first answers quick is that the API's
 * verifications take the event loop one a turn (engine/turns.ts); the figures are in
 * docs/benchmarks.md.
 */

const CLIENTS = 200;
const PROCS = 2;
const KEYS = 20;
const svc = tempService();
let serving: ServingProcess;
let claimsFile: string;
const secrets: string[] = [];

beforeAll(async () => {
  const csv = join(svc.dataDir, 'ledger.csv');
  await generateLedger(csv, 20_000, { seed: 41, wallets: 4 });
  expect((await svc.invoke('ledger-import', { source: { path: csv } }, { actor: 'cli' })).added).toBe(20_000);
  const [header, ...rows] = readFileSync(csv, 'utf8').trim().split('\n');
  const at = (name: string) => header!.split(',').indexOf(name);
  claimsFile = join(svc.dataDir, 'claims.json');
  writeFileSync(claimsFile, JSON.stringify(rows.map((r) => r.split(',')).map((c) => [c[at('transaction_id')], c[at('amount')]])));
  for (let i = 0; i < KEYS; i++)
    secrets.push((await svc.invoke('keys-create', { label: `burst ${i}`, wallets: null }, { actor: 'cli' })).api_secret);
  svc.close();
  serving = await startServe(svc.dataDir, ['--rate-limit', '0', '--read-limit', '0']);
}, 180_000);

afterAll(async () => {
  await serving?.stop();
  svc.dispose();
});

test('200 verify clients at once, each waiting the Retry-After of a refusal: every answer is 0 or 4003, none takes more than 2 s', async () => {
  const per = CLIENTS / PROCS;
  const children = Array.from({ length: PROCS }, (_, p) =>
    startClients([], {
      baseUrl: serving.url,
      path: '/nps/bill/verify/txs',
      verify: true,
      clients: per,
      firstClient: p * per,
      durationMs: 6_000,
      maxRequestsPerClient: 3,
      honourRetryAfter: true,
      timeoutMs: 10_000,
      items: 100,
      claimsFile,
      seed: 7,
      secrets: secrets.slice((p * KEYS) / PROCS, ((p + 1) * KEYS) / PROCS),
      minNonce: Date.now(),
    }),
  );
  // Bounded: a client process that does not end by itself is killed.
  const killer = setTimeout(() => children.forEach((c) => c.child.kill('SIGKILL')), 60_000);
  let results: LoadResult[];
  try {
    await Promise.all(children.map((c) => c.ready));
    const startAt = Date.now() + 300;
    for (const c of children) c.child.send({ type: 'go', startAt });
    results = await Promise.all(children.map((c) => c.result));
  } finally {
    clearTimeout(killer);
    await Promise.all(children.map((c) => c.closed));
  }

  const other = Object.assign({}, ...results.map((r) => r.other)) as Record<string, number>;
  expect({ other, samples: results.flatMap((r) => r.otherSamples) }).toEqual({ other: {}, samples: [] });
  const done = results.reduce((n, r) => n + r.done, 0);
  const refused = results.reduce((n, r) => n + r.refused, 0);
  // The burst went past the bound (some were refused), and the verifications went on.
  expect(refused).toBeGreaterThan(0);
  expect(done).toBeGreaterThanOrEqual(CLIENTS / 2);
  const times = results.flatMap((r) => [...r.doneMs, ...r.refusedMs]).sort((a, b) => a - b);
  const slowest = times[times.length - 1]!;
  console.log(
    `${CLIENTS} clients: ${done} done, ${refused} refused; answer p50 ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms, ` +
      `p99 ${times[Math.floor(times.length * 0.99)]!.toFixed(0)} ms, slowest ${slowest.toFixed(0)} ms`,
  );
  const max = (xs: Float64Array) => (xs.length ? Math.max(...xs) : 0);
  console.log(
    `slowest done ${Math.max(...results.map((r) => max(r.doneMs))).toFixed(0)} ms, refused ${Math.max(...results.map((r) => max(r.refusedMs))).toFixed(0)} ms, ` +
      `first answers ${Math.max(...results.map((r) => max(r.firstMs))).toFixed(0)} ms, connect ${Math.max(...results.map((r) => max(r.connectMs))).toFixed(0)} ms; ` +
      `the clients' own event loops late by at most ${Math.max(...results.map((r) => r.loopDelayMax)).toFixed(0)} ms`,
  );
  expect(slowest).toBeLessThanOrEqual(2_000);
}, 120_000);
