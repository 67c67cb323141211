import { strictAnswers } from '../http/answers.test-support';
import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { generateLedger } from '../../../../bench/generate-ledger';
import { buildServer } from '../http/server';
import { signedInject } from '../http/signed.test-support';
import { callForWindow } from '../app/call';
import { followChanges } from '../changes';
import type { StoreChange } from '../../../shared/changes';
import { nonceBook } from '../keys/nonces';
import { tempService } from '../test-support';
import { WriteGate } from './write-gate';

describe('WriteGate', () => {
  test('idle resolves at once when free; holders take turns; waiters go when it is given back', async () => {
    const gate = new WriteGate();
    await gate.idle();
    const order: string[] = [];
    const release1 = await gate.acquire();
    expect(gate.busy).toBe(true);
    const second = gate.acquire().then((release) => {
      order.push('second holds');
      return release;
    });
    const waiter = gate.idle().then(() => order.push('waiter'));
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    release1();
    const release2 = await second;
    expect(order).toEqual(['second holds']);
    expect(gate.busy).toBe(true);
    release2();
    await waiter;
    expect(order).toEqual(['second holds', 'waiter']);
    expect(gate.busy).toBe(false);
  });
});

describe('writes while a large import holds the write lock', () => {
  const svc = tempService();
  const app = buildServer(svc, { log: () => {}, rateLimit: false });
  strictAnswers(app);
  afterAll(async () => {
    await app.close();
    svc.dispose();
  });

  /** An import of `file` under way: a third of it read, its thread in its transaction writing rows, holding the write lock. */
  async function importUnderway(file: string) {
    let reading!: () => void;
    const started = new Promise<void>((resolve) => (reading = resolve));
    const importing = svc.invoke(
      'ledger-import',
      { source: { path: file } },
      { actor: 'ui', onProgress: (p) => p.bytes! * 3 >= p.totalBytes! && reading() },
    );
    await started;
    expect(svc.ctx.engine.importing).toBe(true);
    // In an object: an async function returning the promise itself would resolve only with the import.
    return { importing };
  }

  test('a signed verification answers during the import from the committed ledger; its run, ticket and nonce land when the import ends; other writes wait', async () => {
    const count = (sql: string) => svc.ctx.db.$client.prepare(sql).pluck().get() as number;
    const small = join(svc.dataDir, 'small.csv');
    await generateLedger(small, 200, { seed: 2, wallets: 1 });
    await svc.invoke('ledger-import', { source: { path: small } }, { actor: 'ui' });
    const file = join(svc.dataDir, 'big.csv');
    await generateLedger(file, 60_000, { seed: 3, wallets: 2 });
    const firstRow = (path: string) => {
      const [header, first] = readFileSync(path, 'utf8').split('\n', 2) as [string, string];
      const cells = first.split(',');
      return (f: string) => cells[header.split(',').indexOf(f)]!;
    };
    const stored = firstRow(small);
    const coming = firstRow(file);
    const { api_secret: secret, api_key: key } = await svc.invoke('keys-create', { label: 'robot', wallets: null }, { actor: 'cli' });
    const runsBefore = count('SELECT count(*) FROM verification_runs');
    let nonce = Date.now();

    const { importing } = await importUnderway(file);

    // What another window hears of the verifications.
    const heard: StoreChange[] = [];
    const follower = followChanges(svc.ctx.changes, { instance: svc.ctx.instance, window: 'other', send: (c) => (heard.push(c), true) });
    const verify = (txs: object[], n = ++nonce) =>
      signedInject(app, secret, { method: 'POST', url: '/nps/bill/verify/txs', body: { txs }, nonce: n });
    // Answered now, from the ledger as committed: the record the import brings is not there yet.
    const first = await verify([
      { transaction_id: stored('transaction_id'), amount: '999' },
      { transaction_id: coming('transaction_id'), amount: coming('amount') },
    ]);
    expect(first.body.msg).toBe('');
    const [mismatch, notYet] = first.body.data as { amount_match: boolean; result: boolean; tx: unknown; ticket_id: string | null }[];
    expect(mismatch).toMatchObject({ amount_match: false, result: false, tx: { transaction_id: stored('transaction_id') } });
    expect(notYet).toMatchObject({ result: false, tx: null, ticket_id: null });
    const ticketId = mismatch!.ticket_id!;
    // A second mismatch about the same record lands on the same ticket, deferred too.
    const secondNonce = ++nonce;
    const second = await verify([{ transaction_id: stored('transaction_id'), amount: '998' }], secondNonce);
    expect((second.body.data as { ticket_id: string }[])[0]!.ticket_id).toBe(ticketId);
    // The ticket is there for the caller at once, saying what the newest claim said.
    const lookup = await signedInject(app, secret, {
      method: 'GET',
      url: `/nps/ticket?wallet_id=${stored('wallet_id')}&ticket_id=${ticketId}`,
      nonce: ++nonce,
    });
    expect(lookup.body).toMatchObject({
      status: 0,
      data: { ticket_id: ticketId, status: 'Pending', transaction_id: stored('transaction_id') },
    });
    expect((lookup.body.data as { desc: string }).desc).toContain('998');
    // A nonce accepted during the import is refused a second time, as always.
    const replay = await verify([{ transaction_id: stored('transaction_id'), amount: '1' }], secondNonce);
    expect(replay.body.status).toBe(2004);
    // The same pair twice in one turn: the first is claimed before anything is awaited, so the
    // second is a replay, though the pair is in neither the store nor the deferred writes yet.
    const book = await nonceBook(svc.ctx, 60_000);
    const twice = ++nonce;
    expect(await Promise.all([book(key, twice, String(twice), twice), book(key, twice, String(twice), twice)])).toEqual([true, false]);
    expect(svc.ctx.engine.importing).toBe(true);
    // Kept beside the store (nps.deferred.sqlite), not yet in it.
    expect(count('SELECT count(*) FROM verification_runs')).toBe(runsBefore);
    expect(count(`SELECT count(*) FROM tickets WHERE ticket_id = '${ticketId}'`)).toBe(0);
    expect(svc.ctx.engine.deferredCount).toBe(6);
    // Not announced yet: a window reloading now would not find the runs.
    expect(heard.filter((c) => c.topic === 'runs')).toEqual([]);
    expect(existsSync(join(svc.dataDir, 'nps.deferred.sqlite'))).toBe(true);

    // A key change (the window's write) waits for the import, then the deferred writes, instead of failing.
    const relabelling = svc
      .invoke('keys-list', {}, { actor: 'ui' })
      .then(([key]) => svc.invoke('keys-update', { api_key: key!.api_key, label: 'renamed' }, { actor: 'ui' }));
    const chains = await app.inject({ method: 'GET', url: '/nps/chains' });
    expect(chains.statusCode).toBe(200);

    const [imported, relabelled] = await Promise.all([importing, relabelling]);
    expect(imported).toMatchObject({ added: 60_000, rejected: 0 });
    expect(relabelled.label).toBe('renamed');
    expect(svc.ctx.engine.importing).toBe(false);
    expect(svc.ctx.engine.deferredCount).toBe(0);
    expect(count('SELECT count(*) FROM verification_runs')).toBe(runsBefore + 2);
    // Announced once they have landed, one word each.
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard.filter((c) => c.topic === 'runs')).toHaveLength(2);
    follower.close();
    expect(count('SELECT count(*) FROM used_nonces')).toBeGreaterThanOrEqual(4);
    const ticket = await svc.invoke('ticket-get', { ticket_id: ticketId }, { actor: 'ui' });
    expect(ticket.desc).toContain('998');
    expect(ticket.events.map((e) => e.kind)).toEqual(['opened', 'updated']);
    // Now the record the import brought is found.
    const after = await verify([{ transaction_id: coming('transaction_id'), amount: coming('amount') }]);
    expect((after.body.data as { result: boolean }[])[0]!.result).toBe(true);
  }, 60_000);

  test("the name and the chains' nodes, kept in the data folder, change during an import without waiting for it", async () => {
    const file = join(svc.dataDir, 'big-2.csv');
    await generateLedger(file, 60_000, { seed: 4, wallets: 2 });
    const { importing } = await importUnderway(file);
    // Answered while the import still holds the store's write lock: neither writes the store.
    expect(await svc.invoke('app-user-set', { name: 'Anna Berg' }, { actor: 'ui' })).toEqual({ name: 'Anna Berg' });
    await expect(svc.invoke('onchain-node-clear', { chain_id: 'ETH' }, { actor: 'ui' })).rejects.toThrow(/no node is set for ETH/);
    expect(svc.ctx.engine.importing).toBe(true);
    expect(await importing).toMatchObject({ added: 60_000 });
    expect(await svc.invoke('app-user-get', {}, { actor: 'ui' })).toEqual({ name: 'Anna Berg' });
  }, 60_000);

  test('another program holding the lock: the window and the API say the store is busy, and nothing is written', async () => {
    svc.ctx.db.$client.pragma('busy_timeout = 50');
    const { api_secret: secret } = await svc.invoke('keys-create', { label: 'tool', wallets: null }, { actor: 'cli' });
    const other = new Database(svc.ctx.db.$client.name);
    try {
      other.exec('BEGIN IMMEDIATE');
      const count = (table: string) => svc.ctx.db.$client.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
      const before = [count('api_keys'), count('used_nonces'), count('verification_runs')];
      const ui = await callForWindow(svc.handlers, 'keys-create', { label: 'x', wallets: null }, { actor: 'ui' }, () => {});
      const busy = `${svc.ctx.db.$client.name} is busy: another program is writing to it (one that opened the store itself rather than through this service); nothing was changed, try again when it has finished`;
      expect(ui).toEqual({ status: 5001, data: null, msg: busy });
      const api = await signedInject(app, secret, {
        method: 'POST',
        url: '/nps/bill/verify/txs',
        body: { txs: [{ transaction_id: '11111111-1111-4111-8111-111111111111', amount: '1' }] },
      });
      expect(api).toMatchObject({ http: 503, body: { status: 5001, data: null, msg: busy } });
      other.exec('ROLLBACK');
      expect([count('api_keys'), count('used_nonces'), count('verification_runs')]).toEqual(before);
    } finally {
      other.close();
      svc.ctx.db.$client.pragma('busy_timeout = 5000');
    }
  });
});
