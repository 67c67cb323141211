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
 * goes through the service (one writer), lands whole, and meanwhile every request is answered:
 * catalogue reads at once, verifications with 0 or, past the admission bound, 4003. Never a 5000,
 * never a crash. (Before, the CLI wrote beside the service and requests stalled for seconds.)
 */

const work = mkdtempSync(join(tmpdir(), 'nps-import-load-'));
const dataDir = join(work, 'data');
const ledger = join(work, 'ledger.csv');
const ROWS = 200_000;
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
}

test('20 clients read and verify while 200,000 rows are imported through the service: all answered, no 5000, the import whole', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 20 });
  let nonce = Date.now();
  const send = (kind: Answer['kind'], method: 'GET' | 'POST', path: string, body = ''): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> =
        method === 'POST'
          ? { ...signedHeaders(secret, { method, path, query: '', body }, ++nonce), 'content-type': 'application/json' }
          : {};
      const started = performance.now();
      const req = request(`${url}${path}`, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { status: number };
          resolve({ kind, status: answer.status, ms: performance.now() - started });
        });
      });
      req.on('error', reject);
      req.end(body);
    });

  let importing = true;
  const importDone = nps(['import', ledger, '--data-dir', dataDir]).finally(() => (importing = false));
  const answers: Answer[] = [];
  const clients = Array.from({ length: 20 }, async (_, c) => {
    // Bounded: until the import is done, at most 2,000 requests a client.
    for (let i = 0; importing && i < 2000; i++) {
      if (c < 10) {
        answers.push(await send('catalogue', 'GET', i % 2 ? '/nps/chains' : '/nps/tokens?page_size=100'));
      } else {
        const from = ((c * 13 + i) * 100) % (claims.length - 100);
        answers.push(await send('verify', 'POST', '/nps/bill/verify/txs', JSON.stringify({ txs: claims.slice(from, from + 100) })));
      }
    }
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
    `import under load: ${answers.length} answers; catalogue max ${Math.round(Math.max(...catalogue))} ms; verify max ${Math.round(Math.max(...verify))} ms (${verify.length} verify answers)`,
  );
  expect(Math.max(...catalogue)).toBeLessThan(1000);
}, 300_000);
