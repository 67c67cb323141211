import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { generateLedger } from '../../../../bench/generate-ledger';
import { buildServer } from '../http/server';
import { signedInject } from '../http/signed.test-support';
import { openService } from '../index';
import { tempService } from '../test-support';
import { DeferredWrites, deferredFileOf } from './deferred';

/*
 * A crash can land between a deferred write's commit in the store and its removal from
 * nps.deferred.sqlite; the next start then applies it again. That second time must change nothing:
 * no second run, no second ticket event, no second nonce.
 */

test('a deferred verification applied a second time (a crash between the two commits) changes nothing', async () => {
  const svc = tempService();
  const app = buildServer(svc, { log: () => {}, rateLimit: false });
  const small = join(svc.dataDir, 'small.csv');
  await generateLedger(small, 100, { seed: 7, wallets: 1 });
  await svc.invoke('ledger-import', { source: { path: small } }, { actor: 'ui' });
  const [header, first] = readFileSync(small, 'utf8').split('\n', 2) as [string, string];
  const transactionId = first.split(',')[header.split(',').indexOf('transaction_id')]!;
  const big = join(svc.dataDir, 'big.csv');
  await generateLedger(big, 60_000, { seed: 8, wallets: 2 });
  const { api_secret: secret } = await svc.invoke('keys-create', { label: 'robot', wallets: null }, { actor: 'cli' });

  let reading!: () => void;
  const started = new Promise<void>((resolve) => (reading = resolve));
  const importing = svc.invoke(
    'ledger-import',
    { source: { path: big } },
    { actor: 'ui', onProgress: (p) => p.bytes! * 3 >= p.totalBytes! && reading() },
  );
  await started;
  const answer = await signedInject(app, secret, {
    method: 'POST',
    url: '/nps/bill/verify/txs',
    body: { txs: [{ transaction_id: transactionId, amount: '12345' }] },
  });
  expect(answer.body.status).toBe(0);
  expect(svc.ctx.engine.importing).toBe(true);
  // What the file held at that moment: the entries a crash right after their commits would leave.
  const deferredFile = deferredFileOf(svc.ctx.db.$client.name);
  const left = join(svc.dataDir, 'left-behind.sqlite');
  const copy = new Database(deferredFile, { readonly: true });
  copy.exec(`VACUUM INTO '${left}'`);
  copy.close();

  await importing;
  // Applied as the import gives the lock back, before any write that waited for it.
  await svc.ctx.engine.writable();
  expect(svc.ctx.engine.deferredCount).toBe(0);
  const counts = (db: Database.Database) =>
    ['verification_runs', 'verification_chunks', 'tickets', 'ticket_events', 'used_nonces'].map((t) =>
      db.prepare(`SELECT count(*) FROM ${t}`).pluck().get(),
    );
  const applied = counts(svc.ctx.db.$client);
  expect(applied).toEqual([1, 1, 1, 1, 1]);
  await app.close();
  svc.close();

  for (const suffix of ['', '-wal', '-shm']) rmSync(deferredFile + suffix, { force: true });
  const restored = new Database(left);
  restored.exec(`VACUUM INTO '${deferredFile}'`);
  restored.close();
  const again = openService({ dataDir: svc.dataDir });
  try {
    expect(counts(again.ctx.db.$client)).toEqual(applied);
    const left = new Database(deferredFile, { readonly: true });
    expect(left.prepare('SELECT count(*) FROM deferred').pluck().get()).toBe(0);
    left.close();
  } finally {
    again.close();
    svc.dispose();
  }
}, 60_000);

test("a deferred write waiting on its file does not hold the service's thread: queued at once, answered once on disk", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nps-deferred-'));
  const main = new Database(join(dir, 'nps.sqlite'));
  const file = deferredFileOf(main.name);
  const applied: unknown[] = [];
  const writes = new DeferredWrites(file, main, undefined);
  writes.register('note', (body) => applied.push(body));
  try {
    await writes.add('note', { n: 1 });
    // Another connection holds the file's write lock for 60 ms, released by a timer of this thread.
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    setTimeout(() => other.exec('COMMIT'), 60);
    const t0 = performance.now();
    const kept = writes.add('note', { n: 2 });
    expect(performance.now() - t0).toBeLessThan(20);
    expect(writes.size).toBe(2);
    await kept;
    other.close();
    const onDisk = new Database(file, { readonly: true });
    expect(onDisk.prepare('SELECT body FROM deferred ORDER BY id').pluck().all()).toEqual(['{"n":1}', '{"n":2}']);
    onDisk.close();
    writes.applyNext();
    writes.applyNext();
    expect(applied).toEqual([{ n: 1 }, { n: 2 }]);
  } finally {
    writes.close();
    main.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an entry is applied only once it is on disk: one whose write fails, and was answered so, is never applied; the one behind it is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nps-deferred-'));
  const main = new Database(join(dir, 'nps.sqlite'));
  const file = deferredFileOf(main.name);
  const applied: unknown[] = [];
  const writes = new DeferredWrites(file, main, undefined);
  writes.register('note', (body) => applied.push(body));
  try {
    // The file and its thread are there (its removal waits until after the writes below, in order).
    await writes.add('note', { n: 0 });
    // Another connection holds the file's write lock beyond the first write's wait (100 ms), and
    // lets it go as soon as that write has failed, while the second waits its turn.
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const first = writes.add('note', { n: 1 }).then(
      () => 'kept',
      (err: unknown) => {
        other.exec('COMMIT');
        return (err as Error).message;
      },
    );
    const second = writes.add('note', { n: 2 }).then(() => 'kept');
    // Both queued at once behind the first; neither may be applied while its write is under way.
    expect(writes.size).toBe(3);
    writes.applyNext();
    expect(() => writes.applyNext()).toThrow(/not on disk yet/);
    await writes.headWritten();
    expect(await first).toMatch(/locked|busy/i);
    expect(await second).toBe('kept');
    expect(writes.size).toBe(1);
    writes.applyNext();
    expect(applied).toEqual([{ n: 0 }, { n: 2 }]);
    other.close();
  } finally {
    writes.close();
    main.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a deferred verification whose write fails is answered 5001 naming its file, and leaves no ticket behind: the next claim opens one that is kept', async () => {
  const svc = tempService();
  const small = join(svc.dataDir, 'small.csv');
  await generateLedger(small, 100, { seed: 7, wallets: 1 });
  await svc.invoke('ledger-import', { source: { path: small } }, { actor: 'ui' });
  const lines = readFileSync(small, 'utf8').split('\n');
  const idAt = lines[0]!.split(',').indexOf('transaction_id');
  const [first, second] = [lines[1]!, lines[2]!].map((l) => l.split(',')[idAt]!) as [string, string];
  const big = join(svc.dataDir, 'big.csv');
  await generateLedger(big, 150_000, { seed: 8, wallets: 2 });
  // As the API's verification runs it, without a signed request's nonce (a deferred write of its own).
  const verify = async (transaction_id: string, amount: string) =>
    (await svc.invoke('reconcile-verify-txs', { txs: [{ transaction_id, amount }], shape: 'A' }, { actor: 'cli' })) as unknown as {
      ticket_id: string;
    }[];

  let reading!: () => void;
  const started = new Promise<void>((resolve) => (reading = resolve));
  const importing = svc.invoke('ledger-import', { source: { path: big } }, { actor: 'ui', onProgress: () => reading() });
  await started;
  try {
    // A first deferred write: the file and its thread are there.
    await verify(second, '1');
    // The file's write lock held beyond its wait (100 ms): the next deferred write fails.
    const other = new Database(deferredFileOf(svc.ctx.db.$client.name));
    other.exec('BEGIN IMMEDIATE');
    const failed = await verify(first, '12345').then(
      () => undefined,
      (err: unknown) => err,
    );
    other.exec('COMMIT');
    other.close();
    // The store's own failure (5001), naming the file that could not be written.
    expect(failed).toMatchObject({ code: 5001, message: expect.stringContaining('nps.deferred.sqlite') });
    expect(svc.ctx.engine.importing).toBe(true);
    // The same transaction claimed again: a ticket of its own, not the failed call's.
    const kept = await verify(first, '999');
    expect(svc.ctx.engine.importing).toBe(true);
    const ticketId = kept[0]!.ticket_id;
    expect(ticketId).not.toBe('');
    await importing;
    await svc.ctx.engine.writable();
    // In the store, not only in the service's memory; the failed call's claim in none.
    const stored = svc.ctx.db.$client
      .prepare('SELECT ticket_id, transaction_id, claimed FROM tickets WHERE transaction_id = ?')
      .all(first) as { claimed: string }[];
    expect(stored).toEqual([expect.objectContaining({ ticket_id: ticketId, transaction_id: first })]);
    expect(stored[0]!.claimed).toContain('999');
    const ticket = await svc.invoke('ticket-get', { ticket_id: ticketId }, { actor: 'ui' });
    expect(ticket).toMatchObject({ ticket_id: ticketId, transaction_id: first });
    expect(JSON.stringify(ticket)).toContain('999');
    expect(JSON.stringify(ticket)).not.toContain('12345');
  } finally {
    await importing.catch(() => {});
    svc.dispose();
  }
}, 60_000);
