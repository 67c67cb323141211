import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../service/http/server';
import { signedHeaders } from '../service/keys/sign';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

const root = join(import.meta.dirname, '../../..');
/** Each command starts a process that compiles the CLI first (seconds on a busy 2-core machine). */
const CLI_TIMEOUT = 90_000;

describe('npm run nps -- keys / call', () => {
  const svc = tempService();
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(svc, { port: 0, log: () => {} });
  });
  afterAll(async () => {
    await server.close();
    svc.dispose();
  });

  it(
    'creates a key (secret shown once), signs a call with it through api.json, lists and revokes it',
    async () => {
      const created = await nps(['keys', 'create', '--label', 'books robot', '--data-dir', svc.dataDir]);
      expect(created.code).toBe(0);
      const secret = /API secret: ([0-9a-f]{64})/.exec(created.out)![1]!;
      const key = /API key: +([0-9a-f]{64})/.exec(created.out)![1]!;
      expect(svc.ctx.db.$client.prepare('SELECT count(*) AS n FROM api_keys WHERE api_key = ?').get(key)).toEqual({ n: 1 });
      // The secret is nowhere in the store.
      const dump = JSON.stringify(svc.ctx.db.$client.prepare('SELECT * FROM api_keys').all());
      expect(dump).not.toContain(secret);

      const ok = await nps(
        ['call', 'post', '/nps/bill/verify/txs', '--body', '{"txs":[{"request_id":"r-1","amount":0.1}]}', '--data-dir', svc.dataDir],
        { NPS_API_SECRET: secret },
      );
      expect(ok.err).toBe('');
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.out)).toMatchObject({ status: 0, data: [{ result: false, tx: null }] });

      const list = await nps(['keys', 'list', '--json', '--data-dir', svc.dataDir]);
      expect(JSON.parse(list.out)).toMatchObject([
        { api_key: key, label: 'books robot', wallets: null, revoked_at: null, last_used_at: expect.any(Number) },
      ]);

      const treasury = await svc.invoke('wallet-create', { name: 'Treasury' }, { actor: 'cli' });
      const updated = await nps(['keys', 'update', key, '--label', 'month-end robot', '--wallets', 'treasury', '--data-dir', svc.dataDir]);
      expect(updated.code).toBe(0);
      const relabelled = await nps(['keys', 'list', '--json', '--data-dir', svc.dataDir]);
      expect(JSON.parse(relabelled.out)).toMatchObject([{ api_key: key, label: 'month-end robot', wallets: [treasury.wallet_id] }]);
      const nothing = await nps(['keys', 'update', key, '--data-dir', svc.dataDir]);
      expect(nothing.code).toBe(1);
      expect(nothing.err.trim()).toBe('keys update: give --label, --wallets or both');

      expect((await nps(['keys', 'revoke', key, '--data-dir', svc.dataDir])).code).toBe(0);
      const refused = await nps([
        'call',
        'GET',
        `/nps/ticket?wallet_id=${'1'.repeat(8)}-1111-4111-8111-${'1'.repeat(12)}&ticket_id=${'2'.repeat(8)}-2222-4222-8222-${'2'.repeat(12)}`,
        '--secret',
        secret,
        '--base',
        server.url,
      ]);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.out)).toMatchObject({ status: 2002, data: null });
    },
    CLI_TIMEOUT,
  );

  it(
    'registers a key made elsewhere and refuses bad input in one line',
    async () => {
      const pub = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
      const added = await nps([
        'keys',
        'add',
        '--public-key',
        pub.toUpperCase(),
        '--label',
        'hsm',
        '--wallets',
        'all',
        '--data-dir',
        svc.dataDir,
      ]);
      expect(added.code).toBe(0);
      expect(added.out).toContain(pub);
      const again = await nps(['keys', 'add', '--public-key', pub, '--label', 'hsm', '--data-dir', svc.dataDir]);
      expect(again.code).toBe(1);
      expect(again.err.trim()).toBe('error 1002: public_key: this key is already registered');
      const badQuery = await nps([
        'call',
        'GET',
        '/nps/ticket',
        '--query',
        'a=b c',
        '--secret',
        '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
        '--base',
        server.url,
      ]);
      expect(badQuery.code).toBe(1);
      expect(badQuery.err).toMatch(/not URL-encoded/);
    },
    CLI_TIMEOUT,
  );

  it(
    'keys create --wallets takes wallet names and IDs, and refuses a wallet that does not exist, naming it',
    async () => {
      const cold = await svc.invoke('wallet-create', { name: 'Cold storage' }, { actor: 'cli' });
      const hot = await svc.invoke('wallet-create', { name: 'Hot wallet' }, { actor: 'cli' });
      const dir = ['--data-dir', svc.dataDir];
      // A name (any case) and an ID (any case) in one list: the key holds both wallets' IDs.
      const made = await nps([
        'keys',
        'create',
        '--label',
        'two wallets',
        '--wallets',
        `cold STORAGE,${hot.wallet_id.toUpperCase()}`,
        ...dir,
      ]);
      expect(made.err).toBe('');
      expect(made.out).toMatch(/^Created API key "two wallets" for [0-9a-f-]{36},[0-9a-f-]{36}\.\n/);
      const key = /API key: +([0-9a-f]{64})/.exec(made.out)![1]!;
      const keys = JSON.parse((await nps(['keys', 'list', '--json', ...dir])).out) as { api_key: string; wallets: string[] | null }[];
      expect(keys.find((k) => k.api_key === key)!.wallets!.sort()).toEqual([cold.wallet_id, hot.wallet_id].sort());

      // A typo of a name, and an ID no wallet has: refused in one line, and no key is made.
      const before = keys.length;
      const typo = await nps(['keys', 'create', '--label', 'typo', '--wallets', 'Hot walet', ...dir]);
      expect(typo).toMatchObject({
        code: 1,
        err: '--wallets: no wallet is named or has the ID "Hot walet"; did you mean "Hot wallet"? (nps wallets list)\n',
      });
      const stranger = '11111111-1111-4111-8111-111111111111';
      const unknown = await nps(['keys', 'update', key, '--wallets', `Hot wallet,${stranger}`, ...dir]);
      expect(unknown.code).toBe(1);
      expect(unknown.err).toMatch(new RegExp(`^--wallets: no wallet is named or has the ID "${stranger}"`));
      const after = JSON.parse((await nps(['keys', 'list', '--json', ...dir])).out) as { api_key: string; wallets: string[] | null }[];
      expect(after).toHaveLength(before);
      expect(after.find((k) => k.api_key === key)!.wallets!.sort()).toEqual([cold.wallet_id, hot.wallet_id].sort());
    },
    CLI_TIMEOUT,
  );

  it(
    'serve takes the nonce window and the rate limit',
    async () => {
      const bad = await nps(['serve', '--rate-limit', 'lots']);
      expect(bad.code).toBe(1);
      expect(bad.err.trim()).toBe('--rate-limit: must be a whole number of requests a minute (0: no limit), got lots');
      const badImports = await nps(['serve', '--max-imports', '0']);
      expect([badImports.code, badImports.err.trim()]).toEqual([1, '--max-imports: must be a whole number of import jobs >= 1, got 0']);

      // A folder of its own: the one above has a service running on it already.
      const dataDir = mkdtempSync(join(tmpdir(), 'nps-serve-flags-'));
      const secret = /API secret: ([0-9a-f]{64})/.exec((await nps(['keys', 'create', '--label', 'w', '--data-dir', dataDir])).out)![1]!;
      const child = spawn(
        process.execPath,
        ['out/main/cli.js', 'serve', '--port', '0', '--nonce-window', '5', '--rate-limit', '0', '--data-dir', dataDir],
        { cwd: root },
      );
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = '';
          child.stdout.on('data', (c) => {
            out += c;
            const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\/nps/.exec(out);
            if (m) resolve(m[1]!);
          });
          child.on('exit', () => reject(new Error(out)));
        });
        const path = '/nps/ticket';
        const query = `wallet_id=${'1'.repeat(8)}-1111-4111-8111-${'1'.repeat(12)}&ticket_id=${'2'.repeat(8)}-2222-4222-8222-${'2'.repeat(12)}`;
        const res = await fetch(`${url}${path}?${query}`, {
          headers: signedHeaders(secret, { method: 'GET', path, query, body: '' }, Date.now() - 6_000),
        });
        expect(await res.json()).toMatchObject({ status: 2003, msg: expect.stringMatching(/within 5 s/) });
      } finally {
        if (child.exitCode === null && child.signalCode === null) {
          await new Promise((resolve) => {
            child.on('exit', resolve);
            child.kill('SIGTERM');
          });
        }
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    CLI_TIMEOUT,
  );
});
