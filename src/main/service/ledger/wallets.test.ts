import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallMeta } from '../context';
import { failure, tempService } from '../test-support';

const SAMPLES = join(__dirname, '../../../../resources/samples');
const tronscan = { path: join(SAMPLES, 'tronscan-token-transfers.csv') };
const meta: CallMeta = { actor: 'ui' };
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const OWN_TRON = 'TWSjYGnedK9bWn4ov6LeXR9euGKbPoCcE5';
const SENDER_TRON = 'TF9tADTJwDtRMb8yABrGoYknYMeB7HRs9a';

let svc: ReturnType<typeof tempService>;
beforeEach(() => {
  svc = tempService();
});
afterEach(() => svc.dispose());

const dump = () =>
  JSON.stringify([
    svc.ctx.db.$client.prepare('SELECT * FROM wallets ORDER BY wallet_id').all(),
    svc.ctx.db.$client.prepare('SELECT * FROM wallet_addresses ORDER BY wallet_id, chain_id, address').all(),
  ]);

describe('named wallets', () => {
  it('creates a wallet with a name, notes and addresses, and lists it', async () => {
    const w = await svc.invoke(
      'wallet-create',
      { name: ' Treasury ', notes: 'cold storage', addresses: [{ chain_id: 'ETH', address: EVM, label: 'main' }] },
      meta,
    );
    expect(w.wallet_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(w).toMatchObject({ name: 'Treasury', notes: 'cold storage', transactions: 0 });
    expect(w.addresses).toEqual([{ chain_id: 'ETH', address: EVM.toLowerCase(), label: 'main' }]);
    expect(await svc.invoke('wallets-list', {}, meta)).toEqual([w]);
  });

  it('renames a wallet and changes its notes; a name is unique ignoring case', async () => {
    const a = await svc.invoke('wallet-create', { name: 'Treasury' }, meta);
    const b = await svc.invoke('wallet-create', { name: 'Customers' }, meta);
    const dup = await failure(svc.invoke('wallet-create', { name: 'treasury' }, meta));
    expect(dup.code).toBe(1002);
    expect(dup.message).toMatch(/^name: a wallet is already named "treasury"/);
    const taken = await failure(svc.invoke('wallet-update', { wallet_id: b.wallet_id, name: 'TREASURY' }, meta));
    expect(taken.message).toMatch(/^name: a wallet is already named/);
    // Its own name in another case is no clash.
    const renamed = await svc.invoke('wallet-update', { wallet_id: a.wallet_id, name: 'TREASURY', notes: 'audited' }, meta);
    expect(renamed).toMatchObject({ wallet_id: a.wallet_id, name: 'TREASURY', notes: 'audited' });
    const missing = await failure(svc.invoke('wallet-update', { wallet_id: '00000000-0000-4000-8000-000000000000', name: 'x' }, meta));
    expect(missing.message).toMatch(/^wallet_id: no wallet/);
    const empty = await failure(svc.invoke('wallet-create', { name: '   ' }, meta));
    expect(empty.message).toMatch(/name/);
  });

  it('adds and removes addresses per chain, checked for the chain family; a refused request changes nothing', async () => {
    const a = await svc.invoke('wallet-create', { name: 'A' }, meta);
    const b = await svc.invoke('wallet-create', { name: 'B' }, meta);
    const added = await svc.invoke('wallet-address-add', { wallet_id: a.wallet_id, chain_id: 'ETH', address: EVM }, meta);
    expect(added.addresses.map((x) => x.address)).toEqual([EVM.toLowerCase()]);
    await svc.invoke('wallet-address-add', { wallet_id: a.wallet_id, chain_id: 'TRON', address: OWN_TRON }, meta);
    const before = dump();

    const bad = await failure(svc.invoke('wallet-address-add', { wallet_id: b.wallet_id, chain_id: 'ETH', address: '0x1234' }, meta));
    expect(bad.code).toBe(1002);
    expect(bad.message).toMatch(/^address: "0x1234" is not an EVM address on ETH: it must be 0x and 40 hex digits/);
    const tronOnEvm = await failure(svc.invoke('wallet-address-add', { wallet_id: b.wallet_id, chain_id: 'ETH', address: OWN_TRON }, meta));
    expect(tronOnEvm.message).toMatch(/^address: .* is not an EVM address on ETH/);
    const other = await failure(
      svc.invoke('wallet-address-add', { wallet_id: b.wallet_id, chain_id: 'ETH', address: EVM.toLowerCase() }, meta),
    );
    expect(other.message).toMatch(/^address: .* on ETH is already the address of wallet "A"/);
    const unknownChain = await failure(svc.invoke('wallet-address-add', { wallet_id: b.wallet_id, chain_id: 'NOPE', address: EVM }, meta));
    expect(unknownChain.message).toMatch(/^chain_id: unknown chain "NOPE"/);
    const badCreate = await failure(
      svc.invoke('wallet-create', { name: 'C', addresses: [{ chain_id: 'ETH', address: EVM.toUpperCase().replace('0X', '0x') }] }, meta),
    );
    expect(badCreate.message).toMatch(/^addresses\[0\]\.address: .* already the address of wallet "A"/);
    expect(dump()).toBe(before);

    const removed = await svc.invoke('wallet-address-remove', { wallet_id: a.wallet_id, chain_id: 'ETH', address: EVM }, meta);
    expect(removed.addresses).toEqual([{ chain_id: 'TRON', address: OWN_TRON, label: '' }]);
    const gone = await failure(svc.invoke('wallet-address-remove', { wallet_id: a.wallet_id, chain_id: 'ETH', address: EVM }, meta));
    expect(gone.message).toMatch(/^address: .* is not this wallet's address on ETH/);
  });

  it('imports into a wallet by name: creates it the first time, uses it after', async () => {
    const preview = await svc.invoke('ledger-preview', { source: tronscan, wallet_name: 'Tron hot' }, meta);
    expect(preview.added).toBe(8);
    expect(await svc.invoke('wallets-list', {}, meta)).toEqual([]);

    const first = await svc.invoke('ledger-import', { source: tronscan, wallet_name: 'Tron hot' }, meta);
    expect(first).toMatchObject({ added: 8, wallets_created: [expect.any(String)] });
    const [w] = await svc.invoke('wallets-list', {}, meta);
    expect(w).toMatchObject({ wallet_id: first.wallets_created[0], name: 'Tron hot', transactions: 8 });

    const again = await svc.invoke('ledger-import', { source: tronscan, wallet_name: 'TRON HOT' }, meta);
    expect(again).toMatchObject({ added: 0, unchanged: 8, wallets_created: [] });
    expect(await svc.invoke('ledger-import', { source: tronscan, wallet_name: 'Tron hot', wallet_id: w!.wallet_id }, meta)).toMatchObject({
      unchanged: 8,
    });

    const other = await svc.invoke('wallet-create', { name: 'Other' }, meta);
    const disagree = await failure(
      svc.invoke('ledger-import', { source: tronscan, wallet_name: 'Tron hot', wallet_id: other.wallet_id }, meta),
    );
    expect(disagree.message).toMatch(/^wallet_name: "Tron hot" is wallet .*, not wallet_id/);
    const unknownName = await failure(
      svc.invoke('ledger-import', { source: tronscan, wallet_name: 'New', wallet_id: other.wallet_id }, meta),
    );
    expect(unknownName.message).toMatch(/^wallet_name: no wallet is named "New", and wallet_id .* is given too/);
    expect((await svc.invoke('wallets-list', {}, meta)).map((x) => x.name)).toEqual(['Other', 'Tron hot']);
  });

  it("decides deposits and withdrawals with the wallet's own address on the file's chain", async () => {
    // The sample's own address is the recipient of most rows; this wallet says it is the sender of the first.
    const w = await svc.invoke('wallet-create', { name: 'Sender', addresses: [{ chain_id: 'TRON', address: SENDER_TRON }] }, meta);
    const r = await svc.invoke('ledger-import', { source: tronscan, wallet_name: 'Sender' }, meta);
    expect(r.read_as.wallet_address).toBe(SENDER_TRON);
    expect(r.added).toBe(1);
    const page = await svc.invoke('transactions-list', { wallet_id: w.wallet_id }, meta);
    expect(page.list[0]).toMatchObject({ type: 'Withdrawal', amount: '1250' });

    // A given --wallet-address still wins.
    const given = await svc.invoke('ledger-preview', { source: tronscan, wallet_id: w.wallet_id, wallet_address: OWN_TRON }, meta);
    expect(given.read_as.wallet_address).toBe(OWN_TRON);
  });
});
