import { beforeAll, describe, expect, test } from 'vitest';
import { postgresNonceStore } from '../keys/nonce-repository';
import type { buildServer } from './server';
import { signedInject } from './signed.test-support';
import { twoServicesOverPostgres } from './team.test-support';

/*
 * Two services, each with its own data folder, using up nonces in one PostgreSQL store: a signed
 * request answered by one is refused by the other when replayed to it (2004), through the /nps
 * door as a local tool sends it.
 */

const W1 = '11111111-1111-4111-8111-111111111111';
const SIGNED_GET = `/nps/ticket?ticket_id=${'c'.repeat(8)}-cccc-4ccc-8ccc-${'c'.repeat(12)}&wallet_id=${W1}`;

let secret: string;
let clock = Date.UTC(2026, 10, 27, 12);
const { services, apps } = twoServicesOverPostgres(
  (pool) => ({ nonces: postgresNonceStore(pool) }),
  () => clock,
);

beforeAll(async () => {
  // One key, registered with each service's own store: only the nonces are in the team store here.
  const key = await services[0]!.invoke('keys-create', { label: 'books robot', wallets: null }, { actor: 'cli' });
  secret = key.api_secret;
  const row = services[0]!.ctx.db.$client.prepare('SELECT * FROM api_keys WHERE api_key = ?').get(key.api_key) as Record<string, unknown>;
  services[1]!.ctx.db.$client
    .prepare('INSERT INTO api_keys (api_key, label, all_wallets, created_at) VALUES (@api_key, @label, @all_wallets, @created_at)')
    .run(row);
});

describe('two services over one PostgreSQL store', () => {
  test('a signed request answered by one is refused by the other when replayed (2004), either way round', async () => {
    const [a, b] = apps as [ReturnType<typeof buildServer>, ReturnType<typeof buildServer>];
    const first = { method: 'GET' as const, url: SIGNED_GET, nonce: clock };
    // 3004: authenticated (the nonce used up), then the handler finds no such wallet.
    expect((await signedInject(a, secret, first, clock)).body.status).toBe(3004);
    const replayed = await signedInject(b, secret, first, clock + 1_000);
    expect(replayed.http).toBe(401);
    expect(replayed.body).toMatchObject({ status: 2004, data: null });
    expect(replayed.body.msg).toMatch(/already used/);

    clock += 2_000;
    const second = { method: 'GET' as const, url: SIGNED_GET, nonce: clock };
    expect((await signedInject(b, secret, second, clock)).body.status).toBe(3004);
    expect((await signedInject(a, secret, second, clock)).body.status).toBe(2004);
  });

  test('each service still refuses its own replays, and a fresh nonce passes on both', async () => {
    clock += 2_000;
    for (const [i, app] of apps.entries()) {
      const call = { method: 'GET' as const, url: SIGNED_GET, nonce: clock + i };
      expect((await signedInject(app, secret, call, clock)).body.status).toBe(3004);
      expect((await signedInject(app, secret, call, clock)).body.status).toBe(2004);
    }
  });
});
