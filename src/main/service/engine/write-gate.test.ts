import { strictAnswers } from '../http/answers.test-support';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { generateLedger } from '../../../../bench/generate-ledger';
import { buildServer } from '../http/server';
import { signedInject } from '../http/signed.test-support';
import { callForWindow } from '../app/call';
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

  test('a signed verification and a key change wait for the import instead of failing; reads answer meanwhile', async () => {
    const file = join(svc.dataDir, 'big.csv');
    await generateLedger(file, 30_000, { seed: 3, wallets: 2 });
    const [header, first] = readFileSync(file, 'utf8').split('\n', 2) as [string, string];
    const cells = first.split(',');
    const at = (f: string) => cells[header.split(',').indexOf(f)]!;
    const { api_secret: secret } = await svc.invoke('keys-create', { label: 'robot', wallets: null }, { actor: 'cli' });

    let reading!: () => void;
    const started = new Promise<void>((resolve) => (reading = resolve));
    // Half the file read: the import thread has begun its transaction and is writing rows.
    const importing = svc.invoke(
      'ledger-import',
      { source: { path: file } },
      { actor: 'ui', onProgress: (p) => p.bytes! * 2 >= p.totalBytes! && reading() },
    );
    await started;
    expect(svc.ctx.engine.importing).toBe(true);

    // Without the gate, the nonce's write would block this thread on SQLite's busy timeout (the
    // import thread waiting meanwhile for rows from this one) and fail after 5 s.
    const verifying = signedInject(app, secret, {
      method: 'POST',
      url: '/nps/bill/verify/txs',
      body: { txs: [{ transaction_id: at('transaction_id'), amount: at('amount') }] },
    });
    const relabelling = svc
      .invoke('keys-list', {}, { actor: 'ui' })
      .then(([key]) => svc.invoke('keys-update', { api_key: key!.api_key, label: 'renamed' }, { actor: 'ui' }));
    const chains = await app.inject({ method: 'GET', url: '/nps/chains' });
    expect(chains.statusCode).toBe(200);
    expect(svc.ctx.engine.importing).toBe(true);

    const [imported, verified, relabelled] = await Promise.all([importing, verifying, relabelling]);
    expect(imported).toMatchObject({ added: 30_000, rejected: 0 });
    expect(verified.body.msg).toBe('');
    // Queued behind the import, the verification sees the record the import brought.
    expect(verified.body.data).toMatchObject([{ tx: { transaction_id: at('transaction_id') } }]);
    expect(relabelled.label).toBe('renamed');
    expect(svc.ctx.engine.importing).toBe(false);
  }, 30_000);

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
