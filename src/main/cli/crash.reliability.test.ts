import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLedger } from '../../../bench/generate-ledger';
import { signedHeaders } from '../service/keys/sign';
import { nps } from './nps.test-support';
import { startServe } from './serve.test-support';

/*
 * The service killed outright (kill -9, as a crash or a power cut would) in the middle of an
 * import and in the middle of verifications, again and again: the store stays whole
 * (integrity_check), an import lands entirely or not at all, a run is never half written, and
 * the next `serve` starts on the folder (the api.json left behind names a dead process).
 */

const work = mkdtempSync(join(tmpdir(), 'nps-crash-'));
const bigLedger = join(work, 'big.csv');
const smallLedger = join(work, 'small.csv');

beforeAll(async () => {
  await generateLedger(bigLedger, 150_000, { seed: 21, wallets: 3 });
  await generateLedger(smallLedger, 3_000, { seed: 22, wallets: 2 });
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const serve = (dataDir: string) => startServe(dataDir, ['--rate-limit', '0']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the store holds after the crash, read by a connection of this process. */
function inspect(dataDir: string) {
  const db = new Database(join(dataDir, 'nps.sqlite'));
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }),
      foreignKeys: (db.pragma('foreign_key_check') as unknown[]).length,
      imports: db.prepare('SELECT count(*) FROM imports').pluck().get() as number,
      transactions: db.prepare('SELECT count(*) FROM transactions').pluck().get() as number,
      importedRows: db.prepare('SELECT coalesce(sum(added), 0) FROM imports').pluck().get() as number,
      halfRuns: db
        .prepare(
          `SELECT count(*) FROM verification_runs r
           WHERE r.item_count <> (SELECT coalesce(sum(c.item_count), 0) FROM verification_chunks c WHERE c.run_id = r.run_id)`,
        )
        .pluck()
        .get() as number,
      runs: db.prepare('SELECT count(*) FROM verification_runs').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

describe('kill -9 of the service', () => {
  it('in the middle of an import, three times: the store is whole and holds no part of the import', async () => {
    let killedMidway = 0;
    for (const [round, walBytes] of [1, 6, 16].map((mb) => mb * 1024 * 1024).entries()) {
      const dataDir = join(work, `import-${round}`);
      const serving = await serve(dataDir);
      // The command line imports through the running service; the service is killed while the
      // import's rows are being written (its write-ahead log growing past a size), up to 30 s.
      const importing = nps(['import', bigLedger, '--data-dir', dataDir]);
      const wal = join(dataDir, 'nps.sqlite-wal');
      for (let i = 0; i < 3000 && (statSync(wal, { throwIfNoEntry: false })?.size ?? 0) < walBytes; i++) await sleep(10);
      await serving.kill();
      const cli = await importing;
      const state = inspect(dataDir);
      expect(state.integrity, `round ${round}`).toBe('ok');
      expect(state.foreignKeys).toBe(0);
      // Either nothing of it, or all of it (the commit may have come first): never a part.
      if (state.imports === 0) {
        expect(state.transactions).toBe(0);
        killedMidway++;
      } else expect([state.imports, state.transactions, state.importedRows]).toEqual([1, 150_000, 150_000]);
      if (cli.code === 0) expect(state.transactions).toBe(150_000);
      // The command line says the service went away in one line, never with a stack.
      else
        expect(cli.err.trim().split('\n'), cli.err).toEqual([
          expect.stringMatching(/^the service running on this data folder .* (stopped before it finished answering|did not answer)/),
        ]);
      // The folder is usable again: the api.json left behind names a dead process.
      const again = await serve(dataDir);
      const imports = (await (await fetch(`${again.url}/nps/chains?page_size=1`)).json()) as { status: number };
      expect(imports.status).toBe(0);
      await again.kill();
    }
    // The kills did land while the import was being written (not all after its commit).
    expect(killedMidway).toBeGreaterThanOrEqual(2);
  }, 300_000);

  it('in the middle of verifications, three times: the store is whole and no run is half written', async () => {
    const dataDir = join(work, 'verify');
    const [header, ...rows] = readFileSync(smallLedger, 'utf8').trim().split('\n');
    const at = (name: string) => header!.split(',').indexOf(name);
    const claims = rows.map((r) => r.split(',')).map((c) => ({ transaction_id: c[at('transaction_id')]!, amount: c[at('amount')]! }));
    expect((await nps(['import', smallLedger, '--data-dir', dataDir])).code).toBe(0);
    const secret = /API secret: ([0-9a-f]{64})/.exec((await nps(['keys', 'create', '--label', 'crash', '--data-dir', dataDir])).out)![1]!;
    let nonce = Date.now();
    for (const round of [0, 1, 2]) {
      const serving = await serve(dataDir);
      const { url } = serving;
      const stop = Date.now() + 1500 + round * 400;
      const send = (batch: object[]) =>
        new Promise<void>((resolve) => {
          const path = '/nps/bill/verify/txs';
          const body = JSON.stringify({ txs: batch });
          const headers = {
            ...signedHeaders(secret, { method: 'POST', path, query: '', body }, ++nonce),
            'content-type': 'application/json',
          };
          const req = request(`${url}${path}`, { method: 'POST', headers }, (res) => res.resume().on('end', () => resolve()));
          req.on('error', () => resolve());
          req.end(body);
        });
      // Four clients verifying batches of mismatching claims (each opens tickets) until the kill.
      const clients = [0, 1, 2, 3].map(async (c) => {
        for (let i = 0; Date.now() < stop && i < 1000; i++) {
          const from = ((c * 7 + i) * 250) % (claims.length - 250);
          await send(claims.slice(from, from + 250).map((x, j) => (j % 3 === 0 ? { ...x, amount: '1' } : x)));
        }
      });
      await sleep(stop - Date.now());
      await serving.kill();
      await Promise.all(clients);
      const state = inspect(dataDir);
      expect(state.integrity, `round ${round}`).toBe('ok');
      expect(state.foreignKeys).toBe(0);
      expect(state.runs).toBeGreaterThan(0);
      expect(state.halfRuns).toBe(0);
    }
    // The store file is still there and still a store.
    expect(statSync(join(dataDir, 'nps.sqlite')).size).toBeGreaterThan(0);
  }, 300_000);

  it('in the middle of an import after a verification answered meanwhile: its run and tickets are kept', async () => {
    const dataDir = join(work, 'deferred');
    const [header, ...rows] = readFileSync(smallLedger, 'utf8').trim().split('\n');
    const at = (name: string) => header!.split(',').indexOf(name);
    const records = rows.slice(0, 40).map((r) => r.split(','));
    expect((await nps(['import', smallLedger, '--data-dir', dataDir])).code).toBe(0);
    const secret = /API secret: ([0-9a-f]{64})/.exec((await nps(['keys', 'create', '--label', 'crash', '--data-dir', dataDir])).out)![1]!;
    let nonce = Date.now();
    const call = (url: string, method: 'GET' | 'POST', body = '') =>
      new Promise<{ status: number; data: unknown }>((resolve, reject) => {
        const { pathname, search } = new URL(url);
        const headers = {
          ...signedHeaders(secret, { method, path: pathname, query: search.slice(1), body }, ++nonce),
          ...(body ? { 'content-type': 'application/json' } : {}),
        };
        const req = request(url, { method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { status: number; data: unknown }));
        });
        req.on('error', reject);
        req.end(body);
      });

    const serving = await serve(dataDir);
    const importing = nps(['import', bigLedger, '--data-dir', dataDir]);
    const wal = join(dataDir, 'nps.sqlite-wal');
    for (let i = 0; i < 3000 && (statSync(wal, { throwIfNoEntry: false })?.size ?? 0) < 2 * 1024 * 1024; i++) await sleep(10);
    // Every claim mismatches its record (amount 1): each opens a ticket.
    const body = JSON.stringify({ txs: records.map((c) => ({ transaction_id: c[at('transaction_id')], amount: '1' })) });
    const answer = await call(`${serving.url}/nps/bill/verify/txs`, 'POST', body);
    expect(answer.status).toBe(0);
    const tickets = (answer.data as { ticket_id: string | null }[]).map((d) => d.ticket_id!);
    expect(tickets.every((t) => typeof t === 'string')).toBe(true);
    await serving.kill();
    await importing;
    const state = inspect(dataDir);
    expect(state.integrity).toBe('ok');
    // Killed while the import was being written (only the first, small import is there): the verification's writes were deferred.
    expect(state.imports).toBe(1);
    const deferredFile = join(dataDir, 'nps.deferred.sqlite');
    const kept = (file: string, sql: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare(sql).pluck().get() as number;
      } finally {
        db.close();
      }
    };
    expect(kept(deferredFile, "SELECT count(*) FROM deferred WHERE kind = 'verify'")).toBe(1);
    expect(kept(join(dataDir, 'nps.sqlite'), 'SELECT count(*) FROM tickets')).toBe(0);

    // The next start applies what was kept beside the store before it serves.
    const again = await serve(dataDir);
    const stored = kept(join(dataDir, 'nps.sqlite'), `SELECT count(*) FROM tickets WHERE ticket_id IN ('${tickets.join("','")}')`);
    expect(stored).toBe(tickets.length);
    expect(kept(join(dataDir, 'nps.sqlite'), 'SELECT count(*) FROM verification_runs')).toBe(1);
    expect(kept(deferredFile, 'SELECT count(*) FROM deferred')).toBe(0);
    const wallet = records[0]![at('wallet_id')]!;
    const lookup = await call(`${again.url}/nps/ticket?wallet_id=${wallet}&ticket_id=${tickets[0]}`, 'GET');
    expect(lookup).toMatchObject({ status: 0, data: { ticket_id: tickets[0], status: 'Pending' } });
    await again.stop();
    expect(inspect(dataDir)).toMatchObject({ integrity: 'ok', foreignKeys: 0, halfRuns: 0, runs: 1 });
  }, 300_000);
});
