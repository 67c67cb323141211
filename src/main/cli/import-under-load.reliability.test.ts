import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { generateLedger } from '../../../bench/generate-ledger';
import { signedHeaders } from '../service/keys/sign';
import { nps } from './nps.test-support';
import { startServe, type ServingProcess } from './serve.test-support';

/*
 * A large import from the command line while local tools use the running service: the import
 * goes through the service (one writer), lands whole, and meanwhile every request is answered
 * within a second: catalogue reads, and verifications with 0 (their runs and tickets kept until
 * the import ends: engine/deferred.ts) or, past the admission bound, 4003. Never a 5000, never a
 * crash: a verification must never wait for an import's commit, however large the file.
 */

const work = mkdtempSync(join(tmpdir(), 'nps-import-load-'));
const dataDir = join(work, 'data');
const ledger = join(work, 'ledger.csv');
const ROWS = 1_000_000;
/** How long the clients go on once the import has answered. */
const AFTER_MS = 3000;
let serving: ServingProcess;
let url: string;
let secret: string;
let claims: { transaction_id: string; amount: string }[];

beforeAll(async () => {
  await generateLedger(join(work, 'first.csv'), 2_000, { seed: 31, wallets: 2 });
  await generateLedger(ledger, ROWS, { seed: 32, wallets: 4 });
  expect((await nps(['import', join(work, 'first.csv'), '--data-dir', dataDir])).code).toBe(0);
  secret = /API secret: ([0-9a-f]{64})/.exec((await nps(['keys', 'create', '--label', 'load', '--data-dir', dataDir])).out)![1]!;
  const [header, ...rows] = readFileSync(join(work, 'first.csv'), 'utf8').trim().split('\n');
  const at = (name: string) => header!.split(',').indexOf(name);
  claims = rows.map((r) => r.split(',')).map((c) => ({ transaction_id: c[at('transaction_id')]!, amount: c[at('amount')]! }));
  serving = await startServe(dataDir, ['--rate-limit', '0', '--read-limit', '0']);
  url = serving.url;
}, 180_000);
afterAll(async () => {
  await serving.stop();
  rmSync(work, { recursive: true, force: true });
});

interface Answer {
  kind: 'catalogue' | 'verify';
  status: number;
  ms: number;
  /** The tickets a verification named. */
  tickets: string[];
  /** Answered while the import ran. */
  during: boolean;
  /** When it was sent, ms after the import began. */
  at: number;
}

test('20 clients read and verify while 1,000,000 rows are imported through the service and for 3 s after: each answered within 1 s, no 5000, the import whole, every ticket kept', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 20 });
  let nonce = Date.now();
  const send = (kind: Answer['kind'], method: 'GET' | 'POST', path: string, body = ''): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> =
        method === 'POST'
          ? {
              ...signedHeaders(secret, { method, path, query: '', body }, (nonce = Math.max(Date.now(), nonce + 1))),
              'content-type': 'application/json',
            }
          : {};
      const started = performance.now();
      const req = request(`${url}${path}`, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { status: number; data: unknown };
          const tickets =
            kind === 'verify' && answer.status === 0 ? (answer.data as { ticket_id: string | null }[]).map((d) => d.ticket_id) : [];
          resolve({
            kind,
            status: answer.status,
            ms: performance.now() - started,
            at: started - t0,
            tickets: tickets.filter((t) => t !== null),
            during: importing,
          });
        });
      });
      req.on('error', reject);
      req.end(body);
    });

  /** Client c's i-th request: the first ten clients read the catalogue, the others verify batches of 100 claims. */
  const ask = (c: number, i: number): Promise<Answer> => {
    if (c < 10) return send('catalogue', 'GET', i % 2 ? '/nps/chains' : '/nps/tokens?page_size=100');
    const from = ((c * 13 + i) * 100) % (claims.length - 100);
    // Every seventh claim mismatches its record (amount 1) and opens or updates a ticket.
    const txs = claims.slice(from, from + 100).map((x, j) => (j % 7 === 0 ? { ...x, amount: '1' } : x));
    return send('verify', 'POST', '/nps/bill/verify/txs', JSON.stringify({ txs }));
  };
  let importing = false;
  let t0 = performance.now();
  // The clients are at work when the import begins (their first requests, which also warm the
  // service's code, are not counted).
  for (let round = 0; round < 3; round++) await Promise.all(Array.from({ length: 20 }, (_, c) => ask(c, round)));
  const runsBefore = storeCount('SELECT count(*) FROM verification_runs');
  importing = true;
  t0 = performance.now();
  // The clients go on for AFTER_MS after the import has answered: its checkpoint and the writes
  // kept meanwhile come then, and must not hold the service's thread either.
  let endAt = Infinity;
  const importDone = nps(['import', ledger, '--data-dir', dataDir]).finally(() => {
    importing = false;
    endAt = performance.now() + AFTER_MS;
  });
  const answers: Answer[] = [];
  const clients = Array.from({ length: 20 }, async (_, c) => {
    // Bounded: until AFTER_MS after the import is done, at most 20,000 requests a client.
    for (let i = 0; performance.now() < endAt && i < 20_000; i++) answers.push(await ask(c, i));
  });
  const imported = await importDone;
  await Promise.all(clients);
  agent.destroy();

  expect(imported.code).toBe(0);
  expect(imported.out).toMatch(new RegExp(`added ${ROWS}, updated 0, unchanged 0, rejected 0`));
  const statuses = new Set(answers.map((a) => `${a.kind}:${a.status}`));
  for (const s of statuses) expect(['catalogue:0', 'verify:0', 'verify:4003']).toContain(s);
  expect(answers.filter((a) => a.kind === 'catalogue').length).toBeGreaterThan(100);
  // The catalogue never waits on the import's write (it only reads).
  const catalogue = answers.filter((a) => a.kind === 'catalogue').map((a) => a.ms);
  const verify = answers.filter((a) => a.kind === 'verify').map((a) => a.ms);
  console.log(
    `import under load: ${answers.length} answers; catalogue max ${Math.round(Math.max(...catalogue))} ms; verify max ${Math.round(Math.max(...verify))} ms (${verify.length} verify answers); slowest: ` +
      [...answers]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 5)
        .map((a) => `${a.kind} ${Math.round(a.ms)} ms at ${(a.at / 1000).toFixed(1)} s${a.during ? '' : ' (after)'}`)
        .join(', '),
  );
  expect(Math.max(...catalogue)).toBeLessThan(1000);
  // Verifications do not wait for the import's commit either: they answer from the ledger as committed.
  expect(answers.filter((a) => a.kind === 'verify' && a.status === 0 && a.during).length).toBeGreaterThan(20);
  expect(Math.max(...verify)).toBeLessThan(1000);
  // Each verification answered 0 kept its run, and every ticket it named is in the store.
  const verified = answers.filter((a) => a.kind === 'verify' && a.status === 0);
  await waitFor(() => storeCount('SELECT count(*) FROM verification_runs') - runsBefore === verified.length);
  const named = [...new Set(verified.flatMap((a) => a.tickets))];
  expect(named.length).toBeGreaterThan(0);
  expect(storeCount(`SELECT count(*) FROM tickets WHERE ticket_id IN (SELECT value FROM json_each('${JSON.stringify(named)}'))`)).toBe(
    named.length,
  );
}, 300_000);

/** A count read from the store by a connection of this process (WAL: beside the running service). */
function storeCount(sql: string): number {
  const db = new Database(join(dataDir, 'nps.sqlite'), { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
}

/** The deferred writes are applied just after the import ends: wait for them, at most 10 s. */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
  expect(done()).toBe(true);
}
