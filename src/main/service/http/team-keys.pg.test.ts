import { describe, expect, test } from 'vitest';
import { postgresKeyStore } from '../keys/key-repository';
import { postgresNonceStore } from '../keys/nonce-repository';
import type { tempService } from '../test-support';
import type { buildServer } from './server';
import { signedInject } from './signed.test-support';
import { twoServicesOverPostgres } from './team.test-support';

/*
 * Two services, each with its own data folder, whose API keys and used nonces are in one
 * PostgreSQL store, called through /nps as a local tool calls them: a key made through one signs
 * for the other, a request one answered is refused by the other when replayed (2004), the key's
 * last use shows on both, and a key revoked through one is refused by the other at its next request
 * (2002).
 */

const W1 = '11111111-1111-4111-8111-111111111111';
const SIGNED_GET = `/nps/ticket?ticket_id=${'c'.repeat(8)}-cccc-4ccc-8ccc-${'c'.repeat(12)}&wallet_id=${W1}`;

let clock = Date.UTC(2026, 10, 27, 12);
const { services, apps } = twoServicesOverPostgres(
  (pool) => ({ nonces: postgresNonceStore(pool), keys: postgresKeyStore(pool) }),
  () => clock,
);

describe('two services over one PostgreSQL store of keys and nonces', () => {
  test('a key made through one signs for the other; a replay to either is refused; revoked through one, refused by the other', async () => {
    const [a, b] = apps as [ReturnType<typeof buildServer>, ReturnType<typeof buildServer>];
    const [first, second] = services as [ReturnType<typeof tempService>, ReturnType<typeof tempService>];
    const key = await first.invoke('keys-create', { label: 'books robot', wallets: null }, { actor: 'ui' });
    // Not registered with the second service's own store: it reads the team store's.
    expect(second.ctx.db.$client.prepare('SELECT count(*) FROM api_keys').pluck().get()).toBe(0);
    const call = { method: 'GET' as const, url: SIGNED_GET, nonce: clock };
    // 3004: authenticated (the key found, the nonce used up), then the handler finds no such wallet.
    expect((await signedInject(b, key.api_secret, call, clock)).body.status).toBe(3004);
    expect((await signedInject(a, key.api_secret, call, clock)).body).toMatchObject({ status: 2004, data: null });
    // Its last use shows through either service.
    expect((await first.invoke('keys-list', {}, { actor: 'ui' }))[0]).toMatchObject({ api_key: key.api_key, last_used_at: clock });

    clock += 1_000;
    expect(await second.invoke('keys-revoke', { api_key: key.api_key }, { actor: 'ui' })).toMatchObject({ revoked_at: clock });
    const after = await signedInject(a, key.api_secret, { method: 'GET', url: SIGNED_GET, nonce: clock }, clock);
    expect(after.http).toBe(401);
    expect(after.body).toMatchObject({ status: 2002, data: null, msg: 'BIZ-API-KEY: this API key was revoked' });
  });

  test('a public key registered through one is known to the other: registering it again there is refused', async () => {
    const [first, second] = services as [ReturnType<typeof tempService>, ReturnType<typeof tempService>];
    const made = await first.invoke('keys-create', { label: 'tool', wallets: [W1] }, { actor: 'ui' });
    await expect(second.invoke('keys-add', { public_key: made.api_key, label: 'again', wallets: null }, { actor: 'ui' })).rejects.toThrow(
      /public_key: this key is already registered/,
    );
    expect((await second.invoke('keys-list', {}, { actor: 'ui' })).find((k) => k.api_key === made.api_key)).toMatchObject({
      label: 'tool',
      wallets: [W1],
    });
  });
});
