import { afterAll, describe, expect, test } from 'vitest';
import { tempService } from '../test-support';
import { apiKeyOfSecret } from './sign';

const W1 = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';
let clock = 1_767_323_045_000;
const svc = tempService({ now: () => clock });
afterAll(() => svc.dispose());
const ui = { actor: 'ui' as const };

describe('keys handlers', () => {
  test('create: the secret answers for the key, is never stored; wallets normalised', async () => {
    const k = await svc.invoke('keys-create', { label: '  robot  ', wallets: [W2.toUpperCase(), W1, W1] }, ui);
    expect(apiKeyOfSecret(k.api_secret)).toBe(k.api_key);
    expect(k).toMatchObject({ label: 'robot', wallets: [W1, W2], created_at: clock });
    const stored = JSON.stringify([
      svc.ctx.db.$client.prepare('SELECT * FROM api_keys').all(),
      svc.ctx.db.$client.prepare('SELECT * FROM api_key_wallets').all(),
    ]);
    expect(stored).toContain(k.api_key);
    expect(stored).not.toContain(k.api_secret);
  });

  test('list, update label and scope, revoke once', async () => {
    const k = await svc.invoke('keys-create', { label: 'b', wallets: null }, ui);
    clock += 1000;
    expect(await svc.invoke('keys-update', { api_key: k.api_key.toUpperCase(), label: 'books', wallets: [W1] }, ui)).toMatchObject({
      label: 'books',
      wallets: [W1],
    });
    expect(await svc.invoke('keys-update', { api_key: k.api_key, wallets: null }, ui)).toMatchObject({ label: 'books', wallets: null });
    const revoked = await svc.invoke('keys-revoke', { api_key: k.api_key }, ui);
    expect(revoked.revoked_at).toBe(clock);
    clock += 1000;
    expect((await svc.invoke('keys-revoke', { api_key: k.api_key }, ui)).revoked_at).toBe(clock - 1000);
    const list = await svc.invoke('keys-list', {}, ui);
    expect(list.find((x) => x.api_key === k.api_key)).toMatchObject({
      label: 'books',
      wallets: null,
      revoked_at: clock - 1000,
      last_used_at: null,
    });
  });

  test.each([
    ['keys-create', { label: '', wallets: null }, /^label: must not be empty/],
    ['keys-create', { label: 'x', wallets: [] }, /^wallets: must name at least one wallet/],
    ['keys-create', { label: 'x', wallets: ['w1'] }, /^wallets\[0\]: must be UUID-shaped/],
    ['keys-add', { public_key: 'ab', label: 'x' }, /^public_key: must be a 32-byte Ed25519 public key/],
    ['keys-revoke', { api_key: 'cd'.repeat(32) }, /^api_key: no such key/],
    ['keys-update', { api_key: 'cd'.repeat(32), label: 'y' }, /^api_key: no such key/],
  ] as const)('%s %j: 1002', async (name, input, msg) => {
    await expect(svc.invoke(name, input, ui)).rejects.toMatchObject({ code: 1002, message: expect.stringMatching(msg) });
  });

  test('a key made elsewhere is registered once; a revoked one cannot come back', async () => {
    const pub = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
    expect(await svc.invoke('keys-add', { public_key: pub, label: 'hsm', wallets: null }, ui)).toMatchObject({
      api_key: pub,
      revoked_at: null,
    });
    await expect(svc.invoke('keys-add', { public_key: pub, label: 'again', wallets: null }, ui)).rejects.toMatchObject({
      message: /already registered/,
    });
    await svc.invoke('keys-revoke', { api_key: pub }, ui);
    await expect(svc.invoke('keys-add', { public_key: pub, label: 'again', wallets: null }, ui)).rejects.toMatchObject({
      message: /revoked and cannot be registered again/,
    });
  });
});
